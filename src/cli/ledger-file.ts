import { resolve } from 'node:path';
import pg from 'pg';
import { databaseUrlOf, readEnv } from '../config/env.ts';
import { defaultDataDir } from '../engine/runtime.ts';
import { defaultLedgerFile, networkSchema, throwawaySchemaPattern } from '../ledger/files.ts';
import type { LedgerLocation } from '../ledger/ledger.ts';
import { RoutekeeperError } from '../errors.ts';
import { redactUrl, registerSecretUrl } from '../ops/secrets.ts';
import { UsageError } from './errors.ts';

/** The options of the commands that read a ledger. */
export const ledgerOptions = { ledger: { type: 'string' }, database: { type: 'string' } } as const;

/**
 * The ledger a command reads: the file given; else, with a PostgreSQL URL (`--database`, DATABASE_URL), its
 * network schema, else its newest devnet or fork schema; else the data dir's network ledger, else its newest
 * devnet or fork ledger.
 */
export async function ledgerLocationFor(given: { ledger?: string; database?: string }): Promise<LedgerLocation> {
  if (given.ledger !== undefined && given.database !== undefined) throw new UsageError('give --ledger or --database, not both');
  if (given.ledger !== undefined) return { kind: 'sqlite', file: given.ledger };
  const env = readEnv();
  const url = databaseUrlOf(given.database, env);
  if (url === undefined) return { kind: 'sqlite', file: defaultLedgerFile(resolve(env.ROUTEKEEPER_DATA_DIR ?? defaultDataDir)) };
  registerSecretUrl(url);
  return { kind: 'postgres', url, schema: await newestSchema(url) };
}

/** The network's schema when it holds a ledger, else the devnet or fork schema bound last. */
async function newestSchema(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string }>(
      "SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'chain' AND (table_schema = $1 OR table_schema ~ $2)",
      [networkSchema, throwawaySchemaPattern],
    );
    const schemas = rows.map((row) => row.schema);
    if (schemas.length === 0) throw new RoutekeeperError(`no ledger in the database ${redactUrl(url)}: no daemon has written one there yet`);
    if (schemas.includes(networkSchema)) return networkSchema;
    const bound = await Promise.all(
      schemas.map(async (schema) => ({ schema, at: Number((await client.query(`SELECT bound_at FROM ${schema}.chain`)).rows[0]?.bound_at ?? 0) })),
    );
    return (bound.sort((a, b) => b.at - a.at)[0] as { schema: string }).schema;
  } finally {
    await client.end();
  }
}
