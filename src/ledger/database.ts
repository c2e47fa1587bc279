/**
 * The ledger's one seam to its database: a typed query builder over a connection, and transactions. Stores
 * (trades, runs, pauses…) write their queries once against this; the dialect underneath is SQLite
 * (better-sqlite3, the default: one file, no server) or PostgreSQL (`DATABASE_URL`, for several daemons).
 */
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, type RawBuilder, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { LedgerTables } from './tables.ts';

/** Something that runs the ledger's queries: the database itself, or one transaction on it. */
export type Queries = Kysely<LedgerTables>;

export type LedgerDatabase = {
  readonly dialect: 'sqlite' | 'postgres';
  readonly db: Queries;
  /** The database's clock, in milliseconds since 1970: leases are timed by it, never by a daemon's own. */
  readonly nowMs: RawBuilder<number>;
  /** An expression that orders a trade table's rows as they were inserted (times alone tie within a millisecond). */
  readonly insertionOrder: RawBuilder<number>;
  /** Whether the database was opened for reading only. */
  readonly readonly: boolean;
  /**
   * Runs `work` in one transaction: every query it makes through the given executor commits together or not at
   * all. On SQLite the write lock is taken at the start (BEGIN IMMEDIATE), so a read-then-write inside cannot be
   * overtaken by another process's write between the two. `durable`: the commit is on disk before this resolves,
   * power loss included (what signed bytes need before they may leave); see `openSqlite` for the others.
   */
  transaction<T>(work: (q: Queries) => Promise<T>, options?: { durable?: boolean }): Promise<T>;
  /**
   * Inside a transaction, waits until no other transaction holds `key`, and holds it until this one ends. SQLite
   * needs nothing (BEGIN IMMEDIATE lets one writer in at a time); PostgreSQL takes a transaction-level advisory lock
   * (released with the transaction, never left behind by a dropped connection).
   */
  serialize(q: Queries, key: string): Promise<void>;
  close(): Promise<void>;
};

export type SqliteOpenOptions = { readonly?: boolean; fileMustExist?: boolean };

/** The better-sqlite3 handle under a ledger file, for the few things only SQLite has (pragmas, its own lock). */
export type SqliteHandle = Database.Database;

/** Opens a SQLite file; `raw` is the handle for pragmas and the file's version. */
export function openSqlite(file: string, options: SqliteOpenOptions = {}): LedgerDatabase & { raw: SqliteHandle } {
  const raw = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.fileMustExist ?? false });
  if (!options.readonly) {
    raw.pragma('journal_mode = WAL');
    // NORMAL: a commit survives a crash of the process at once, and power loss once the log is next synced. A
    // durable transaction (signed bytes) syncs the log before it returns, and with it every commit before it: the
    // history of anything signed is always on disk, and no other write waits for the disk on the trading thread.
    raw.pragma('synchronous = NORMAL');
  }
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  // Each statement is prepared once: a daemon with thousands of strategies runs the same few dozen statements
  // thousands of times a minute, and a statement prepared per call costs time and native memory until collected.
  const statements = new Map<string, Database.Statement>();
  const prepared = {
    close: () => raw.close(),
    prepare(source: string) {
      let statement = statements.get(source);
      if (!statement) {
        statement = raw.prepare(source);
        statements.set(source, statement);
      }
      return statement;
    },
  };
  const db = new Kysely<LedgerTables>({ dialect: new SqliteDialect({ database: prepared }) });
  return {
    dialect: 'sqlite',
    db,
    raw,
    insertionOrder: sql<number>`rowid`,
    nowMs: sql<number>`CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`,
    readonly: options.readonly ?? false,
    serialize: async () => {},
    transaction: (work, transactionOptions = {}) =>
      db.connection().execute(async (connection) => {
        if (transactionOptions.durable) await sql`PRAGMA synchronous = FULL`.execute(connection);
        try {
          await sql`BEGIN IMMEDIATE`.execute(connection);
          try {
            const result = await work(connection);
            await sql`COMMIT`.execute(connection);
            return result;
          } catch (error) {
            if (raw.inTransaction) await sql`ROLLBACK`.execute(connection);
            throw error;
          }
        } finally {
          if (transactionOptions.durable) await sql`PRAGMA synchronous = NORMAL`.execute(connection);
        }
      }),
    close: async () => {
      if (raw.open) await db.destroy();
    },
  };
}

/**
 * How long PostgreSQL keeps a session that stopped in the middle of a transaction (ms). A daemon frozen there (a
 * stopped or suspended process, a stalled machine) would otherwise hold its row and advisory locks, a wallet's lease
 * row among them, for as long as it stays frozen: no other daemon could take that wallet over. The server ends such
 * a session, its transaction rolled back; no transaction of ours waits on anything but the database.
 */
export const idleInTransactionMs = 5_000;

/** An `EXISTS (…)` as read back: SQLite answers 0 or 1, PostgreSQL a boolean. */
export const existsAnswer = (value: unknown): boolean => value === true || Number(value) === 1;

/** A PostgreSQL schema name routekeeper made: lower-case letters, digits and underscores. */
const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens a PostgreSQL database (`url`) with the ledger in `schema`, created if missing. Times and ids are BIGINT,
 * read back as numbers (all below 2^53); amounts stay decimal text as in SQLite.
 */
export async function openPostgres(url: string, options: { schema: string; readonly?: boolean; poolSize?: number }): Promise<LedgerDatabase> {
  if (!schemaName.test(options.schema)) throw new Error(`not a ledger schema name: ${options.schema}`);
  const bigintAsNumber = (value: string) => Number(value);
  const pool = new pg.Pool({
    connectionString: url,
    // Runs overlap (maxConcurrency, 16 by default) and each asks the ledger a dozen times: 4 connections queued them.
    max: options.poolSize ?? 10,
    application_name: 'routekeeper',
    // Every connection works in the ledger's schema, and does not wait for the disk at commit unless asked (a
    // durable transaction): with every commit synced, the daemons spent their slots waiting on a slow disk. A session
    // frozen in a transaction is ended (see idleInTransactionMs).
    options: `-c search_path=${options.schema} -c synchronous_commit=off -c idle_in_transaction_session_timeout=${idleInTransactionMs}`,
    // An unreachable server fails a call in seconds, and a statement stuck past its time fails too, rather than
    // holding a run (or a lease's renewal) forever. A signed transaction's commit that times out is not broadcast.
    connectionTimeoutMillis: 5_000,
    query_timeout: 15_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8 ? bigintAsNumber : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A connection the server dropped (a restart) is discarded and reported by the call that needs one: neither an
  // idle one's error nor one in the middle of a transaction (between two statements) may end the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const client = await pool.connect();
    try {
      // Daemons starting together take turns (IF NOT EXISTS alone is not atomic); the lock ends with the transaction.
      // A schema that exists is not created again: a role that may only read and write rows cannot create one.
      const exists = (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema])).rowCount === 1;
      if (!options.readonly && !exists) {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`routekeeper-schema:${options.schema}`]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
        await client.query('COMMIT');
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = new Kysely<LedgerTables>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    db,
    insertionOrder: sql<number>`seq`,
    nowMs: sql<number>`(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT`,
    readonly: options.readonly ?? false,
    // As in SQLite: only the commit that stores signed bytes waits for the disk (its WAL flush also makes every
    // commit before it durable); the others return once the server has them, and survive a crash of the daemon.
    transaction: (work, transactionOptions = {}) =>
      db.transaction().execute(async (q) => {
        if (transactionOptions.durable) await sql`SET LOCAL synchronous_commit TO on`.execute(q);
        return work(q);
      }),
    serialize: async (q, key) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(q);
    },
    close: () => db.destroy(),
  };
}
