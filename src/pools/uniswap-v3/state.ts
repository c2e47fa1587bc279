/**
 * Reading a Uniswap V3 pool's swap state from the chain at one block: its price, tick and liquidity (slot0,
 * liquidity), its oracle's ring and last write, and the initialized ticks of the tick bitmap's words around the price. A word covers 256 tick spacings
 * (0.05% pools: a factor of 1.29 in price; 0.3%: 4.6); a swap that would go past the words read is not quoted.
 */
import type { Address, PublicClient } from 'viem';
import { uniswapV3PoolAbi } from '../../contracts/abi.ts';
import type { InitializedTick, V3PoolState } from './math.ts';

/** Words of the tick bitmap read on each side of the price's own. */
export const V3_WORDS_AROUND_PRICE = 8;

/** The set bits of a bitmap word, as the ticks they stand for. */
function ticksOfWord(word: number, bitmap: bigint, spacing: number): number[] {
  const ticks: number[] = [];
  for (let bit = 0; bitmap !== 0n; bit++, bitmap >>= 1n) if (bitmap & 1n) ticks.push((word * 256 + bit) * spacing);
  return ticks;
}

export async function readV3PoolState(
  client: PublicClient,
  pool: Address,
  tickSpacing: number,
  blockNumber: bigint,
  wordsAround = V3_WORDS_AROUND_PRICE,
): Promise<V3PoolState> {
  const at = { address: pool, abi: uniswapV3PoolAbi, blockNumber } as const;
  const [[sqrtPriceX96, tick, index, cardinality, cardinalityNext], liquidity] = await Promise.all([
    client.readContract({ ...at, functionName: 'slot0' }),
    client.readContract({ ...at, functionName: 'liquidity' }),
  ]);
  const center = Math.floor(Math.floor(tick / tickSpacing) / 256);
  const words = { low: Math.max(center - wordsAround, -32768), high: Math.min(center + wordsAround, 32767) };
  const wordNumbers = Array.from({ length: words.high - words.low + 1 }, (_, i) => words.low + i);
  // The oracle's last write beside the bitmaps: when it was tells whether its mean over a window can be read.
  const [bitmaps, [lastWrite]] = await Promise.all([
    Promise.all(wordNumbers.map((word) => client.readContract({ ...at, functionName: 'tickBitmap', args: [word] }))),
    client.readContract({ ...at, functionName: 'observations', args: [BigInt(index)] }),
  ]);
  const initialized = wordNumbers.flatMap((word, i) => ticksOfWord(word, bitmaps[i] as bigint, tickSpacing));
  const ticks: InitializedTick[] = await Promise.all(
    initialized.map(async (index) => {
      const [liquidityGross, liquidityNet] = await client.readContract({ ...at, functionName: 'ticks', args: [index] });
      return { tick: index, liquidityNet, liquidityGross };
    }),
  );
  return { sqrtPriceX96, tick, liquidity, ticks, words, oracle: { index, cardinality, cardinalityNext, lastWrite: BigInt(lastWrite) } };
}
