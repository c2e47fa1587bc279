import { resolve } from 'node:path';
import { readEnv } from '../config/env.ts';
import { defaultDataDir } from '../engine/runtime.ts';
import { defaultLedgerFile } from '../ledger/files.ts';

/** The ledger a command reads: the one given, else the data dir's network ledger, else its newest devnet or fork ledger. */
export function ledgerFileFor(given: string | undefined): string {
  return given ?? defaultLedgerFile(resolve(readEnv().ROUTEKEEPER_DATA_DIR ?? defaultDataDir));
}
