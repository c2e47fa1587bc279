/**
 * A strategy's slots in time: the latest at or before a moment, the next after one, each slot's name, and when its run
 * is planned to start. Pure arithmetic on the schedule, which the scheduler, the plan and the status page share.
 */
import { createHash } from 'node:crypto';
import { Cron } from 'croner';
import type { Strategy } from './types.ts';

/**
 * When a slot's run is planned to start: the slot plus the strategy's own offset within `spreadMs`, derived from
 * its id, so that thousands of strategies on one interval spread over the slot the same way every time.
 */
export function plannedStart(strategy: Strategy, slotTime: number): number {
  const spreadMs = strategy.schedule.spreadMs ?? 0;
  if (spreadMs <= 0) return slotTime;
  const fraction = createHash('sha256').update(strategy.id).digest().readUInt32BE(0) / 2 ** 32;
  return slotTime + Math.floor(fraction * spreadMs);
}

/** A slot's name: its time in ISO form (part of the intent id). */
export const slotName = (time: number) => new Date(time).toISOString();

const inWindow = (strategy: Strategy, time: number) =>
  (strategy.schedule.startMs === undefined || time >= strategy.schedule.startMs) && (strategy.schedule.endMs === undefined || time <= strategy.schedule.endMs);

/** The latest slot at or before `now` (within the strategy's window). */
export function latestSlot(strategy: Strategy, now: number): number | undefined {
  const { everyMs, cron } = strategy.schedule;
  let slot: number | undefined;
  if (everyMs !== undefined) slot = Math.floor(now / everyMs) * everyMs;
  else if (cron !== undefined) slot = new Cron(cron, { paused: true, timezone: 'UTC' }).previousRuns(1, new Date(now + 1))[0]?.getTime();
  return slot !== undefined && inWindow(strategy, slot) ? slot : undefined;
}

/** The first slot strictly after `after` (within the strategy's window). */
export function nextSlot(strategy: Strategy, after: number): number | undefined {
  const { everyMs, cron } = strategy.schedule;
  let slot: number | undefined;
  if (everyMs !== undefined) slot = (Math.floor(after / everyMs) + 1) * everyMs;
  else if (cron !== undefined) slot = new Cron(cron, { paused: true, timezone: 'UTC' }).nextRun(new Date(after))?.getTime();
  if (slot === undefined) return undefined;
  if (strategy.schedule.endMs !== undefined && slot > strategy.schedule.endMs) return undefined;
  if (strategy.schedule.startMs !== undefined && slot < strategy.schedule.startMs) return nextSlot(strategy, strategy.schedule.startMs - 1);
  return slot;
}
