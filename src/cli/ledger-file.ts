import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readEnv } from '../config/env.ts';
import { defaultDataDir } from '../engine/runtime.ts';

/** The ledger a command reads: the one given, else the data dir's network ledger, else its devnet ledger. */
export function ledgerFileFor(given: string | undefined): string {
  const dataDir = resolve(readEnv().ROUTEKEEPER_DATA_DIR ?? defaultDataDir);
  const candidates = given ? [given] : [join(dataDir, 'ledger.sqlite'), join(dataDir, 'devnet-ledger.sqlite')];
  return candidates.find((candidate) => existsSync(candidate)) ?? (candidates[0] as string);
}
