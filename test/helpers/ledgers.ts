/**
 * The ledger's backends for tests that run once on each (as Ponder runs one suite on two databases): a SQLite file,
 * or a schema of its own in the run's PostgreSQL (test/setup/postgres.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Address } from 'viem';
import type { LedgerLocation } from '../../src/ledger/ledger.ts';
import type { TradeStore } from '../../src/ledger/trades.ts';
import { spentOf } from '../../src/model/kinds/registry.ts';
import { committedTrades, pastTradesOf } from '../../src/trade/wallet-history.ts';
import { provided } from './provided.ts';

export const backends = ['sqlite', 'postgres'] as const;
export type Backend = (typeof backends)[number];

/** A new, empty ledger location of this backend. */
export function freshLedger(backend: Backend): LedgerLocation {
  if (backend === 'sqlite') return { kind: 'sqlite', file: join(mkdtempSync(join(tmpdir(), 'routekeeper-ledger-')), 'ledger.sqlite') };
  return { kind: 'postgres', url: provided('postgresUrl', 'freshLedger, freshDatabase or backends'), schema: `test_${randomBytes(6).toString('hex')}` };
}

/** A new, empty PostgreSQL database of the run's server, for a daemon that names its own schema; its URL. */
export async function freshDatabase(): Promise<string> {
  const admin = provided('postgresUrl', 'freshLedger, freshDatabase or backends');
  const name = `db_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Runs `statement` on a ledger as any database writer could, outside routekeeper: plain SQL on the file or in the
 * schema, `?` for each parameter.
 */
export async function runSql(location: LedgerLocation, statement: string, ...params: unknown[]): Promise<void> {
  if (location.kind === 'sqlite') {
    const db = new Database(location.file);
    try {
      db.prepare(statement).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${location.schema}"`);
    let n = 0;
    await client.query(
      statement.replace(/\?/g, () => `$${++n}`),
      params,
    );
  } finally {
    await client.end();
  }
}

/**
 * Raw `token` a wallet's trades committed since `since` (claimed at or after it), as the budgets count it
 * (trade/wallet-history.ts): from the wallet's rows, sorted by what they say, without their tags proven.
 */
export async function spentSince(
  ledger: { trades: Pick<TradeStore, 'walletRows'> },
  filter: { wallet: Address; chainId?: number; token: Address; since: number; strategyId?: string; excludeId?: string },
): Promise<bigint> {
  const rows = await ledger.trades.walletRows(filter.wallet, filter.chainId ?? 42220);
  return committedTrades(pastTradesOf(rows), filter.token, filter)
    .filter(({ record }) => record.createdAt >= filter.since)
    .reduce((sum, { record }) => sum + spentOf(record, filter.token), 0n);
}

/**
 * What the owner of the ledger's schema (or whoever writes a SQLite file) can do and a daemons' role cannot: lift the
 * rule that keeps the ledger's id, where each wallet's record starts and the tags' mark written once.
 */
export async function liftWrittenOnce(location: LedgerLocation): Promise<void> {
  if (location.kind === 'sqlite') {
    await runSql(location, 'DROP TRIGGER ledger_meta_written_once_update');
    await runSql(location, 'DROP TRIGGER ledger_meta_written_once_delete');
    return;
  }
  await runSql(location, 'ALTER TABLE ledger_meta DISABLE TRIGGER ledger_meta_written_once');
}
