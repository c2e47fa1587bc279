/**
 * Finding the block a price average starts from: the last block at or before an instant, in a few batched rounds
 * on a chain that keeps its pace, a chain that jumped in time (the devnet), and one of irregular blocks.
 */
import { describe, expect, it } from 'vitest';
import { ChainTooYoungError, blockAt } from '../../src/price/block-at.ts';

/** A chain given by its blocks' times; counts the rounds (batches) and blocks asked. */
function chain(times: readonly bigint[]) {
  const asked = { rounds: 0, blocks: 0 };
  const readTimes = async (numbers: readonly bigint[]) => {
    asked.rounds++;
    asked.blocks += numbers.length;
    return numbers.map((n) => {
      const time = times[Number(n)];
      if (time === undefined) throw new Error(`no block ${n}`);
      return time;
    });
  };
  const head = { number: BigInt(times.length - 1), timestamp: times.at(-1) as bigint };
  /** The answer by looking at every block. */
  const truth = (time: bigint) => BigInt(times.findLastIndex((t) => t <= time));
  return { readTimes, head, truth, asked };
}

describe('the block at an instant', () => {
  it('on a chain of one block a second: found in one round', async () => {
    const { readTimes, head, truth, asked } = chain(Array.from({ length: 5_000 }, (_, i) => 1_700_000_000n + BigInt(i)));
    const time = head.timestamp - 600n;
    expect(await blockAt(readTimes, time, head, { blockTimeSeconds: 1 })).toBe(truth(time));
    expect(asked.rounds).toBe(1);
  });

  it('on a chain that jumped a day (a devnet deployed in the past, then brought to now): a few rounds', async () => {
    // 300 blocks a day ago, one a second apart; then 2,000 blocks now, several a second (each a second after the last).
    const times = [
      ...Array.from({ length: 300 }, (_, i) => 1_700_000_000n + BigInt(i)),
      ...Array.from({ length: 2_000 }, (_, i) => 1_700_086_400n + BigInt(i)),
    ];
    const { readTimes, head, truth, asked } = chain(times);
    for (const back of [600n, 1_999n, 2_000n, 5_000n]) {
      asked.rounds = 0;
      const time = head.timestamp - back;
      expect(await blockAt(readTimes, time, head, { blockTimeSeconds: 1 })).toBe(truth(time));
      expect(asked.rounds).toBeLessThanOrEqual(5);
    }
  });

  it('on a chain of irregular blocks: the exact block, never one after the instant', async () => {
    let t = 1_700_000_000n;
    let seed = 7;
    const times = Array.from({ length: 20_000 }, () => {
      seed = (seed * 48_271) % 2_147_483_647;
      t += BigInt(seed % 40);
      return t;
    });
    const { readTimes, head, truth, asked } = chain(times);
    for (const back of [1n, 599n, 600n, 10_000n, 200_000n]) {
      asked.rounds = 0;
      const time = head.timestamp - back;
      expect(await blockAt(readTimes, time, head, { blockTimeSeconds: 5 })).toBe(truth(time));
      expect(asked.rounds).toBeLessThanOrEqual(8);
    }
  });

  it('says so when the chain is younger than the instant', async () => {
    const { readTimes, head } = chain(Array.from({ length: 100 }, (_, i) => 1_700_000_000n + BigInt(i)));
    await expect(blockAt(readTimes, 1_600_000_000n, head, { blockTimeSeconds: 1 })).rejects.toBeInstanceOf(ChainTooYoungError);
  });
});
