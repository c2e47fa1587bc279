/**
 * Trades and their signed transactions: one aggregate. Each method is a step of the trade's life (claim a slot,
 * commit a checked call, record signed bytes, settle…), made only from the states `transitions.ts` allows; an
 * update that finds the trade in another state throws IllegalTransitionError and changes nothing.
 */
import type { Address, Hex } from 'viem';
import { scrub } from '../ops/secrets.ts';
import { type CheckedCall, type Failure, openStates, type Settlement, type Trade, type TradeRecord, type TradeState } from '../model/trade.ts';
import { type LedgerDatabase, type Queries, existsAnswer } from './database.ts';
import { type IntentRow, attemptFrom, attemptRow, callColumns, claimedRow, failureColumns, recordFrom, settlementColumns, stored } from './rows.ts';
import type { Attempt, NewAttempt, Fence } from '../model/attempt.ts';
import type { IntentsTable } from './tables.ts';
import { requireLease } from './leases.ts';
import type { EventKind } from './event-kinds.ts';
import { insertEvent } from './events.ts';
import { PausedError, insertPause, pausesFor, pausesOf } from './pauses.ts';
import { IllegalTransitionError, statesBefore } from './transitions.ts';
import { onceRunSlotPattern, parseTradeSlot, scheduledSlotTime } from '../model/trade-slot.ts';

/**
 * A wallet's rows as the one reading of what it did takes them (trade/wallet-history.ts): every trade whose `wallet`
 * column names it on the chain, and every trade one of its transactions names, with all its transactions. Which of
 * them count, and for what, is not this query's to say: the reading proves each row by the wallet's tags.
 */
export type WalletRows = { trades: TradeRecord[]; attempts: Attempt[] };

type Columns = Partial<Omit<IntentsTable, 'id' | 'status'>>;

/** A pause a trade's failure causes (its wallet, when its key is used elsewhere), recorded with the failure. */
export type TradePause = { scope: 'strategy' | 'wallet'; key: string; reason: string };

export class TradeStore {
  readonly #ledger: LedgerDatabase;

  constructor(ledger: LedgerDatabase) {
    this.#ledger = ledger;
  }

  get #db(): Queries {
    return this.#ledger.db;
  }

  // ------------------------------------------------------------ moves

  /**
   * Claims the trade's slot (state `claimed`) for a run, and says in the same statement whether its strategy or
   * wallet is paused (then it must be refused before anything is asked). Undefined when the slot already has its
   * trade: it must not run again.
   */
  async claimSlot(
    trade: Trade,
    options: { runId?: number; now?: number; requestTag?: Hex } = {},
  ): Promise<{ record: TradeRecord; paused: boolean } | undefined> {
    const row = claimedRow(trade, options.runId, options.now ?? Date.now(), options.requestTag);
    const inserted = await this.#db
      .insertInto('intents')
      .values(row)
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returning((eb) => eb.exists(pausesFor(this.#db, trade.strategyId, trade.wallet).select('key')).as('paused'))
      .executeTakeFirst();
    return inserted && { record: recordFrom(row), paused: existsAnswer(inserted.paused) };
  }

  /**
   * Stores the call that passed every check and moves the trade to `checked` (or `dry-run`), which commits its
   * amount to budgets, unless its strategy or wallet was paused meanwhile (PausedError; the trade stays where it
   * was). `verify` (the budgets, when any apply) runs first in the same database transaction, with what is
   * committed so far: no other trade of the wallet can commit between its reading and this one's move. Without
   * `verify` the move is one statement.
   */
  async commitChecked(
    id: string,
    checked: { call: CheckedCall; callTag?: Hex; simulatedOut?: bigint; status: 'checked' | 'dry-run'; verify?: (rows: WalletRows) => Promise<void> },
    now = Date.now(),
  ): Promise<void> {
    const columns = {
      ...callColumns(checked.call, checked.callTag),
      ...(checked.simulatedOut !== undefined && { simulated_out: checked.simulatedOut.toString() }),
    };
    const { verify } = checked;
    if (!verify) return this.#move(this.#db, id, checked.status, columns, now, { unlessPaused: true });
    await this.#ledger.transaction(async (q) => {
      // Budgets are per strategy and per wallet, and a strategy trades from one wallet: commits of one wallet take turns.
      const trade = await q.selectFrom('intents').select(['wallet', 'chain_id']).where('id', '=', id).executeTakeFirst();
      if (trade) await this.#ledger.serialize(q, `budget:${trade.wallet}`);
      await verify(trade ? await walletRowsOf(q, trade.wallet as Address, trade.chain_id, this.#ledger.insertionOrder) : { trades: [], attempts: [] });
      await this.#move(q, id, checked.status, columns, now, { unlessPaused: true });
    });
  }

  /**
   * Stores signed transactions (status `signed`) before any is broadcast, and moves a checked trade to `signed`, in
   * one durable database transaction: a trade is never `signed` without its bytes, and the bytes are on disk before
   * they may leave. A trade already signed or sent gains attempts (its approval went first, or a replacement) and
   * keeps its state.
   */
  async recordSigned(attempts: readonly NewAttempt[], options: { fence?: Fence; now?: number } = {}): Promise<Attempt[]> {
    const { fence, now = Date.now() } = options;
    const intentId = attempts[0]?.intentId;
    if (intentId === undefined) return [];
    if (attempts.some((attempt) => attempt.intentId !== intentId)) throw new Error('recordSigned: the attempts belong to more than one trade');
    return this.#ledger.transaction(
      async (q) => {
        // A daemon that lost the wallet's lease records nothing: its bytes never leave.
        if (fence) await requireLease(this.#ledger, q, fence);
        const found = await statusOf(q, intentId);
        if (found === 'checked') await this.#move(q, intentId, 'signed', {}, now);
        else if (found !== 'signed' && found !== 'broadcast' && found !== 'unknown') throw new IllegalTransitionError(intentId, found, 'signed');
        const rows = await q
          .insertInto('attempts')
          .values(attempts.map((attempt) => attemptRow(attempt, now, fence)))
          .returningAll()
          .execute();
        return rows.map(attemptFrom);
      },
      { durable: true },
    );
  }

  /** Its bytes are about to leave: from here only the chain can settle it. With `fence`, only while the wallet's lease holds. */
  markBroadcast(id: string, options: { fence?: Fence; now?: number } = {}): Promise<void> {
    const { fence, now = Date.now() } = options;
    if (!fence) return this.#move(this.#db, id, 'broadcast', {}, now);
    return this.#ledger.transaction(async (q) => {
      await requireLease(this.#ledger, q, fence);
      await this.#move(q, id, 'broadcast', {}, now);
    });
  }

  /** The simulation of a trade checked again after its approval was mined (it stays `broadcast`). */
  recordSimulation(id: string, simulatedOut: bigint, now = Date.now()): Promise<void> {
    return this.#move(this.#db, id, 'broadcast', { simulated_out: simulatedOut.toString() }, now);
  }

  /** A guard said no. After signing only when nothing but an approval was signed. */
  refuse(id: string, failure: Failure, now = Date.now()): Promise<void> {
    return this.#ledger.transaction(async (q) => {
      await this.#requireNoTradeSigned(q, id, 'refused');
      await this.#move(q, id, 'refused', failureColumns(failure), now);
    });
  }

  /**
   * Ended without a trade: failed before signing, reverted, cancelled, or never taken by the node. Never while a
   * transaction of the trade may still be mined.
   */
  fail(id: string, failure: Failure, options: { settlement?: Settlement; pause?: TradePause; now?: number } = {}): Promise<void> {
    const { settlement, now = Date.now() } = options;
    return this.#ledger.transaction(async (q) => {
      await this.#requireNoneInFlight(q, id);
      await this.#move(q, id, 'failed', { ...failureColumns(failure), ...(settlement && settlementColumns(settlement)) }, now);
      if (options.pause) await insertPause(q, { ...options.pause, intentId: id }, now);
    });
  }

  /**
   * Signed and maybe mined, but the chain has not shown what happened: it counts as maybe traded until it does. With
   * `pause`, the pause it causes is recorded in the same database transaction.
   */
  markUnknown(id: string, failure: Failure, options: { pause?: TradePause; now?: number } = {}): Promise<void> {
    const { now = Date.now() } = options;
    if (!options.pause) return this.#move(this.#db, id, 'unknown', failureColumns(failure), now);
    const pause = options.pause;
    return this.#ledger.transaction(async (q) => {
      await this.#move(q, id, 'unknown', failureColumns(failure), now);
      await insertPause(q, { ...pause, intentId: id }, now);
    });
  }

  /** Mined, and the wallet received what the receipt's logs say (`confirmed`). */
  settle(id: string, settlement: Settlement, now = Date.now()): Promise<void> {
    return this.#move(this.#db, id, 'confirmed', { ...settlementColumns(settlement), ...failureColumns(null) }, now);
  }

  /**
   * What cannot be trusted about a trade (`anomaly`: its outcome, or a stored row that claims to authorize a
   * signature), with the event that says why and the pauses of its strategy and wallet, in one database transaction:
   * an anomaly never stands without its pauses, nor the pauses without it. `settlement`: what the chain showed, if
   * it was mined.
   */
  markAnomaly(
    trade: Pick<Trade, 'id' | 'strategyId' | 'wallet'>,
    anomaly: { reason: string; event: { kind: EventKind; details: unknown }; settlement?: Settlement },
    now = Date.now(),
  ): Promise<void> {
    return this.#ledger.transaction(async (q) => {
      await this.#move(
        q,
        trade.id,
        'anomaly',
        { ...(anomaly.settlement && settlementColumns(anomaly.settlement)), ...failureColumns(null), anomaly: scrub(anomaly.reason) },
        now,
      );
      await insertEvent(q, { ...anomaly.event, intentId: trade.id }, now);
      const pause = `anomaly in trade ${trade.id}: ${anomaly.reason}`;
      await insertPause(q, { scope: 'strategy', key: trade.strategyId, reason: pause, intentId: trade.id }, now);
      await insertPause(q, { scope: 'wallet', key: trade.wallet, reason: pause, intentId: trade.id }, now);
    });
  }

  /** A run stopped in the middle: the trade keeps its state (resumed at the next start) and says why it stopped. */
  async noteInterruption(id: string, failure: Failure, now = Date.now()): Promise<void> {
    const open = openStates.filter((state) => state !== 'unknown');
    const updated = await this.#db
      .updateTable('intents')
      .set({ ...failureColumns(failure), updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', open)
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) {
      const found = await statusOf(this.#db, id);
      throw new IllegalTransitionError(id, found, found ?? 'claimed', `an interruption is noted only on an open trade${found ? `, and it is ${found}` : ''}`);
    }
  }

  /**
   * Moves the trade to `to` from a state the table allows. `unlessPaused`: only while no pause stops its strategy or
   * wallet (read in the same statement, from the trade's own row); PausedError when one does.
   */
  async #move(q: Queries, id: string, to: TradeState, columns: Columns, now: number, options: { unlessPaused?: boolean } = {}): Promise<void> {
    let update = q
      .updateTable('intents')
      .set({ ...columns, status: to, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', statesBefore(to));
    if (options.unlessPaused) {
      update = update.where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('pauses')
              .select('pauses.key')
              .where((p) =>
                p.or([
                  p.and([p('pauses.scope', '=', 'strategy'), p('pauses.key', '=', p.ref('intents.strategy_id'))]),
                  p.and([p('pauses.scope', '=', 'wallet'), p('pauses.key', '=', p.ref('intents.wallet'))]),
                ]),
              ),
          ),
        ),
      );
    }
    const updated = await update.executeTakeFirst();
    if (updated.numUpdatedRows === 1n) return;
    const trade = await q.selectFrom('intents').select(['status', 'strategy_id', 'wallet']).where('id', '=', id).executeTakeFirst();
    const movable = trade !== undefined && statesBefore(to).includes(trade.status);
    const pause = options.unlessPaused && movable ? (await pausesOf(q, trade.strategy_id, trade.wallet as Address))[0] : undefined;
    if (pause) throw new PausedError(pause);
    throw new IllegalTransitionError(id, trade?.status, to);
  }

  async #requireNoTradeSigned(q: Queries, id: string, to: TradeState): Promise<void> {
    const signed = await q.selectFrom('attempts').select('id').where('intent_id', '=', id).where('purpose', '!=', 'approve').limit(1).executeTakeFirst();
    if (signed) throw new IllegalTransitionError(id, await statusOf(q, id), to, 'its trade transaction is signed; only the chain can settle it');
  }

  async #requireNoneInFlight(q: Queries, id: string): Promise<void> {
    const open = await q
      .selectFrom('attempts')
      .select('hash')
      .where('intent_id', '=', id)
      .where('purpose', '!=', 'approve')
      .where('status', 'in', ['signed', 'broadcast'])
      .limit(1)
      .executeTakeFirst();
    if (open) throw new IllegalTransitionError(id, await statusOf(q, id), 'failed', `its transaction ${open.hash} may still be mined`);
  }

  // ------------------------------------------------------------ reads

  async get(id: string): Promise<TradeRecord | undefined> {
    const row = await this.#db.selectFrom('intents').selectAll().where('id', '=', id).executeTakeFirst();
    return row && recordFrom(row);
  }

  /** The trades of these ids that the ledger has. */
  byIds(ids: readonly string[]): Promise<TradeRecord[]> {
    return recordsByIds(this.#db, ids);
  }

  /**
   * Trades whose fate is not settled: they are resumed (or settled with the chain) before anything new runs.
   * `states`: only those open states.
   */
  async unfinished(filter: { wallet?: Address; chainId?: number; states?: readonly TradeState[] } = {}): Promise<TradeRecord[]> {
    let query = this.#db
      .selectFrom('intents')
      .selectAll()
      .where('status', 'in', filter.states ?? openStates);
    if (filter.wallet) query = query.where('wallet', '=', stored(filter.wallet));
    if (filter.chainId !== undefined) query = query.where('chain_id', '=', filter.chainId);
    return rowsToRecords(await query.orderBy('created_at').orderBy(this.#ledger.insertionOrder).execute());
  }

  /** The wallet's rows on the chain, for the one reading of what it did (see WalletRows). */
  walletRows(wallet: Address, chainId: number): Promise<WalletRows> {
    return walletRowsOf(this.#db, wallet, chainId, this.#ledger.insertionOrder);
  }

  /** A strategy's trades in one of these states, oldest first. */
  async ofStrategy(strategyId: string, states?: readonly TradeState[]): Promise<TradeRecord[]> {
    let query = this.#db.selectFrom('intents').selectAll().where('strategy_id', '=', strategyId);
    if (states) query = query.where('status', 'in', states);
    return rowsToRecords(await query.orderBy('created_at').orderBy(this.#ledger.insertionOrder).execute());
  }

  /**
   * Trades changed at or after `since` (ms), in the order they changed, `limit` at a time: `after` is the last one
   * of the previous page. What a status keeps up to date reads this instead of every trade.
   */
  async changedSince(since: number, limit: number, after?: { updatedAt: number; id: string }): Promise<TradeRecord[]> {
    let query = this.#db.selectFrom('intents').selectAll();
    // A row comparison, so the (updated_at, id) index serves every page without sorting the rest.
    query = after ? query.where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.updatedAt, after.id))) : query.where('updated_at', '>=', since);
    return rowsToRecords(await query.orderBy('updated_at').orderBy('id').limit(limit).execute());
  }

  /** Newest first. */
  async history(options: { limit?: number; strategyId?: string } = {}): Promise<TradeRecord[]> {
    let query = this.#db.selectFrom('intents').selectAll();
    if (options.strategyId !== undefined) query = query.where('strategy_id', '=', options.strategyId);
    return rowsToRecords(
      await query
        .orderBy('created_at', 'desc')
        .orderBy(this.#ledger.insertionOrder, 'desc')
        .limit(options.limit ?? 100)
        .execute(),
    );
  }

  /** Every trade, oldest first (accounting reads them all). */
  async all(strategyId?: string): Promise<TradeRecord[]> {
    let query = this.#db.selectFrom('intents').selectAll();
    if (strategyId !== undefined) query = query.where('strategy_id', '=', strategyId);
    return rowsToRecords(await query.orderBy('created_at').orderBy(this.#ledger.insertionOrder).execute());
  }

  /**
   * The trades of runs, by run id. A trade from before trades named their run belongs to its strategy's run whose
   * slot its own slot extends (`<slot>#<key>`).
   */
  async ofRuns(runs: readonly { id: number; strategyId: string; slot: string }[]): Promise<Map<number, TradeRecord[]>> {
    const byRun = new Map<number, TradeRecord[]>(runs.map((run) => [run.id, []]));
    if (runs.length === 0) return byRun;
    const rows = await this.#db
      .selectFrom('intents')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb(
            'run_id',
            'in',
            runs.map((run) => run.id),
          ),
          eb.and([eb('run_id', 'is', null), eb('strategy_id', 'in', [...new Set(runs.map((run) => run.strategyId))])]),
        ]),
      )
      .orderBy('created_at')
      .orderBy(this.#ledger.insertionOrder)
      .execute();
    for (const row of rows) {
      const run =
        row.run_id !== null
          ? runs.find((r) => r.id === row.run_id)
          : runs.find((r) => r.strategyId === row.strategy_id && parseTradeSlot(row.slot).runSlot === r.slot);
      if (run) byRun.get(run.id)?.push(recordFrom(row));
    }
    return byRun;
  }

  /**
   * The time of the newest scheduled slot each strategy (of `strategyIds`, else every one) traded in: `once` runs
   * (model/trade-slot.ts) are not on a schedule.
   */
  async lastScheduledSlots(strategyIds?: readonly string[]): Promise<Map<string, number>> {
    if (strategyIds?.length === 0) return new Map();
    let query = this.#db
      .selectFrom('intents')
      .select(['strategy_id', (eb) => eb.fn.max('slot').as('slot')])
      .where('slot', 'not like', onceRunSlotPattern);
    if (strategyIds) query = query.where('strategy_id', 'in', strategyIds);
    const rows = await query.groupBy('strategy_id').execute();
    const last = new Map<string, number>();
    for (const row of rows) {
      const time = scheduledSlotTime(parseTradeSlot(row.slot as string).runSlot);
      if (time !== undefined) last.set(row.strategy_id, time);
    }
    return last;
  }
}

async function statusOf(q: Queries, id: string): Promise<TradeState | undefined> {
  return (await q.selectFrom('intents').select('status').where('id', '=', id).executeTakeFirst())?.status;
}

/** See WalletRows: the trades oldest first, the transactions by nonce, then as signed. */
async function walletRowsOf(q: Queries, wallet: Address, chainId: number, insertionOrder: LedgerDatabase['insertionOrder']): Promise<WalletRows> {
  const attemptRows = await q
    .selectFrom('attempts')
    .selectAll()
    .where('wallet', '=', stored(wallet))
    .where('chain_id', '=', chainId)
    .orderBy('nonce')
    .orderBy('id')
    .execute();
  const signedIds = [...new Set(attemptRows.map((row) => row.intent_id))];
  const named = (
    await q
      .selectFrom('intents')
      .selectAll()
      .where('wallet', '=', stored(wallet))
      .where('chain_id', '=', chainId)
      .orderBy('created_at')
      .orderBy(insertionOrder)
      .execute()
  ).map(recordFrom);
  const known = new Set(named.map((trade) => trade.id));
  const others = await recordsByIds(
    q,
    signedIds.filter((id) => !known.has(id)),
  );
  // Oldest first; of one time, as inserted (the sort is stable).
  const trades = [...named, ...others].sort((a, b) => a.createdAt - b.createdAt);
  return { trades, attempts: attemptRows.map(attemptFrom) };
}

const rowsToRecords = (rows: IntentRow[]) => rows.map(recordFrom);

/** The trades of these ids that the ledger has, read 500 ids at a time. */
async function recordsByIds(q: Queries, ids: readonly string[]): Promise<TradeRecord[]> {
  const records: TradeRecord[] = [];
  for (let start = 0; start < ids.length; start += 500) {
    records.push(
      ...rowsToRecords(
        await q
          .selectFrom('intents')
          .selectAll()
          .where('id', 'in', ids.slice(start, start + 500))
          .execute(),
      ),
    );
  }
  return records;
}
