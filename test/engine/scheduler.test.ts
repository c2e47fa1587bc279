import { describe, expect, it } from 'vitest';
import { Scheduler, latestSlot, nextSlot } from '../../src/engine/scheduler.ts';
import type { Strategy } from '../../src/strategy/types.ts';

const strategy = (id: string, schedule: Partial<Strategy['schedule']>, wallet = 'main'): Strategy =>
  ({ id, wallet, kind: 'dca', slippageBps: 30, schedule: { jitterMs: 0, catchUp: 'once', firstRun: 'now', ...schedule } }) as Strategy;
const at = (iso: string) => Date.parse(iso);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  it('waits for a slot further away than a Node timer can wait (about 24.8 days) instead of firing at once', async () => {
    const runs: string[] = [];
    const scheduler = new Scheduler({
      strategies: [strategy('later', { everyMs: 1_000, startMs: Date.now() + 40 * 24 * 3_600_000 })],
      run: async (s, slot) => void runs.push(`${s.id}@${slot}`),
      lastSlot: () => undefined,
      maxConcurrency: 4,
    });
    scheduler.start();
    await sleep(100);
    await scheduler.stop();
    expect(runs).toEqual([]);
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
      onSkip: (_s, slot, why) => skipped.push(`${slot}: ${why}`),
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
    await sleep(10);
    expect(runs).toEqual(['starts@2026-11-20T10:00:00.000Z']);
    now = at('2026-11-20T11:00:00Z');
    for (let waited = 0; runs.length < 3 && waited < 5_000; waited += 10) await sleep(10);
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

  it('never overlaps a strategy with itself: a slot arriving mid-run is skipped', async () => {
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
      onSkip: (_s, _slot, why) => skipped.push(why),
    });
    scheduler.start();
    await sleep(400);
    await scheduler.stop();
    expect(most).toBe(1);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((why) => why === 'the previous run is still going')).toBe(true);
  });

  it('serializes runs of one wallet, runs different wallets side by side, and holds the global limit', async () => {
    const active = new Map<string, number>();
    let most = { perWallet: 0, overall: 0 };
    const scheduler = new Scheduler({
      strategies: [strategy('a1', { everyMs: 3_600_000 }, 'a'), strategy('a2', { everyMs: 3_600_000 }, 'a'), strategy('b1', { everyMs: 3_600_000 }, 'b'), strategy('c1', { everyMs: 3_600_000 }, 'c')],
      run: async (s) => {
        active.set(s.wallet, (active.get(s.wallet) ?? 0) + 1);
        const overall = [...active.values()].reduce((a, b) => a + b, 0);
        most = { perWallet: Math.max(most.perWallet, active.get(s.wallet) ?? 0), overall: Math.max(most.overall, overall) };
        await sleep(80);
        active.set(s.wallet, (active.get(s.wallet) ?? 1) - 1);
      },
      lastSlot: () => undefined,
      maxConcurrency: 2,
    });
    const finished: number[] = [];
    const started = Date.now();
    scheduler.start();
    while (finished.length === 0 && Date.now() - started < 2_000) {
      await sleep(10);
      if ([...active.values()].every((n) => n === 0) && Date.now() - started > 100) finished.push(Date.now() - started);
    }
    await scheduler.stop();
    expect(most).toEqual({ perWallet: 1, overall: 2 });
    // Four runs of 80 ms, two at a time, one at a time per wallet: all done after at least 160 ms.
    expect(finished[0]).toBeGreaterThanOrEqual(150);
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
    await sleep(20);
    const stillRunning = await scheduler.stop();
    events.push('stopped');
    expect(events).toEqual(['run started', 'run finished', 'stopped']);
    expect(stillRunning).toEqual([]);
  });
});
