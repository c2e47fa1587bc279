/**
 * Where ledgers live. In the data directory, a real network has one ledger, `ledger.sqlite`, bound to its chain
 * at creation. The embedded devnet and paper-trading forks are new chains at every start: each gets a ledger
 * named after its chain (`devnet-<chain id>-<genesis>.sqlite`, `fork-<chain id>-at-<block>.sqlite`), and
 * earlier ones of the same kind are removed at start unless a live process holds them. In PostgreSQL
 * (`DATABASE_URL`), the same names are schemas: `routekeeper`, `devnet_<chain id>_<genesis>`, `fork_<chain id>_at_<block>`
 * (earlier ones are left: several daemons may share the database).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainIdentity } from '../model/attempt.ts';
import { Ledger } from './ledger.ts';

export const networkLedgerName = 'ledger.sqlite';
export const networkSchema = 'routekeeper';

/** The names `throwawaySchema` gives, as a PostgreSQL regular expression (to find them in a database). */
export const throwawaySchemaPattern = '^(devnet_[0-9]+_[0-9a-f]{8}|fork_[0-9]+_at_[0-9]+)$';

/** The schema of a devnet's or a fork's ledger in PostgreSQL, named as its file would be. */
export function throwawaySchema(kind: ThrowawayKind, chain: ChainIdentity, forkBlock?: bigint): string {
  return kind === 'devnet' ? `devnet_${chain.chainId}_${chain.genesisHash.slice(2, 10).toLowerCase()}` : `fork_${chain.chainId}_at_${forkBlock ?? 0n}`;
}

export type ThrowawayKind = 'devnet' | 'fork';

/** The ledger file of a devnet or a fork: named after the chain (and, for a fork, the block it forked at). */
export function throwawayLedgerFile(dataDir: string, kind: ThrowawayKind, chain: ChainIdentity, forkBlock?: bigint): string {
  const tag = kind === 'devnet' ? chain.genesisHash.slice(2, 10) : `at-${forkBlock ?? 0n}`;
  return join(dataDir, `${kind}-${chain.chainId}-${tag}.sqlite`);
}

/** Ledgers of earlier devnets or forks: their chains are gone. One a live process holds is left alone. */
export function removeStaleThrowawayLedgers(dataDir: string, kind: ThrowawayKind): string[] {
  const removed: string[] = [];
  for (const file of throwawayLedgers(dataDir, kind)) {
    if (Ledger.isHeld(file)) continue;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    removed.push(file);
  }
  return removed;
}

/** The ledger a reading command opens by default: the network's, else the newest devnet or fork ledger. */
export function defaultLedgerFile(dataDir: string): string {
  const network = join(dataDir, networkLedgerName);
  const throwaway = [...throwawayLedgers(dataDir, 'devnet'), ...throwawayLedgers(dataDir, 'fork')];
  if (throwaway.length === 0 || existsFile(network)) return network;
  return throwaway.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0] as string;
}

function throwawayLedgers(dataDir: string, kind: ThrowawayKind): string[] {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith(`${kind}-`) && name.endsWith('.sqlite')).map((name) => join(dataDir, name));
}

function existsFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
