/**
 * The two ledgers hold the same thing: after every migration, a SQLite file and a PostgreSQL schema have the same
 * tables, the same columns in each, each of the same kind of value and the same nullability, and the same indexes'
 * columns. A migration written for one backend and not the other fails here, before any daemon meets the difference.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Ledger, type LedgerLocation } from '../../src/ledger/ledger.ts';
import { freshLedger } from '../helpers/ledgers.ts';

/** A column as both backends can say it: its name, the kind of value it holds, and whether it may be null. */
type Column = { table: string; column: string; kind: string; nullable: boolean };

/** SQLite's declared types and PostgreSQL's, as the kinds of value they hold. */
function kindOf(declared: string): string {
  const type = declared.toLowerCase();
  if (/int|serial/.test(type)) return 'integer';
  if (/char|text|clob/.test(type)) return 'text';
  if (/real|floa|doub|numeric/.test(type)) return 'real';
  if (/bool/.test(type)) return 'boolean';
  if (/blob|bytea/.test(type)) return 'bytes';
  return type;
}

async function sqliteColumns(file: string): Promise<{ columns: Column[]; indexes: string[] }> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
    const columns = tables.flatMap(({ name: table }) =>
      (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string; type: string; notnull: number; pk: number }[]).map((column) => ({
        table,
        column: column.name,
        kind: kindOf(column.type),
        // A primary key is never null, whatever SQLite's table_info says of an INTEGER PRIMARY KEY.
        nullable: column.notnull === 0 && column.pk === 0,
      })),
    );
    const indexes = tables.flatMap(({ name: table }) =>
      (db.prepare(`PRAGMA index_list("${table}")`).all() as { name: string; unique: number; origin: string }[])
        .filter((index) => index.origin !== 'pk')
        .map((index) => {
          const on = (db.prepare(`PRAGMA index_info("${index.name}")`).all() as { name: string }[]).map((column) => column.name);
          return `${table}(${on.join(', ')})${index.unique ? ' unique' : ''}`;
        }),
    );
    return { columns, indexes };
  } finally {
    db.close();
  }
}

async function postgresColumns(url: string, schema: string): Promise<{ columns: Column[]; indexes: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = $1`,
      [schema],
    );
    const columns = rows.map((row) => ({ table: row.table_name, column: row.column_name, kind: kindOf(row.data_type), nullable: row.is_nullable === 'YES' }));
    const indexed = await client.query<{ table: string; index: string; unique: boolean; primary: boolean; columns: string[] }>(
      `SELECT t.relname AS table, i.relname AS index, x.indisunique AS unique, x.indisprimary AS primary,
              array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = $1
        GROUP BY t.relname, i.relname, x.indisunique, x.indisprimary`,
      [schema],
    );
    const indexes = indexed.rows.filter((row) => !row.primary).map((row) => `${row.table}(${row.columns.join(', ')})${row.unique ? ' unique' : ''}`);
    return { columns, indexes };
  } finally {
    await client.end();
  }
}

/** A column in words: `table.column kind`, and ` null` when it may be null. */
const said = (c: Column) => `${c.table}.${c.column} ${c.kind}${c.nullable ? ' null' : ''}`;

/** The columns of `a` that `b` has not, as said. */
const columnsIn = (a: Column[], b: Column[]) => a.map(said).filter((column) => !b.map(said).includes(column));

/**
 * The differences that are meant, each with why; any other fails.
 *  - PostgreSQL has no rowid: `seq` is the insertion order SQLite's rowid gives the tables read in that order.
 *  - SQLite counts its migrations in `PRAGMA user_version`; PostgreSQL in `ledger_migrations`.
 *  - `token_out` and `slippage_bps` came to SQLite's `intents` by ALTER TABLE ADD COLUMN (migration 2), which cannot add
 *    a NOT NULL column to a table with rows; PostgreSQL's table was created with them NOT NULL. Every row is written
 *    with both (ledger/rows.ts), and the request's tag covers them.
 */
const onlyInPostgres = [
  'balances.seq integer',
  'intents.seq integer',
  'intents.slippage_bps integer',
  'intents.token_out text',
  'ledger_migrations.applied_at integer',
  'ledger_migrations.version integer',
  'position_marks.seq integer',
  'prices.seq integer',
];
const onlyInSqlite = ['intents.slippage_bps integer null', 'intents.token_out text null'];

const sorted = <T>(list: T[], key: (item: T) => string) => [...list].sort((a, b) => key(a).localeCompare(key(b)));

async function schemaOf(location: LedgerLocation) {
  const ledger = await Ledger.open(location);
  await ledger.close();
  const read = location.kind === 'sqlite' ? await sqliteColumns(location.file) : await postgresColumns(location.url, location.schema);
  return { columns: sorted(read.columns, (c) => `${c.table}.${c.column}`), indexes: [...read.indexes].sort() };
}

describe('the two ledgers', () => {
  it('have the same tables, columns, kinds of value, nullability and indexes after every migration', async () => {
    const [sqlite, postgres] = await Promise.all([schemaOf(freshLedger('sqlite')), schemaOf(freshLedger('postgres'))]);
    // Both hold the ledger's tables at all (an empty read would compare equal).
    expect(new Set(sqlite.columns.map((c) => c.table))).toContain('intents');
    expect(sqlite.columns.length).toBeGreaterThan(100);
    expect(columnsIn(postgres.columns, sqlite.columns)).toEqual(onlyInPostgres);
    expect(columnsIn(sqlite.columns, postgres.columns)).toEqual(onlyInSqlite);
    expect(postgres.indexes).toEqual(sqlite.indexes);
  });
});
