/**
 * The ledger's one seam to its database: a typed query builder over a connection, and transactions. Stores
 * (trades, runs, pauses…) write their queries once against this; the dialect underneath is SQLite
 * (better-sqlite3, the default: one file, no server).
 */
import Database from 'better-sqlite3';
import { Kysely, type RawBuilder, SqliteDialect, sql } from 'kysely';
import type { LedgerTables } from './tables.ts';

/** Something that runs the ledger's queries: the database itself, or one transaction on it. */
export type Queries = Kysely<LedgerTables>;

export type LedgerDatabase = {
  readonly dialect: 'sqlite';
  readonly db: Queries;
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
    readonly: options.readonly ?? false,
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
