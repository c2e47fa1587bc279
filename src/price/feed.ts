/**
 * A Chainlink-style AggregatorV3Interface feed of token/USD, read as an 18-decimal USD price. An answer that
 * is not positive, or older than the source allows by the chain's clock, is no price at all.
 */
import { type Address, parseAbi } from 'viem';
import type { ChainClient } from '../chains.ts';

export const aggregatorV3Abi = parseAbi([
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function getRoundData(uint80 roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

/** A feed's answer as a price, or why it is none (`stale`: it answered, but longer ago than allowed). */
export type FeedReading = { ok: true; usdE18: bigint; updatedAt: bigint } | { ok: false; why: string; stale: boolean };

export const scaleTo18 = (value: bigint, decimals: number) => (decimals <= 18 ? value * 10n ** BigInt(18 - decimals) : value / 10n ** BigInt(decimals - 18));

/** `chainTime` may still be on its way (read in the same batch as the feed). */
export async function readFeed(client: ChainClient, feed: Address, decimals: number, maxAgeSeconds: number, chainTime: Promise<bigint>): Promise<FeedReading> {
  let round: readonly [bigint, bigint, bigint, bigint, bigint];
  try {
    round = await client.readContract({ address: feed, abi: aggregatorV3Abi, functionName: 'latestRoundData' });
  } catch (error) {
    return { ok: false, why: `feed ${feed} cannot be read: ${(error as Error).message.split('\n')[0]}`, stale: false };
  }
  const [, answer, , updatedAt] = round;
  if (answer <= 0n) return { ok: false, why: `feed ${feed} answers ${answer}`, stale: false };
  const age = (await chainTime) - updatedAt;
  if (age > BigInt(maxAgeSeconds))
    return { ok: false, why: `feed ${feed} is stale: updated ${age} s before the chain's time, more than ${maxAgeSeconds} s`, stale: true };
  return { ok: true, usdE18: scaleTo18(answer, decimals), updatedAt };
}
