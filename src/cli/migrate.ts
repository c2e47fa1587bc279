/**
 * `routekeeper migrate`: creates the ledger's schema in PostgreSQL and brings it to this version's tables, run with
 * the schema's owner role; with --grant, a role of its own for the daemons, which may then only read and write rows
 * (its help is in catalog.ts). Daemons with such a role open a current ledger and change nothing but rows.
 */
import pg from 'pg';
import { databaseUrlOf, readEnv } from '../config/env.ts';
import { networkSchema } from '../ledger/files.ts';
import { Ledger } from '../ledger/ledger.ts';
import { redactUrl } from '../ops/secrets.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';

const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('migrate', argv, { database: { type: 'string' }, schema: { type: 'string' }, grant: { type: 'string' } });
  const url = databaseUrlOf(values.database, readEnv());
  if (url === undefined)
    throw new UsageError('migrate: give the PostgreSQL database (DATABASE_URL, or --database) and run it with the role that owns the schema');
  const schema = values.schema ?? networkSchema;
  if (!identifier.test(schema)) throw new UsageError(`migrate: --schema must be a lower-case name of letters, digits and underscores, got '${schema}'`);
  if (values.grant !== undefined && !identifier.test(values.grant))
    throw new UsageError(`migrate: --grant must be a role name of lower-case letters, digits and underscores, got '${values.grant}'`);

  const before = await schemaVersion(url, schema);
  const ledger = await Ledger.open({ kind: 'postgres', url, schema });
  await ledger.close();
  const after = await schemaVersion(url, schema);
  console.log(`migrate: ledger schema ${schema} in ${redactUrl(url)} at version ${after}${before === after ? ' (it was current)' : ` (was ${before})`}`);
  if (values.grant !== undefined) {
    await grantRows(url, schema, values.grant);
    console.log(`migrate: role ${values.grant} may read and write the rows of ${schema} (its migrations only read), and change nothing else`);
  }
  return 0;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function schemaVersion(url: string, schema: string): Promise<number> {
  return withClient(url, async (client) => {
    const table = await client.query<{ present: string | null }>('SELECT to_regclass($1)::TEXT AS present', [`${schema}.ledger_migrations`]);
    if (!table.rows[0]?.present) return 0;
    const { rows } = await client.query<{ version: number | null }>(`SELECT MAX(version) AS version FROM ${schema}.ledger_migrations`);
    return Number(rows[0]?.version ?? 0);
  });
}

/**
 * What a daemon's role needs, and no more: the schema's rows, read and written; its tables and their sequences, as
 * they are now and as a later migrate makes them. The migrations' own table only read: a role that could write it
 * could make a later migrate skip a migration, or run one again.
 */
function grantRows(url: string, schema: string, role: string): Promise<void> {
  return withClient(url, async (client) => {
    const quoted = `"${role}"`;
    await client.query('BEGIN');
    await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${quoted}`);
    await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${quoted}`);
    await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${schema} TO ${quoted}`);
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${quoted}`);
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT USAGE, SELECT ON SEQUENCES TO ${quoted}`);
    await client.query(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ${schema}.ledger_migrations FROM ${quoted}`);
    await client.query('COMMIT');
  });
}
