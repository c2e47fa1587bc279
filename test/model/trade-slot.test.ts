import { describe, expect, it } from 'vitest';
import { onceRunSlot, onceRunSlotPattern, parseTradeSlot, scheduledSlotTime, tradeSlot } from '../../src/model/trade-slot.ts';

/** The SQL LIKE of a pattern with `%` only, as the ledger's queries use it. */
const like = (value: string, pattern: string) =>
  new RegExp(
    `^${pattern
      .split('%')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(value);

describe("a trade's slot", () => {
  const scheduled = '2026-11-21T10:00:00.000Z';
  const once = onceRunSlot(Date.parse('2026-11-21T10:04:30.000Z'));

  it('is its run slot and its key, read back as written', () => {
    expect(tradeSlot(scheduled, 'stop-loss')).toBe('2026-11-21T10:00:00.000Z#stop-loss');
    expect(parseTradeSlot(tradeSlot(scheduled, 'stop-loss'))).toEqual({ runSlot: scheduled, key: 'stop-loss' });
    expect(parseTradeSlot(tradeSlot(once, 'buy'))).toEqual({ runSlot: 'once-2026-11-21T10:04:30.000Z', key: 'buy' });
    // A slot written without a key (older rows, tests) has none.
    expect(parseTradeSlot('blocked')).toEqual({ runSlot: 'blocked', key: undefined });
  });

  it('tells a scheduled run from a once run, by time', () => {
    expect(scheduledSlotTime(scheduled)).toBe(Date.parse(scheduled));
    expect(scheduledSlotTime(once)).toBeUndefined();
    expect(scheduledSlotTime('blocked')).toBeUndefined();
  });

  it('gives the ledger a pattern that matches once runs and their trades, and no scheduled slot', () => {
    expect(like(once, onceRunSlotPattern)).toBe(true);
    expect(like(tradeSlot(once, 'buy'), onceRunSlotPattern)).toBe(true);
    expect(like(scheduled, onceRunSlotPattern)).toBe(false);
    expect(like(tradeSlot(scheduled, 'buy'), onceRunSlotPattern)).toBe(false);
  });
});
