/**
 * A V3 position strategy's marks folded for the status: the time in range is the pool counter's difference between
 * marks of one position (wrapping as a uint32 does), never across a re-range, and "against holding" starts from the
 * first mark that held anything.
 */
import { describe, expect, it } from 'vitest';
import type { PositionMark } from '../../src/ledger/marks.ts';
import { foldPositionMark } from '../../src/status/position-track.ts';

const mark = (overrides: Partial<PositionMark>): PositionMark => ({
  at: 0,
  block: 1n,
  blockTime: 1_000,
  strategyId: 'lp',
  positionId: 7n,
  tickLower: -600,
  tickUpper: 600,
  tick: 0,
  amount0: 10n,
  amount1: 20n,
  secondsInside: 100,
  ...overrides,
});
const fold = (marks: readonly PositionMark[]) => marks.reduce<ReturnType<typeof foldPositionMark> | undefined>(foldPositionMark, undefined);

describe("a V3 position strategy's marks, folded", () => {
  it('counts the seconds inside from the pool counter between marks of one position, the counter wrapping at 2³²', () => {
    const track = fold([mark({}), mark({ blockTime: 4_600, secondsInside: 2_500 }), mark({ blockTime: 8_200, secondsInside: 2_500 })]);
    expect([track?.insideSeconds, track?.observedSeconds]).toEqual([2_400, 7_200]);
    const wrapped = fold([mark({ secondsInside: 2 ** 32 - 50 }), mark({ blockTime: 1_100, secondsInside: 30 })]);
    expect([wrapped?.insideSeconds, wrapped?.observedSeconds]).toEqual([80, 100]);
  });

  it('counts nothing across a re-range, nor where the counter is not known', () => {
    const track = fold([
      mark({}),
      mark({ blockTime: 2_000, secondsInside: 600 }),
      mark({ blockTime: 5_000, positionId: 8n, tickLower: 0, tickUpper: 1_200, secondsInside: 9 }),
      mark({ blockTime: 6_000, positionId: 8n, tickLower: 0, tickUpper: 1_200, secondsInside: 1_009 }),
      mark({ blockTime: 7_000, positionId: 8n, tickLower: 0, tickUpper: 1_200, secondsInside: undefined }),
    ]);
    expect([track?.insideSeconds, track?.observedSeconds]).toEqual([500 + 1_000, 1_000 + 1_000]);
    expect(track?.latest.positionId).toBe(8n);
  });

  it('holds the first mark that held anything as the tokens to compare against', () => {
    const track = fold([mark({ amount0: 0n, amount1: 0n }), mark({ blockTime: 2_000, amount0: 5n }), mark({ blockTime: 3_000, amount0: 9n })]);
    expect([track?.first.amount0, track?.latest.amount0]).toEqual([5n, 9n]);
  });
});
