/**
 * A Uniswap V3 pool's own oracle as the routing service follows it from the pool's logs, without reading it: v3-core's
 * `Oracle.write` runs on the first swap of a block that moves the tick and on a position change in range, once per
 * block, and grows the ring to `cardinalityNext` when it wraps. What the service needs of it is when a pool's mean over
 * the daemon's window cannot be read: with one observation, whenever it was written within the window (`observe`
 * reverts `OLD`); with more, it depends on how far the oldest reaches, which only a read says, so such a pool is
 * taken to reach (the daemon's check reads it, and refuses a route that does not: src/price/reference.ts).
 */
import type { V3Oracle } from './math.ts';

/** The oracle after a write at `time` (a no-op within the same second, as `Oracle.write` is). */
export function oracleWritten(oracle: V3Oracle, time: bigint): V3Oracle {
  if (time === oracle.lastWrite) return oracle;
  const cardinality = oracle.cardinalityNext > oracle.cardinality && oracle.index === oracle.cardinality - 1 ? oracle.cardinalityNext : oracle.cardinality;
  return { ...oracle, cardinality, index: (oracle.index + 1) % cardinality, lastWrite: time };
}

/** The oracle as `Oracle.initialize` leaves it: one observation, written at `time`. */
export const oracleInitialized = (time: bigint): V3Oracle => ({ index: 0, cardinality: 1, cardinalityNext: 1, lastWrite: time });

/** Why the pool's own mean over `windowSeconds` cannot be read at `now`, when its state says so for certain. */
export function oracleShortOfWindow(oracle: V3Oracle | undefined, now: bigint, windowSeconds: number): string | undefined {
  if (!oracle || oracle.cardinality > 1) return undefined;
  const since = now - oracle.lastWrite;
  if (since >= BigInt(windowSeconds)) return undefined;
  return `keeps 1 oracle observation, written ${since} s ago, within the ${windowSeconds} s window`;
}
