/** Every run of a strategy for a slot, whatever it did: started before it looks at anything, finished with its outcome. */
import type { Address } from 'viem';
import type { Selectable } from 'kysely';
import { scrub } from '../ops/secrets.ts';
import { type TradeState, maybeTradedStates } from '../model/trade.ts';
import { type LedgerDatabase, type Queries, existsAnswer } from './database.ts';
import { pausesFor } from './pauses.ts';
import type { RunOutcome, RunsTable } from './tables.ts';
import { onceRunSlotPattern, scheduledSlotTime } from '../model/trade-slot.ts';

/** One run of a strategy for one slot, as `history` shows it; `finishedAt` is missing when the process stopped mid-run. */
export type RunRecord = { id: number; strategyId: string; slot: string; startedAt: number; finishedAt?: number; outcome?: RunOutcome; note?: string };

/** The outcome of a run whose last trade reached `status`. */
export function runOutcomeOf(status: TradeState | 'skipped'): RunOutcome {
  switch (status) {
    case 'confirmed':
      return 'traded';
    case 'refused':
    case 'failed':
    case 'unknown':
    case 'anomaly':
    case 'dry-run':
    case 'skipped':
      return status;
    default:
      return 'interrupted';
  }
}

/**
 * What keeps a strategy's run from looking at anything, read with the run's start: a pause on the strategy or its
 * wallet (a person must lift it), or a trade of it whose outcome is not known yet (it may have traded).
 */
export type RunGate = { paused: boolean; waitingFor?: string };

/** The gate's two questions as subqueries: asked in the statement that starts a run, so a run costs one round trip. */
function gateQueries(db: Queries, strategyId: string, wallet: Address) {
  return {
    pauses: pausesFor(db, strategyId, wallet).select('key'),
    waiting: db
      .selectFrom('intents')
      .select('id')
      .where('strategy_id', '=', strategyId)
      .where('status', 'in', maybeTradedStates)
      .orderBy('created_at')
      .limit(1),
  };
}

const gateFrom = (row: { paused: unknown; waiting_for: string | null }): RunGate => ({
  paused: existsAnswer(row.paused),
  ...(row.waiting_for !== null && { waitingFor: row.waiting_for }),
});

export class RunStore {
  readonly #ledger: LedgerDatabase;
  /** False on a ledger from before runs were recorded, read by a reader that cannot migrate it: it has none. */
  readonly #present: boolean;

  constructor(ledger: LedgerDatabase, present: boolean) {
    this.#ledger = ledger;
    this.#present = present;
  }

  /**
   * Records that a run of a strategy of `wallet` started (before it looks at anything, so a run the process did not
   * finish still shows), and answers its gate in the same statement.
   */
  async start(strategyId: string, wallet: Address, slot: string, now = Date.now()): Promise<{ runId: number; gate: RunGate }> {
    const { pauses, waiting } = gateQueries(this.#ledger.db, strategyId, wallet);
    const row = await this.#ledger.db
      .insertInto('runs')
      .values({ strategy_id: strategyId, slot, started_at: now })
      .returning((eb) => ['id', eb.exists(pauses).as('paused'), waiting.as('waiting_for')])
      .executeTakeFirstOrThrow();
    return { runId: Number(row.id), gate: gateFrom(row) };
  }

  /** The gate of a strategy's run without starting one (a run outside the schedule, as tests make). */
  async gate(strategyId: string, wallet: Address): Promise<RunGate> {
    const { pauses, waiting } = gateQueries(this.#ledger.db, strategyId, wallet);
    return gateFrom(await this.#ledger.db.selectNoFrom((eb) => [eb.exists(pauses).as('paused'), waiting.as('waiting_for')]).executeTakeFirstOrThrow());
  }

  /** A slot that did not run (it could not start in time): a run that started and finished at once, `missed`, with why. */
  async missed(strategyId: string, slot: string, why: string, now = Date.now()): Promise<void> {
    await this.#ledger.db
      .insertInto('runs')
      .values({ strategy_id: strategyId, slot, started_at: now, finished_at: now, outcome: 'missed', note: scrub(why) })
      .execute();
  }

  async finish(id: number, outcome: RunOutcome, note: string, now = Date.now()): Promise<void> {
    await this.#ledger.db
      .updateTable('runs')
      .set({ finished_at: now, outcome, note: scrub(note) })
      .where('id', '=', id)
      .execute();
  }

  /**
   * The latest scheduled slot of each strategy whose run decided to trade nothing (a run cut short, failed or
   * missed decided nothing; one that traded shows in its trade): with the trades' slots, where a restart or a
   * daemon taking the strategy over picks up. Times in ms.
   */
  async lastSlots(strategyIds?: readonly string[]): Promise<Map<string, number>> {
    const last = new Map<string, number>();
    if (!this.#present || strategyIds?.length === 0) return last;
    let query = this.#ledger.db
      .selectFrom('runs')
      .select(['strategy_id', (eb) => eb.fn.max('slot').as('slot')])
      .where('outcome', 'in', ['nothing', 'paused', 'waiting'])
      .where('slot', 'not like', onceRunSlotPattern);
    if (strategyIds) query = query.where('strategy_id', 'in', strategyIds);
    const rows = await query.groupBy('strategy_id').execute();
    for (const row of rows) {
      const time = scheduledSlotTime(row.slot as string);
      if (time !== undefined) last.set(row.strategy_id, time);
    }
    return last;
  }

  /** Runs, newest first. */
  async list(options: { limit?: number; strategyId?: string } = {}): Promise<RunRecord[]> {
    if (!this.#present) return [];
    let query = this.#ledger.db.selectFrom('runs').selectAll();
    if (options.strategyId !== undefined) query = query.where('strategy_id', '=', options.strategyId);
    const rows = await query
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
    return rows.map(runFrom);
  }

  /** Up to `limit` runs started after `afterId`, oldest first. */
  async since(afterId: number, limit: number): Promise<RunRecord[]> {
    if (!this.#present) return [];
    const rows = await this.#ledger.db.selectFrom('runs').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
    return rows.map(runFrom);
  }

  /** These runs as they are now. */
  async byIds(runIds: readonly number[]): Promise<RunRecord[]> {
    if (!this.#present || runIds.length === 0) return [];
    const rows = await this.#ledger.db.selectFrom('runs').selectAll().where('id', 'in', runIds).orderBy('id').execute();
    return rows.map(runFrom);
  }

  /** The newest run of every strategy. */
  async latest(): Promise<Map<string, RunRecord>> {
    if (!this.#present) return new Map();
    const rows = await this.#ledger.db
      .selectFrom('runs')
      .selectAll()
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('runs')
          .select((inner) => inner.fn.max('id').as('id'))
          .groupBy('strategy_id'),
      )
      .execute();
    return new Map(rows.map((row) => [row.strategy_id, runFrom(row)]));
  }

  /** Which of these (strategy, slot) pairs have a recorded run, as `${strategyId}\n${slot}`. */
  async existing(pairs: readonly { strategyId: string; slot: string }[]): Promise<Set<string>> {
    if (!this.#present || pairs.length === 0) return new Set();
    const rows = await this.#ledger.db
      .selectFrom('runs')
      .select(['strategy_id', 'slot'])
      .where('strategy_id', 'in', [...new Set(pairs.map((pair) => pair.strategyId))])
      .where('slot', 'in', [...new Set(pairs.map((pair) => pair.slot))])
      .execute();
    return new Set(rows.map((row) => `${row.strategy_id}\n${row.slot}`));
  }

  /** How many runs each strategy had, by outcome (a run without one was interrupted). */
  async counts(): Promise<{ strategyId: string; outcome: RunOutcome; count: number }[]> {
    if (!this.#present) return [];
    const rows = await this.#ledger.db
      .selectFrom('runs')
      .select((eb) => ['strategy_id', eb.fn.coalesce('outcome', eb.val<RunOutcome>('interrupted')).as('outcome'), eb.fn.countAll<number>().as('count')])
      .groupBy(['strategy_id', 'outcome'])
      .execute();
    return rows.map((row) => ({ strategyId: row.strategy_id, outcome: row.outcome, count: Number(row.count) }));
  }

  /** The notes of a strategy's runs that failed before trading, newest first (accounting counts them by reason). */
  async failedBeforeTrading(): Promise<Map<string, string[]>> {
    if (!this.#present) return new Map();
    const rows = await this.#ledger.db
      .selectFrom('runs')
      .select(['strategy_id', 'note'])
      .where('outcome', '=', 'error')
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const notes = new Map<string, string[]>();
    for (const row of rows) {
      const list = notes.get(row.strategy_id) ?? [];
      list.push(row.note as string);
      notes.set(row.strategy_id, list);
    }
    return notes;
  }
}

function runFrom(row: Selectable<RunsTable>): RunRecord {
  return {
    id: Number(row.id),
    strategyId: row.strategy_id,
    slot: row.slot,
    startedAt: row.started_at,
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
    ...(row.outcome === null ? {} : { outcome: row.outcome }),
    ...(row.note === null ? {} : { note: row.note }),
  };
}
