/** Strategies and wallets that trade no more until a person lifts the pause (`routekeeper resume`). */
import type { Address } from 'viem';
import { scrub } from '../ops/secrets.ts';
import { RoutekeeperError } from '../errors.ts';
import type { LedgerDatabase, Queries } from './database.ts';

export type Pause = { scope: 'strategy' | 'wallet'; key: string; reason: string; intentId?: string; pausedAt: number };

/** A wallet's pause is keyed by its address in lower case; a strategy's by its id. */
const pauseKey = (scope: Pause['scope'], key: string) => (scope === 'wallet' ? key.toLowerCase() : key);

/** A trade could not be committed: its strategy or wallet was paused meanwhile. */
export class PausedError extends RoutekeeperError {
  override name = 'PausedError';
  readonly pause: Pause;

  constructor(pause: Pause) {
    super(`the ${pause.scope} ${pause.key} is paused (${pause.reason})`);
    this.pause = pause;
  }
}

/** The pause rows that stop a trade of this strategy from this wallet: a query, to run or to ask inside another. */
export function pausesFor(q: Queries, strategyId: string, wallet: Address) {
  return q
    .selectFrom('pauses')
    .where((eb) =>
      eb.or([eb.and([eb('scope', '=', 'strategy'), eb('key', '=', strategyId)]), eb.and([eb('scope', '=', 'wallet'), eb('key', '=', wallet.toLowerCase())])]),
    );
}

/** The pauses that stop a trade of this strategy from this wallet, oldest first. */
export async function pausesOf(q: Queries, strategyId: string, wallet: Address): Promise<Pause[]> {
  return (await pausesFor(q, strategyId, wallet).selectAll().orderBy('paused_at').execute()).map(pauseFrom);
}

export class PauseStore {
  readonly #ledger: LedgerDatabase;

  constructor(ledger: LedgerDatabase) {
    this.#ledger = ledger;
  }

  /** Pauses a strategy or a wallet (a wallet by its address); a pause already in place keeps its first reason. */
  async pause(pause: Omit<Pause, 'pausedAt'>, now = Date.now()): Promise<void> {
    await insertPause(this.#ledger.db, pause, now);
  }

  /** The pauses that stop a trade of this strategy from this wallet. */
  for(strategyId: string, wallet: Address): Promise<Pause[]> {
    return pausesOf(this.#ledger.db, strategyId, wallet);
  }

  async all(): Promise<Pause[]> {
    return (await this.#ledger.db.selectFrom('pauses').selectAll().orderBy('paused_at').execute()).map(pauseFrom);
  }

  /** Lifts a pause; false when there was none. */
  async lift(scope: Pause['scope'], key: string): Promise<boolean> {
    const deleted = await this.#ledger.db.deleteFrom('pauses').where('scope', '=', scope).where('key', '=', pauseKey(scope, key)).executeTakeFirst();
    return deleted.numDeletedRows === 1n;
  }
}

function pauseFrom(row: { scope: Pause['scope']; key: string; reason: string; intent_id: string | null; paused_at: number }): Pause {
  return { scope: row.scope, key: row.key, reason: row.reason, pausedAt: row.paused_at, ...(row.intent_id && { intentId: row.intent_id }) };
}

/** Pauses a strategy or a wallet with `q` (inside a database transaction of the caller's, or not); a pause already in place keeps its first reason. */
export async function insertPause(q: Queries, pause: Omit<Pause, 'pausedAt'>, now: number): Promise<void> {
  await q
    .insertInto('pauses')
    .values({ scope: pause.scope, key: pauseKey(pause.scope, pause.key), reason: scrub(pause.reason), intent_id: pause.intentId ?? null, paused_at: now })
    .onConflict((conflict) => conflict.columns(['scope', 'key']).doNothing())
    .execute();
}
