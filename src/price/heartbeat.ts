/**
 * How often a feed really posts, measured from its own recent rounds: the longest time between two consecutive
 * rounds is its heartbeat as far as the chain shows it (a feed also posts early when the price moves, so the
 * longest gap, not the usual one, is the heartbeat). A staleness limit looser than twice that lets a stalled feed
 * price trades long after it stopped. `doctor` measures it, so that a configured limit can follow it.
 */
import type { Address } from 'viem';
import type { ChainClient } from '../chains.ts';
import { aggregatorV3Abi } from './feed.ts';

/** How many rounds back a measurement reads (one batch). */
export const measuredRounds = 24;

export type Heartbeat = {
  /** Rounds read (the latest included). */
  rounds: number;
  /** The longest and the median time between two consecutive rounds, in seconds. */
  longestSeconds: bigint;
  medianSeconds: bigint;
};

/**
 * The feed's heartbeat from its last rounds before `latestRound` (its id from latestRoundData, `updatedAt` its time),
 * or undefined with fewer than three rounds to measure. A proxy's round id carries its phase in the high 16 bits;
 * rounds before the current phase's first are not read (they belong to another aggregator).
 */
export async function measureHeartbeat(client: ChainClient, feed: Address, latestRound: bigint, updatedAt: bigint): Promise<Heartbeat | undefined> {
  const inPhase = latestRound & ((1n << 64n) - 1n);
  const back = Number(inPhase - 1n < BigInt(measuredRounds - 1) ? inPhase - 1n : BigInt(measuredRounds - 1));
  const earlier = await Promise.all(
    Array.from({ length: back }, (_, i) =>
      client.readContract({ address: feed, abi: aggregatorV3Abi, functionName: 'getRoundData', args: [latestRound - BigInt(i + 1)] }).then(
        ([, , , roundUpdatedAt]) => roundUpdatedAt,
        () => undefined,
      ),
    ),
  );
  const times = [updatedAt, ...earlier.filter((time): time is bigint => time !== undefined && time > 0n)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (times.length < 3) return undefined;
  const gaps = times
    .slice(1)
    .map((time, i) => time - (times[i] as bigint))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { rounds: times.length, longestSeconds: gaps.at(-1) as bigint, medianSeconds: gaps[Math.floor(gaps.length / 2)] as bigint };
}
