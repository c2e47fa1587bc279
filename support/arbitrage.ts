/**
 * An arbitrageur on a devnet's Uniswap V2 CELO/cUSD pool (account 1), as Celo's bring their pools back to the market
 * between blocks: it sells CELO into the pool until its price is the reference again, 0.5 cUSD per CELO (its
 * inventory is the devnet token's to mint; it pays the pool as a trader does). The tests and the benchmarks share it.
 */
import { erc20Abi } from 'viem';
import { isqrt } from '../src/bigint-math.ts';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import type { DevnetFork } from './fork-clients.ts';
import { trader } from './traders.ts';

/** Trades the pool back to the reference once, if a buyer of CELO moved it more than 2 bps. */
export async function arbitrageBack(fork: DevnetFork): Promise<void> {
  const pair = fork.addressBook.pools.find((pool) => pool.name === 'CELO/cUSD')?.address;
  if (!pair) throw new Error('the devnet has no CELO/cUSD pool');
  const celo = fork.token('CELO');
  const [[reserve0, reserve1], token0] = await Promise.all([
    fork.publicClient.readContract({ address: pair, abi: artifacts.UniswapV2Pair.abi, functionName: 'getReserves' }),
    fork.publicClient.readContract({ address: pair, abi: artifacts.UniswapV2Pair.abi, functionName: 'token0' }),
  ]);
  const celoIs0 = token0.toLowerCase() === celo.toLowerCase();
  const [celoReserve, cusdReserve] = celoIs0 ? [reserve0, reserve1] : [reserve1, reserve0];
  const target = isqrt(celoReserve * cusdReserve * 2n);
  if (target * 10_000n <= celoReserve * 10_002n) return;
  const sell = target - celoReserve;
  const out = (sell * 997n * cusdReserve) / (celoReserve * 1000n + sell * 997n);
  const arbitrageur = trader(fork, 1);
  await fork.confirm(
    await arbitrageur.wallet.writeContract({ address: celo, abi: artifacts.TestToken.abi, functionName: 'mint', args: [arbitrageur.address, sell] }),
  );
  await fork.confirm(await arbitrageur.wallet.writeContract({ address: celo, abi: erc20Abi, functionName: 'transfer', args: [pair, sell] }));
  await fork.confirm(
    await arbitrageur.wallet.writeContract({
      address: pair,
      abi: artifacts.UniswapV2Pair.abi,
      functionName: 'swap',
      args: [celoIs0 ? 0n : out, celoIs0 ? out : 0n, arbitrageur.address, '0x'],
    }),
  );
}

/**
 * Keeps arbitraging while another process trades: after every new block (looked for every 50 ms, a market
 * participant's own pace, not a test's wait) it trades the pool back if it moved. Returns its stop.
 */
export function arbitrageEachBlock(fork: DevnetFork): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    let seen = await fork.publicClient.getBlockNumber();
    while (!stopped) {
      const head = await fork.publicClient.getBlockNumber();
      if (head > seen) {
        await arbitrageBack(fork);
        seen = await fork.publicClient.getBlockNumber();
      } else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
