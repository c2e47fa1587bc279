/**
 * The ledger: every trade (one per strategy slot and key) and every transaction attempt, durable before and after
 * each side effect. The signed bytes of a transaction are committed before it is broadcast, so after a crash the
 * same bytes can be sent again, or their outcome adopted, and nothing is ever signed twice for a slot.
 *
 * A ledger is a set of stores, one per aggregate (trades, attempts, runs, pauses, marks, strategies, events), over
 * one database. One process owns a ledger file at a time; a lock whose owner died (or stopped beating) is taken over.
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Hex } from 'viem';
import { ConfigError } from '../config/errors.ts';
import { RoutekeeperError } from '../errors.ts';
import { AttemptStore } from './attempts.ts';
import { type LedgerDatabase, type SqliteHandle, openSqlite } from './database.ts';
import { EventStore } from './events.ts';
import { MarkStore } from './marks.ts';
import { PauseStore } from './pauses.ts';
import { RunStore } from './runs.ts';
import { migrations } from './schema.ts';
import { StrategyStore } from './strategies.ts';
import { TradeStore } from './trades.ts';

export type { Attempt, NewAttempt } from './rows.ts';
export type { AttemptPurpose, AttemptStatus, RunOutcome } from './tables.ts';
export type { Pause } from './pauses.ts';
export type { RunRecord } from './runs.ts';
export { runOutcomeOf } from './runs.ts';
export type { BalanceMark, PriceMark, TokenName } from './marks.ts';
export type { StrategyDescription, StrategyRecord } from './strategies.ts';

export class LedgerLockedError extends RoutekeeperError {
  override name = 'LedgerLockedError';
}

/** Which chain a ledger describes: its id, and the hash of its block 0 (two chains may share an id). */
export type ChainIdentity = { chainId: number; genesisHash: Hex };

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

export class Ledger {
  readonly trades: TradeStore;
  readonly attempts: AttemptStore;
  readonly runs: RunStore;
  readonly pauses: PauseStore;
  readonly marks: MarkStore;
  readonly strategies: StrategyStore;
  readonly events: EventStore;
  readonly #database: LedgerDatabase;
  readonly #raw: SqliteHandle;
  #lock: { owner: string; heartbeat: NodeJS.Timeout } | undefined;

  private constructor(database: LedgerDatabase & { raw: SqliteHandle }) {
    this.#database = database;
    this.#raw = database.raw;
    const version = database.raw.pragma('user_version', { simple: true }) as number;
    this.trades = new TradeStore(database);
    this.attempts = new AttemptStore(database);
    this.runs = new RunStore(database, version >= runsFrom);
    this.pauses = new PauseStore(database);
    this.marks = new MarkStore(database, { marks: version >= marksFrom, names: version >= runsFrom });
    this.strategies = new StrategyStore(database, version >= marksFrom);
    this.events = new EventStore(database);
  }

  /**
   * Opens (creating if needed) the ledger file and takes its lock; LedgerLockedError if a live process holds it.
   * With `chain`, the ledger is bound to that chain at its first open and refuses any other afterwards
   * (LedgerChainMismatchError), before the lock is taken.
   */
  static async open(file: string, options: { owner?: string; now?: () => number; chain?: ChainIdentity } = {}): Promise<Ledger> {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const database = openSqlite(file);
    try {
      migrate(database.raw);
      const ledger = new Ledger(database);
      if (options.chain) await ledger.#bind(file, options.chain, (options.now ?? Date.now)());
      ledger.#acquireLock(options.owner ?? `${hostname()}:${process.pid}:${Date.now()}`, options.now ?? Date.now);
      return ledger;
    } catch (error) {
      database.raw.close();
      throw error;
    }
  }

  /** Opens an existing ledger for reading only (`history`, `status`): no lock taken, nothing written. */
  static async openReadOnly(file: string): Promise<Ledger> {
    return new Ledger(openExisting(file, { readonly: true }));
  }

  /**
   * Opens an existing ledger to change its pauses (`pause`, `resume`) while a daemon may hold it: no lock is taken;
   * the database serializes the one write, and the daemon reads pauses afresh before every run.
   */
  static async openForPauses(file: string): Promise<Ledger> {
    const database = openExisting(file, { readonly: false });
    try {
      migrate(database.raw);
    } catch (error) {
      database.raw.close();
      throw error;
    }
    return new Ledger(database);
  }

  /** The chain this ledger was written on, once bound. */
  async chain(): Promise<ChainIdentity | undefined> {
    const row = await this.#database.db.selectFrom('chain').select(['chain_id', 'genesis_hash']).where('id', '=', 1).executeTakeFirst();
    return row && { chainId: row.chain_id, genesisHash: row.genesis_hash };
  }

  async #bind(file: string, chain: ChainIdentity, now: number): Promise<void> {
    await this.#database.transaction(async (q) => {
      const row = await q.selectFrom('chain').select(['chain_id', 'genesis_hash']).where('id', '=', 1).executeTakeFirst();
      const bound = row && { chainId: row.chain_id, genesisHash: row.genesis_hash };
      // A ledger from before binding is bound at its first open, unless its trades name another chain id.
      const other = bound ? undefined : await q.selectFrom('intents').select('chain_id').where('chain_id', '!=', chain.chainId).limit(1).executeTakeFirst();
      const mismatch = bound ? bound.chainId !== chain.chainId || bound.genesisHash.toLowerCase() !== chain.genesisHash.toLowerCase() : other !== undefined;
      if (mismatch) {
        const written = bound ? `chain ${bound.chainId} (genesis ${bound.genesisHash})` : `chain ${other?.chain_id}`;
        throw new LedgerChainMismatchError(
          `the ledger ${file} was written on ${written}, but the node is chain ${chain.chainId} (genesis ${chain.genesisHash}); its trades cannot be settled here: use another ROUTEKEEPER_DATA_DIR for this chain`,
        );
      }
      if (!bound) await q.insertInto('chain').values({ id: 1, chain_id: chain.chainId, genesis_hash: chain.genesisHash, bound_at: now }).execute();
    });
  }

  /**
   * Whether a live routekeeper process holds the ledger file's lock (read without taking it): a file someone
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
      return held !== undefined && now - held.heartbeat < lockStaleAfterMs && ownerAlive(held.pid, held.host);
    } catch {
      // No lock table yet: a ledger being created right now by another process.
      return true;
    } finally {
      db.close();
    }
  }

  #acquireLock(owner: string, now: () => number): void {
    const raw = this.#raw;
    raw
      .transaction(() => {
        const held = raw.prepare('SELECT owner, pid, host, heartbeat FROM owner_lock WHERE id = 1').get() as { owner: string; pid: number; host: string; heartbeat: number } | undefined;
        if (held && held.owner !== owner && now() - held.heartbeat < lockStaleAfterMs && ownerAlive(held.pid, held.host)) {
          throw new LedgerLockedError(`the ledger is in use by another routekeeper process (pid ${held.pid} on ${held.host})`, {
            details: `its lock was refreshed ${Math.round((now() - held.heartbeat) / 1000)} s ago; it is taken over once it is ${lockStaleAfterMs / 1000} s old or that process is gone`,
          });
        }
        raw
          .prepare(
            'INSERT INTO owner_lock (id, owner, pid, host, heartbeat) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, heartbeat = excluded.heartbeat',
          )
          .run(owner, process.pid, hostname(), now());
      })
      .immediate();
    const beat = raw.prepare('UPDATE owner_lock SET heartbeat = ? WHERE id = 1 AND owner = ?');
    const heartbeat = setInterval(() => beat.run(now(), owner), heartbeatEveryMs);
    heartbeat.unref();
    this.#lock = { owner, heartbeat };
  }

  /** Releases the lock and closes the database; closing twice is harmless. */
  async close(): Promise<void> {
    if (!this.#raw.open) return;
    if (this.#lock) {
      clearInterval(this.#lock.heartbeat);
      this.#raw.prepare('DELETE FROM owner_lock WHERE owner = ?').run(this.#lock.owner);
      this.#lock = undefined;
    }
    await this.#database.close();
  }
}

function openExisting(file: string, options: { readonly: boolean }) {
  try {
    return openSqlite(file, { ...options, fileMustExist: true });
  } catch (error) {
    throw new RoutekeeperError(`no ledger at ${file}`, { cause: error });
  }
}

/** Brings the file up to the last migration, one transaction per step. */
function migrate(raw: SqliteHandle): void {
  const version = raw.pragma('user_version', { simple: true }) as number;
  for (let next = version; next < migrations.length; next++) {
    raw.transaction(() => {
      raw.exec(migrations[next] as string);
      raw.pragma(`user_version = ${next + 1}`);
    })();
  }
}

/** Whether the lock's process still runs; on another host we cannot tell, so the heartbeat decides. */
function ownerAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
