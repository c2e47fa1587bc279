/**
 * How a trade's slot is written and read, in one place. A run has a slot: a scheduled run's is its slot time (ISO,
 * UTC), a `routekeeper once` run's is `once-<ISO time>`, off every schedule. Each trade a run plans has a key within
 * it (`buy`, `take-profit`, `stop-loss`, `claim`, …), and its slot is `<run slot>#<key>`: one trade per key per
 * run, ever. The ledger stores the string; everything that asks what it means asks here.
 */

const onceRunPrefix = 'once-';

/** The slot of a `routekeeper once` run started at `time`. */
export const onceRunSlot = (time: number) => `${onceRunPrefix}${new Date(time).toISOString()}`;

/** The SQL `LIKE` pattern of the slots of `once` runs and their trades, for queries that leave them out. */
export const onceRunSlotPattern = `${onceRunPrefix}%`;

/** The slot of a run's trade of `key`. */
export const tradeSlot = (runSlot: string, key: string) => `${runSlot}#${key}`;

/**
 * A slice of an order worked over time (engine/worked-order.ts) is a trade of its own, keyed `<order key>.<n>` from 1:
 * `buy.1`, `buy.2`, … of the run's order `buy`.
 */
export const sliceKey = (orderKey: string, n: number) => `${orderKey}.${n}`;

/** A key read back as an order's slice: the order's key and the slice's number (none: not a slice). */
export function parseSliceKey(key: string): { orderKey: string; n: number } | undefined {
  const match = /^(.+)\.([1-9]\d*)$/.exec(key);
  return match ? { orderKey: match[1] as string, n: Number(match[2]) } : undefined;
}

/** The order a trade of this slot belongs to: its run's slot and the order's key (a slice's order, or the trade itself). */
export function orderOfSlot(slot: string): string {
  const { runSlot, key } = parseTradeSlot(slot);
  return key === undefined ? runSlot : tradeSlot(runSlot, parseSliceKey(key)?.orderKey ?? key);
}

/** A trade's slot read back: its run's slot and its key (none for a slot written without one). */
export function parseTradeSlot(slot: string): { runSlot: string; key: string | undefined } {
  const at = slot.lastIndexOf('#');
  return at < 0 ? { runSlot: slot, key: undefined } : { runSlot: slot.slice(0, at), key: slot.slice(at + 1) };
}

/** The time of a scheduled run's slot; undefined for a `once` run's (on no schedule) or a slot that names no time. */
export function scheduledSlotTime(runSlot: string): number | undefined {
  if (runSlot.startsWith(onceRunPrefix)) return undefined;
  const time = Date.parse(runSlot);
  return Number.isNaN(time) ? undefined : time;
}
