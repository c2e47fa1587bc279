/**
 * The ledger: every trade (one per strategy slot and key) and every transaction attempt, durable before and after
 * each side effect. The signed bytes of a transaction are committed before it is broadcast, so after a crash the
 * same bytes can be sent again, or their outcome adopted, and nothing is ever signed twice for a slot.
 *
 * A ledger is a set of stores, one per aggregate (trades, attempts, runs, pauses, marks, strategies, events), over
 * one database: a SQLite file, or a schema of a PostgreSQL database. One process owns a SQLite ledger at a time (a
 * lock whose owner died, or stopped beating, is taken over); several daemons share a PostgreSQL one, each wallet
 * held by one of them at a time (leases.ts, daemons.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError, RoutekeeperError } from '../errors.ts';
import { AttemptStore } from './attempts.ts';
import { sql } from 'kysely';
import { redactUrl } from '../ops/secrets.ts';
import { type LedgerDatabase, type SqliteHandle, openPostgres, openSqlite } from './database.ts';
import { DaemonStore } from './daemons.ts';
import { EventStore } from './events.ts';
import { processAlive } from './holders.ts';
import { LeaseStore } from './leases.ts';
import { MarkStore } from './marks.ts';
import { PauseStore } from './pauses.ts';
import { RunStore } from './runs.ts';
import { migrations } from './schema.ts';
import { postgresMigrations } from './schema-postgres.ts';
import { StrategyStore } from './strategies.ts';
import { TradeStore } from './trades.ts';
import type { ChainIdentity } from '../model/attempt.ts';
import type { LedgerView } from './views.ts';

export type { RunOutcome } from './tables.ts';
export type { Pause } from './pauses.ts';
export type { RunGate, RunRecord } from './runs.ts';
export { runOutcomeOf } from './runs.ts';
export type { BalanceMark, PositionMark, PriceMark, TokenName } from './marks.ts';
export type { StrategyDescription, StrategyRecord } from './strategies.ts';
export type { LedgerView, TradeReads } from './views.ts';

/** The ledger_meta key of the ledger's id. */
const ledgerIdKey = 'ledger-id';

export class LedgerLockedError extends RoutekeeperError {
  override name = 'LedgerLockedError';
}

/** The ledger was written on another chain than the one it is opened against. */
export class LedgerChainMismatchError extends ConfigError {
  override name = 'LedgerChainMismatchError';
}

/** A lock not refreshed for this long is taken over even if its process seems alive (hung, or another host). */
export const lockStaleAfterMs = 30_000;
const heartbeatEveryMs = 10_000;

/** Migrations that added tables a reader of an older, unmigrated ledger does without (it sees none of their rows). */
const runsFrom = 5;
const marksFrom = 6;
const leasesFrom = 8;
const daemonsFrom = 9;
const positionMarksFrom = 15;

/** Where a ledger lives: a SQLite file, or a schema of a PostgreSQL database. */
export type LedgerLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string };

const locationOf = (where: string | LedgerLocation): LedgerLocation => (typeof where === 'string' ? { kind: 'sqlite', file: where } : where);

/** How a ledger is named to people: its file, or its database (without the password) and schema. */
export function describeLocation(where: string | LedgerLocation): string {
  const location = locationOf(where);
  return location.kind === 'sqlite' ? location.file : `${redactUrl(location.url)} (schema ${location.schema})`;
}

export class Ledger {
  readonly trades: TradeStore;
  readonly attempts: AttemptStore;
  readonly runs: RunStore;
  readonly pauses: PauseStore;
  readonly marks: MarkStore;
  readonly strategies: StrategyStore;
  readonly events: EventStore;
  readonly leases: LeaseStore;
  readonly daemons: DaemonStore;
  /** Where this ledger lives, as people read it. */
  readonly location: string;
  readonly #database: LedgerDatabase;
  #lock: { owner: string; heartbeat: NodeJS.Timeout } | undefined;
  #closed = false;

  private constructor(database: LedgerDatabase, location: string, version: number) {
    this.#database = database;
    this.location = location;
    this.trades = new TradeStore(database);
    this.attempts = new AttemptStore(database);
    this.runs = new RunStore(database, version >= runsFrom);
    this.pauses = new PauseStore(database);
    this.marks = new MarkStore(database, { marks: version >= marksFrom, names: version >= runsFrom, positions: version >= positionMarksFrom });
    this.strategies = new StrategyStore(database, version >= marksFrom);
    this.events = new EventStore(database);
    this.leases = new LeaseStore(database, version >= leasesFrom);
    this.daemons = new DaemonStore(database, version >= daemonsFrom);
  }

  /**
   * Opens (creating if needed) the ledger; a SQLite file's lock is taken (LedgerLockedError if a live process holds
   * it), a PostgreSQL ledger is shared (who signs for a wallet is decided by its lease). A string
   * is a SQLite file. With `chain`, the ledger is bound to that chain at its first open and refuses any other
   * afterwards (LedgerChainMismatchError), before the lock is taken.
   */
  static async open(where: string | LedgerLocation, options: { owner?: string; now?: () => number; chain?: ChainIdentity } = {}): Promise<Ledger> {
    const location = locationOf(where);
    const database = await openDatabase(location, { readonly: false });
    try {
      await migrate(database);
      const ledger = new Ledger(database.database, describeLocation(location), latestVersion);
      if (options.chain) await ledger.#bind(options.chain, (options.now ?? Date.now)());
      if (location.kind === 'sqlite') await ledger.#acquireLock(options.owner ?? `${hostname()}:${process.pid}:${Date.now()}`, options.now ?? Date.now);
      return ledger;
    } catch (error) {
      await database.database.close();
      throw error;
    }
  }

  /** Opens an existing ledger for reading only (`history`, `status`, `daemons`): no lock taken, nothing written. */
  static async openReadOnly(where: string | LedgerLocation): Promise<LedgerView> {
    const location = locationOf(where);
    const database = await openDatabase(location, { readonly: true });
    return new Ledger(database.database, describeLocation(location), await versionOf(database));
  }

  /**
   * Opens an existing ledger to change its pauses (`pause`, `resume`) while a daemon may hold it: no lock is taken;
   * the database serializes the one write, and the daemon reads pauses afresh before every run.
   */
  static async openForPauses(where: string | LedgerLocation): Promise<Ledger> {
    const location = locationOf(where);
    const database = await openDatabase(location, { readonly: false, mustExist: true });
    try {
      await migrate(database);
    } catch (error) {
      await database.database.close();
      throw error;
    }
    return new Ledger(database.database, describeLocation(location), latestVersion);
  }

  /** Resolves when the database answers (the health probe). */
  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.#database.db);
  }

  /**
   * This ledger's own random id, made at its first use. The wallet's tags cover it (model/record-tags.ts), so a row
   * copied from another ledger (a fork's, the devnet's, another database or schema) carries tags valid nowhere here.
   * A writer who changes it only makes every tag of this ledger invalid: its open trades are refused, none signed.
   */
  async id(): Promise<string> {
    const read = async () => (await this.#database.db.selectFrom('ledger_meta').select('value').where('key', '=', ledgerIdKey).executeTakeFirst())?.value;
    const known = await read();
    if (known !== undefined) return known;
    await this.#database.db
      .insertInto('ledger_meta')
      .values({ key: ledgerIdKey, value: randomUUID() })
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute();
    return (await read()) as string;
  }

  /** The chain this ledger was written on, once bound. */
  async chain(): Promise<ChainIdentity | undefined> {
    const row = await this.#database.db.selectFrom('chain').select(['chain_id', 'genesis_hash']).where('id', '=', 1).executeTakeFirst();
    return row && { chainId: row.chain_id, genesisHash: row.genesis_hash };
  }

  async #bind(chain: ChainIdentity, now: number): Promise<void> {
    await this.#database.transaction(async (q) => {
      await this.#database.serialize(q, 'ledger-chain');
      const row = await q.selectFrom('chain').select(['chain_id', 'genesis_hash']).where('id', '=', 1).executeTakeFirst();
      const bound = row && { chainId: row.chain_id, genesisHash: row.genesis_hash };
      // A ledger from before binding is bound at its first open, unless its trades name another chain id.
      const other = bound ? undefined : await q.selectFrom('intents').select('chain_id').where('chain_id', '!=', chain.chainId).limit(1).executeTakeFirst();
      const mismatch = bound ? bound.chainId !== chain.chainId || bound.genesisHash.toLowerCase() !== chain.genesisHash.toLowerCase() : other !== undefined;
      if (mismatch) {
        const written = bound ? `chain ${bound.chainId} (genesis ${bound.genesisHash})` : `chain ${other?.chain_id}`;
        throw new LedgerChainMismatchError(
          `the ledger ${this.location} was written on ${written}, but the node is chain ${chain.chainId} (genesis ${chain.genesisHash}); its trades cannot be settled here: use another ROUTEKEEPER_DATA_DIR for this chain`,
        );
      }
      if (!bound) await q.insertInto('chain').values({ id: 1, chain_id: chain.chainId, genesis_hash: chain.genesisHash, bound_at: now }).execute();
    });
  }

  /**
   * Whether a live routekeeper process holds a ledger file's lock (read without taking it): a file someone
   * holds is never deleted or reused.
   */
  static isHeld(file: string, now = Date.now()): boolean {
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
    } catch {
      return false;
    }
    try {
      const held = db.prepare('SELECT pid, host, heartbeat FROM owner_lock WHERE id = 1').get() as { pid: number; host: string; heartbeat: number } | undefined;
      return held !== undefined && now - held.heartbeat < lockStaleAfterMs && processAlive(held.pid, held.host);
    } catch {
      // No lock table yet: a ledger being created right now by another process.
      return true;
    } finally {
      db.close();
    }
  }

  async #acquireLock(owner: string, now: () => number): Promise<void> {
    const database = this.#database;
    await database.transaction(async (q) => {
      await database.serialize(q, 'ledger-owner');
      const held = await q.selectFrom('owner_lock').selectAll().where('id', '=', 1).executeTakeFirst();
      if (held && held.owner !== owner && now() - held.heartbeat < lockStaleAfterMs && processAlive(held.pid, held.host)) {
        throw new LedgerLockedError(`the ledger is in use by another routekeeper process (pid ${held.pid} on ${held.host})`, {
          details: `its lock was refreshed ${Math.round((now() - held.heartbeat) / 1000)} s ago; it is taken over once it is ${lockStaleAfterMs / 1000} s old or that process is gone`,
        });
      }
      const row = { id: 1, owner, pid: process.pid, host: hostname(), heartbeat: now() };
      await q
        .insertInto('owner_lock')
        .values(row)
        .onConflict((conflict) => conflict.column('id').doUpdateSet({ owner, pid: row.pid, host: row.host, heartbeat: row.heartbeat }))
        .execute();
    });
    const heartbeat = setInterval(() => {
      // A beat that fails (the database away for a moment) is the next one's to make.
      void database.db
        .updateTable('owner_lock')
        .set({ heartbeat: now() })
        .where('id', '=', 1)
        .where('owner', '=', owner)
        .execute()
        .catch(() => {});
    }, heartbeatEveryMs);
    heartbeat.unref();
    this.#lock = { owner, heartbeat };
  }

  /** Releases the lock and closes the database; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#lock) {
      clearInterval(this.#lock.heartbeat);
      await this.#database.db.deleteFrom('owner_lock').where('owner', '=', this.#lock.owner).execute();
      this.#lock = undefined;
    }
    await this.#database.close();
  }
}

/** The latest schema version; a ledger opened for writing is brought to it. */
const latestVersion = migrations.length;

type Opened = { database: LedgerDatabase; sqlite?: SqliteHandle };

async function openDatabase(location: LedgerLocation, options: { readonly: boolean; mustExist?: boolean }): Promise<Opened> {
  if (location.kind === 'postgres') return { database: await openPostgres(location.url, { schema: location.schema, readonly: options.readonly }) };
  if (!options.readonly && !options.mustExist) {
    if (location.file !== ':memory:') mkdirSync(dirname(location.file), { recursive: true });
    const database = openSqlite(location.file);
    return { database, sqlite: database.raw };
  }
  try {
    const database = openSqlite(location.file, { readonly: options.readonly, fileMustExist: true });
    return { database, sqlite: database.raw };
  } catch (error) {
    throw new RoutekeeperError(`no ledger at ${location.file}`, { cause: error });
  }
}

/** The schema version of an opened ledger: SQLite counts its migrations in `user_version`; PostgreSQL is migrated at once. */
async function versionOf(opened: Opened): Promise<number> {
  return opened.sqlite ? (opened.sqlite.pragma('user_version', { simple: true }) as number) : latestVersion;
}

/** Brings the ledger up to the last migration, one transaction per step. */
async function migrate(opened: Opened): Promise<void> {
  const raw = opened.sqlite;
  if (!raw) return migratePostgres(opened.database);
  const version = raw.pragma('user_version', { simple: true }) as number;
  for (let next = version; next < migrations.length; next++) {
    raw.transaction(() => {
      raw.exec(migrations[next] as string);
      raw.pragma(`user_version = ${next + 1}`);
    })();
  }
}

/**
 * PostgreSQL's migrations (`schema-postgres.ts`), recorded in `ledger_migrations`; daemons starting together take
 * turns (a lock held for the migrating transaction only).
 */
async function migratePostgres(database: LedgerDatabase): Promise<void> {
  // A ledger already current is left alone: a role that may only read and write rows opens it (no DDL, no lock).
  if ((await postgresVersion(database.db)) === postgresMigrations.length) return;
  try {
    await applyPostgresMigrations(database);
  } catch (error) {
    if ((error as { code?: string }).code !== '42501') throw error;
    const at = await postgresVersion(database.db).catch(() => 0);
    throw new LedgerSchemaError(
      `the ledger's schema is at version ${at} of ${postgresMigrations.length}, and this database role may not change it: run \`routekeeper migrate\` with the schema's owner role`,
      { cause: error },
    );
  }
}

/** The PostgreSQL ledger's schema version (0: none yet), read without any privilege beyond reading rows. */
async function postgresVersion(db: LedgerDatabase['db']): Promise<number> {
  const { rows } = await sql<{ present: string | null }>`SELECT to_regclass('ledger_migrations')::TEXT AS present`.execute(db);
  if (!rows[0]?.present) return 0;
  const versions = await sql<{ version: number | null }>`SELECT MAX(version) AS version FROM ledger_migrations`.execute(db);
  return Number(versions.rows[0]?.version ?? 0);
}

/** A ledger schema this process may not bring up to date: the owner role must (`routekeeper migrate`). */
export class LedgerSchemaError extends ConfigError {
  override name = 'LedgerSchemaError';
}

async function applyPostgresMigrations(database: LedgerDatabase): Promise<void> {
  await database.transaction(async (q) => {
    // First the lock: two daemons creating the same table at once would both try (IF NOT EXISTS is not atomic).
    await database.serialize(q, 'ledger-migrations');
    await sql`CREATE TABLE IF NOT EXISTS ledger_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`.execute(q);
    const { rows } = await sql<{ version: number | null }>`SELECT MAX(version) AS version FROM ledger_migrations`.execute(q);
    for (let next = rows[0]?.version ?? 0; next < postgresMigrations.length; next++) {
      for (const statement of (postgresMigrations[next] as string)
        .split(/;\s*\n/)
        .map((text) => text.trim())
        .filter(Boolean))
        await sql.raw(statement).execute(q);
      await sql`INSERT INTO ledger_migrations (version, applied_at) VALUES (${next + 1}, ${Date.now()})`.execute(q);
    }
  });
}
