/**
 * A Uniswap V3 pool's oracle as the routing service follows it from logs, against v3-core's `Oracle.write` as written
 * in its source: one write per block time, the ring grown to `cardinalityNext` when it wraps, and a pool of one
 * observation short of a window exactly while that observation is younger than the window.
 */
import { describe, expect, it } from 'vitest';
import { oracleInitialized, oracleShortOfWindow, oracleWritten } from '../../src/pools/uniswap-v3/oracle.ts';

describe("a V3 pool's oracle followed from its logs", () => {
  it('writes once per block time, and grows to cardinalityNext only when its last slot was written', () => {
    const created = oracleInitialized(1_000n);
    expect(created).toEqual({ index: 0, cardinality: 1, cardinalityNext: 1, lastWrite: 1_000n });
    // A second write in the same second is none.
    expect(oracleWritten(created, 1_000n)).toBe(created);
    // One slot: each write overwrites it.
    expect(oracleWritten(created, 1_005n)).toEqual({ index: 0, cardinality: 1, cardinalityNext: 1, lastWrite: 1_005n });
    // Grown to 3 (IncreaseObservationCardinalityNext): the next write takes slot 1, and the ring is 3 from then.
    const grown = oracleWritten({ ...created, cardinalityNext: 3 }, 1_010n);
    expect(grown).toEqual({ index: 1, cardinality: 3, cardinalityNext: 3, lastWrite: 1_010n });
    const wrapped = [1_011n, 1_012n].reduce(oracleWritten, grown);
    expect(wrapped).toEqual({ index: 0, cardinality: 3, cardinalityNext: 3, lastWrite: 1_012n });
    // Grown again while not at its last slot: it waits for the ring to reach it, as Oracle.write does.
    const later = oracleWritten({ ...wrapped, cardinalityNext: 5 }, 1_013n);
    expect(later).toMatchObject({ index: 1, cardinality: 3 });
    expect([1_014n, 1_015n].reduce(oracleWritten, later)).toMatchObject({ index: 3, cardinality: 5 });
  });

  it('is short of the window while its one observation is younger than it, and never says so of a longer ring', () => {
    const oracle = oracleInitialized(1_000n);
    expect(oracleShortOfWindow(oracle, 1_599n, 600)).toBe('keeps 1 oracle observation, written 599 s ago, within the 600 s window');
    // observe([600]) reaches an observation exactly a window old.
    expect(oracleShortOfWindow(oracle, 1_600n, 600)).toBeUndefined();
    expect(oracleShortOfWindow({ ...oracle, cardinality: 2, cardinalityNext: 2 }, 1_001n, 600)).toBeUndefined();
    expect(oracleShortOfWindow(undefined, 1_001n, 600)).toBeUndefined();
  });
});
