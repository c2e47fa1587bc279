/**
 * When strategies run. Each run belongs to a slot: a time on the strategy's schedule (every N, aligned to
 * the clock, or a cron expression). The slot names the run, so a slot trades at most once (see the ledger).
 *
 * - Many strategies on one interval do not all start in the same millisecond: each starts at its slot plus an
 *   offset within the schedule's `spreadMs`, fixed by its id (the same every slot, on every start-up).
 * - A slot that cannot start within `latenessMs` of its planned start (the daemon busy with other runs, the
 *   strategy's previous run still going) is not run late: it is reported missed, with the reason.
 * - After downtime, `catchUp: once` runs the latest missed slot once, right away; `skip` waits for the next and
 *   reports the one it skipped. Never a burst of missed slots. A strategy that never ran waits for its next slot,
 *   unless `firstRun: now`.
 * - Runs of one wallet may overlap: the wallet orders what must be ordered (nonces, signing, sending).
 *   At most `maxConcurrency` runs are in progress.
 * - `stop()` starts no new run and waits (up to a bound) for the runs in progress, which the shutdown signal
 *   interrupts at their next step.
 */
import PQueue from 'p-queue';
import { latestSlot, nextSlot, plannedStart, slotName } from '../strategy/slots.ts';
import type { Strategy } from '../strategy/types.ts';

export type SchedulerDeps = {
  strategies: readonly Strategy[];
  run(strategy: Strategy, slot: string): Promise<void>;
  /** The time (ms) of the latest slot this strategy ever ran, from the ledger. */
  lastSlot(strategyId: string): number | undefined;
  maxConcurrency: number;
  now?: () => number;
  random?: () => number;
  /** Told about a slot that did not run, and why. */
  onMissed?(strategy: Strategy, slot: string, why: string): void;
  /** Told about a run that threw (run() reports its own failures; this is for what escaped it). */
  onError?(strategy: Strategy, slot: string, error: unknown): void;
  /**
   * Whether this daemon runs the strategy now (it holds its wallet). Another daemon runs the others' slots; one
   * whose wallet comes to this daemon later is caught up with `adopt`. Absent: every strategy is this daemon's.
   */
  holds?(strategy: Strategy): boolean;
  /**
   * The slot (ms) whose order the strategy was working in slices when the daemon stopped, if that order may still go
   * on (engine/worked-order.ts): run again at start while it is the strategy's latest slot, for the remainder only.
   */
  workingSlot?(strategyId: string): number | undefined;
};

export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #now: () => number;
  readonly #queue: PQueue;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  #stopping = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#queue = new PQueue({ concurrency: deps.maxConcurrency });
  }

  start(): void {
    for (const strategy of this.#deps.strategies) {
      if (this.#holds(strategy)) {
        this.#catchUp(strategy, this.#deps.lastSlot(strategy.id), 'missed while stopped');
        this.#goOnWorking(strategy);
      }
      this.#scheduleNext(strategy, this.#now());
    }
  }

  /**
   * Strategies whose wallet this daemon has just taken (from a daemon that stopped, died or handed it over): the
   * slots that passed since their last run follow `catchUp`, as after a restart.
   */
  adopt(strategies: readonly Strategy[], lastSlot: (strategyId: string) => number | undefined): void {
    for (const strategy of strategies) this.#catchUp(strategy, lastSlot(strategy.id), 'missed while no daemon held its wallet');
  }

  /** `catchUp: once` runs the latest slot missed since `last` now; `skip` reports it missed, with `why`. */
  #catchUp(strategy: Strategy, last: number | undefined, why: string): void {
    const now = this.#now();
    const due = latestSlot(strategy, now);
    // A fresh strategy's current slot is not "missed" unless it asked to start now (`firstRun: now`).
    const fresh = last === undefined;
    const missed = due !== undefined && (fresh ? strategy.schedule.firstRun === 'now' : last < due);
    if (missed && strategy.schedule.catchUp === 'once') this.#fire(strategy, due, now);
    else if (missed) this.#deps.onMissed?.(strategy, slotName(due), `${why} (catchUp: skip)`);
  }

  /** An order left in slices goes on with its remainder while its slot is the latest (a slot that ran is not "missed"). */
  #goOnWorking(strategy: Strategy): void {
    const now = this.#now();
    const working = this.#deps.workingSlot?.(strategy.id);
    if (working !== undefined && working === latestSlot(strategy, now) && working === this.#deps.lastSlot(strategy.id)) this.#fire(strategy, working, now);
  }

  #holds(strategy: Strategy): boolean {
    return this.#deps.holds?.(strategy) ?? true;
  }

  /** Starts no new run; waits up to `timeoutMs` for runs in progress. Resolves with the runs still going. */
  async stop(timeoutMs = 30_000): Promise<string[]> {
    this.#stopping = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const settled = Promise.allSettled([...this.#inFlight]).then(() => 'done' as const);
    const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
    await Promise.race([settled, timedOut]);
    return [...this.#running];
  }

  #scheduleNext(strategy: Strategy, after: number): void {
    if (this.#stopping) return;
    const next = nextSlot(strategy, after);
    if (next === undefined) return;
    this.#wakeAt(plannedStart(strategy, next), () => {
      this.#fire(strategy, next, plannedStart(strategy, next));
      this.#scheduleNext(strategy, next);
    });
  }

  /**
   * Calls `then` at `time`. Node fires a timer longer than 2³¹−1 ms (about 24.8 days) at once, so a slot further
   * away (a `start` months ahead, a yearly cron) is waited for in steps.
   */
  #wakeAt(time: number, then: () => void): void {
    const wait = Math.max(0, time - this.#now());
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        if (wait > maxTimerMs) this.#wakeAt(time, then);
        else then();
      },
      Math.min(wait, maxTimerMs),
    );
    this.#timers.add(timer);
  }

  /** Runs the slot from `startAt` on (its planned start, or now for a catch-up), unless it cannot start in time. */
  #fire(strategy: Strategy, slotTime: number, startAt: number): void {
    const slot = slotName(slotTime);
    if (this.#stopping || !this.#holds(strategy)) return;
    if (this.#running.has(strategy.id)) {
      this.#deps.onMissed?.(strategy, slot, 'the previous run of this strategy was still going');
      return;
    }
    this.#running.add(strategy.id);
    const { jitterMs, latenessMs } = strategy.schedule;
    const jitter = jitterMs > 0 ? Math.floor((this.#deps.random ?? Math.random)() * jitterMs) : 0;
    const latestStart = startAt + jitter + (latenessMs ?? Number.POSITIVE_INFINITY);
    const run = (async () => {
      if (jitter > 0) await new Promise((resolve) => setTimeout(resolve, jitter));
      await this.#queue.add(async () => {
        if (this.#stopping || !this.#holds(strategy)) return;
        const late = this.#now() - latestStart;
        if (late > 0) {
          this.#deps.onMissed?.(
            strategy,
            slot,
            `could not start within ${latenessMs} ms of its planned start (${late} ms later; ${this.#queue.pending} runs in progress, ${this.#queue.size} waiting, maxConcurrency ${this.#deps.maxConcurrency})`,
          );
          return;
        }
        await this.#deps.run(strategy, slot);
      });
    })()
      // The schedule goes on; what escaped run() is told, never swallowed.
      .catch((error: unknown) => this.#deps.onError?.(strategy, slot, error))
      .finally(() => {
        this.#running.delete(strategy.id);
        this.#inFlight.delete(run);
      });
    this.#inFlight.add(run);
  }
}

/** The longest delay a Node timer honours. */
const maxTimerMs = 2 ** 31 - 1;
