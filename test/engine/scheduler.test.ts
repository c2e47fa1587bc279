/**
 * The scheduler's slots and its timing. Time is vitest's fake clock (timers and Date): a test moves it by exactly
 * what it asserts about, so a busy machine changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Scheduler } from '../../src/engine/scheduler.ts';
import { latestSlot, nextSlot, plannedStart } from '../../src/strategy/slots.ts';
import type { Strategy } from '../../src/strategy/types.ts';

const strategy = (id: string, schedule: Partial<Strategy['schedule']>, wallet = 'main'): Strategy =>
  ({ id, wallet, kind: 'dca', slippageBps: 30, schedule: { jitterMs: 0, catchUp: 'once', firstRun: 'now', ...schedule } }) as Strategy;
const at = (iso: string) => Date.parse(iso);
/** A run's own duration: the time these tests schedule around (a stimulus on purpose, not a wait for anything). */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Moves the fake clock on by `ms`, running every timer due meanwhile and what it starts. */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);
/** Stops the scheduler while the fake clock moves on `ms` (its runs in progress finish meanwhile). */
async function stopWithin(scheduler: Scheduler, ms: number): Promise<string[]> {
  const stopped = scheduler.stop();
  await elapse(ms);
  return stopped;
}

describe('slots', () => {
  it('align intervals to the clock and follow cron in UTC, within the window', () => {
    const every = strategy('a', { everyMs: 30_000 });
    expect(new Date(latestSlot(every, at('2026-11-20T10:00:07Z')) as number).toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(new Date(nextSlot(every, at('2026-11-20T10:00:07Z')) as number).toISOString()).toBe('2026-11-20T10:00:30.000Z');
    const cron = strategy('b', { cron: '*/5 * * * *' });
    expect(new Date(latestSlot(cron, at('2026-11-20T10:07:00Z')) as number).toISOString()).toBe('2026-11-20T10:05:00.000Z');
    expect(new Date(nextSlot(cron, at('2026-11-20T10:07:00Z')) as number).toISOString()).toBe('2026-11-20T10:10:00.000Z');
    const windowed = strategy('c', { everyMs: 60_000, startMs: at('2026-11-21T00:00:00Z'), endMs: at('2026-11-22T00:00:00Z') });
    expect(latestSlot(windowed, at('2026-11-20T10:00:00Z'))).toBeUndefined();
    expect(new Date(nextSlot(windowed, at('2026-11-20T10:00:00Z')) as number).toISOString()).toBe('2026-11-21T00:00:00.000Z');
    expect(nextSlot(windowed, at('2026-11-22T00:00:00Z'))).toBeUndefined();
  });
});

describe('scheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: at('2026-11-20T09:59:59.500Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits for a slot further away than a Node timer can wait (about 24.8 days) instead of firing at once, and runs it then', async () => {
    const runs: string[] = [];
    const start = at('2026-12-30T10:00:00Z');
    const scheduler = new Scheduler({
      strategies: [strategy('later', { everyMs: 1_000, startMs: start })],
      run: async (s, slot) => void runs.push(`${s.id}@${slot}`),
      lastSlot: () => undefined,
      maxConcurrency: 4,
    });
    scheduler.start();
    await elapse(100);
    expect(runs).toEqual([]);
    // Forty days on, half a second past its start: its first slot, once.
    await elapse(start + 500 - Date.now());
    await scheduler.stop();
    expect(runs).toEqual(['later@2026-12-30T10:00:00.000Z']);
  });

  it('after downtime runs the latest missed slot once (catchUp: once), never a burst', async () => {
    const runs: string[] = [];
    const scheduler = new Scheduler({
      strategies: [strategy('hourly', { everyMs: 3_600_000 })],
      run: async (s, slot) => void runs.push(`${s.id}@${slot}`),
      lastSlot: () => at('2026-11-20T07:00:00Z'),
      maxConcurrency: 4,
      now: () => at('2026-11-20T10:30:00Z'),
    });
    scheduler.start();
    await scheduler.stop();
    expect(runs).toEqual(['hourly@2026-11-20T10:00:00.000Z']);
  });

  it('with catchUp: skip, waits for the next slot and says so', async () => {
    const runs: string[] = [];
    const skipped: string[] = [];
    const scheduler = new Scheduler({
      strategies: [strategy('hourly', { everyMs: 3_600_000, catchUp: 'skip' })],
      run: async (_s, slot) => void runs.push(slot),
      lastSlot: () => undefined,
      maxConcurrency: 4,
      now: () => at('2026-11-20T10:30:00Z'),
      onMissed: (_s, slot, why) => skipped.push(`${slot}: ${why}`),
    });
    scheduler.start();
    await scheduler.stop();
    expect(runs).toEqual([]);
    expect(skipped).toEqual(['2026-11-20T10:00:00.000Z: missed while stopped (catchUp: skip)']);
  });

  it('on a fresh ledger, firstRun: slot waits for the next slot and firstRun: now runs the current one', async () => {
    const runs: string[] = [];
    let now = at('2026-11-20T10:59:59.950Z');
    const scheduler = new Scheduler({
      strategies: [strategy('waits', { everyMs: 3_600_000, firstRun: 'slot' }), strategy('starts', { everyMs: 3_600_000, firstRun: 'now' })],
      run: async (s, slot) => void runs.push(`${s.id}@${slot}`),
      lastSlot: () => undefined,
      maxConcurrency: 4,
      now: () => now,
    });
    scheduler.start();
    await elapse(10);
    expect(runs).toEqual(['starts@2026-11-20T10:00:00.000Z']);
    now = at('2026-11-20T11:00:00Z');
    await elapse(50);
    await scheduler.stop();
    expect(runs.sort()).toEqual(['starts@2026-11-20T10:00:00.000Z', 'starts@2026-11-20T11:00:00.000Z', 'waits@2026-11-20T11:00:00.000Z']);
  });

  it('does not run a slot that already ran', async () => {
    const runs: string[] = [];
    const now = at('2026-11-20T10:30:00Z');
    const scheduler = new Scheduler({
      strategies: [strategy('hourly', { everyMs: 3_600_000 })],
      run: async (_s, slot) => void runs.push(slot),
      lastSlot: () => at('2026-11-20T10:00:00Z'),
      maxConcurrency: 4,
      now: () => now,
    });
    scheduler.start();
    await scheduler.stop();
    expect(runs).toEqual([]);
  });

  it('runs again at start the slot whose order it was working in slices, while that slot is the latest; not an older one', async () => {
    const runs: string[] = [];
    const now = at('2026-11-20T10:30:00Z');
    const scheduler = new Scheduler({
      strategies: [strategy('working', { everyMs: 3_600_000 }), strategy('superseded', { everyMs: 3_600_000, catchUp: 'skip' })],
      run: async (s, slot) => void runs.push(`${s.id}@${slot}`),
      lastSlot: (id) => (id === 'working' ? at('2026-11-20T10:00:00Z') : at('2026-11-20T09:00:00Z')),
      workingSlot: (id) => (id === 'working' ? at('2026-11-20T10:00:00Z') : at('2026-11-20T09:00:00Z')),
      maxConcurrency: 4,
      now: () => now,
    });
    scheduler.start();
    await scheduler.stop();
    expect(runs).toEqual(['working@2026-11-20T10:00:00.000Z']);
  });

  it('never overlaps a strategy with itself: a slot arriving mid-run is missed, with why', async () => {
    let active = 0;
    let most = 0;
    const skipped: string[] = [];
    const scheduler = new Scheduler({
      strategies: [strategy('fast', { everyMs: 40 })],
      run: async () => {
        active++;
        most = Math.max(most, active);
        await sleep(150);
        active--;
      },
      lastSlot: () => undefined,
      maxConcurrency: 4,
      onMissed: (_s, _slot, why) => skipped.push(why),
    });
    scheduler.start();
    await elapse(400);
    await stopWithin(scheduler, 150);
    expect(most).toBe(1);
    // Slots every 40 ms, runs of 150 ms: of the ten slots in 400 ms, at most three start a run.
    expect(skipped.length).toBeGreaterThanOrEqual(7);
    expect(skipped.every((why) => why === 'the previous run of this strategy was still going')).toBe(true);
  });

  it('runs strategies of one wallet side by side, and holds the global limit', async () => {
    const active = new Map<string, number>();
    let most = { perWallet: 0, overall: 0 };
    const scheduler = new Scheduler({
      strategies: [
        strategy('a1', { everyMs: 3_600_000 }, 'a'),
        strategy('a2', { everyMs: 3_600_000 }, 'a'),
        strategy('a3', { everyMs: 3_600_000 }, 'a'),
        strategy('b1', { everyMs: 3_600_000 }, 'b'),
      ],
      run: async (s) => {
        active.set(s.wallet, (active.get(s.wallet) ?? 0) + 1);
        const overall = [...active.values()].reduce((a, b) => a + b, 0);
        most = { perWallet: Math.max(most.perWallet, active.get(s.wallet) ?? 0), overall: Math.max(most.overall, overall) };
        await sleep(80);
        active.set(s.wallet, (active.get(s.wallet) ?? 1) - 1);
      },
      lastSlot: () => undefined,
      maxConcurrency: 3,
    });
    scheduler.start();
    await elapse(20);
    await stopWithin(scheduler, 200);
    // The wallet orders its own nonces and sends; the scheduler lets three of its strategies run at once.
    expect(most).toEqual({ perWallet: 3, overall: 3 });
  });

  it('spreads the starts of many strategies over the slot, each at the same offset every time', () => {
    const slot = at('2026-11-20T10:00:00Z');
    const many = Array.from({ length: 1_000 }, (_, i) => strategy(`dca-${i}`, { everyMs: 60_000, spreadMs: 30_000 }));
    const offsets = many.map((s) => plannedStart(s, slot) - slot);
    expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...offsets)).toBeLessThan(30_000);
    // Ten 3-second buckets of the spread hold about a hundred starts each, never a pile in one millisecond.
    const buckets = Array.from({ length: 10 }, (_, b) => offsets.filter((o) => Math.floor(o / 3_000) === b).length);
    for (const count of buckets) expect(count).toBeGreaterThan(60), expect(count).toBeLessThan(140);
    expect(new Set(offsets).size).toBeGreaterThan(950);
    // Deterministic: the same id starts at the same offset in every slot and in another process.
    expect(plannedStart(many[7] as Strategy, slot + 60_000) - (slot + 60_000)).toBe(offsets[7]);
    expect(plannedStart(strategy('dca-7', { everyMs: 60_000, spreadMs: 30_000 }), slot)).toBe(slot + (offsets[7] as number));
    expect(plannedStart(strategy('no-spread', { everyMs: 60_000 }), slot)).toBe(slot);
  });

  it('reports a slot that cannot start within its lateness as missed, with why, and does not run it late', async () => {
    const runs: string[] = [];
    const missed: string[] = [];
    // One run at a time, each taking 120 ms: the second of three strategies due at once starts 120 ms late.
    const scheduler = new Scheduler({
      strategies: ['first', 'second', 'third'].map((id) => strategy(id, { everyMs: 3_600_000, latenessMs: 60 })),
      run: async (s) => {
        runs.push(s.id);
        await sleep(120);
      },
      lastSlot: () => undefined,
      maxConcurrency: 1,
      onMissed: (s, slot, why) => missed.push(`${s.id}@${slot}: ${why}`),
    });
    scheduler.start();
    await elapse(400);
    await scheduler.stop();
    expect(runs).toEqual(['first']);
    // Each waited for the first run (120 ms): 60 ms past its lateness.
    expect(missed).toEqual([
      'second@2026-11-20T09:00:00.000Z: could not start within 60 ms of its planned start (60 ms later; 1 runs in progress, 1 waiting, maxConcurrency 1)',
      'third@2026-11-20T09:00:00.000Z: could not start within 60 ms of its planned start (60 ms later; 1 runs in progress, 0 waiting, maxConcurrency 1)',
    ]);
  });

  it('on stop, starts nothing new and waits for the run in progress to finish', async () => {
    const events: string[] = [];
    const scheduler = new Scheduler({
      strategies: [strategy('slow', { everyMs: 3_600_000 })],
      run: async () => {
        events.push('run started');
        await sleep(150);
        events.push('run finished');
      },
      lastSlot: () => undefined,
      maxConcurrency: 1,
    });
    scheduler.start();
    await elapse(20);
    const stillRunning = await stopWithin(scheduler, 150);
    events.push('stopped');
    expect(events).toEqual(['run started', 'run finished', 'stopped']);
    expect(stillRunning).toEqual([]);
  });
});
