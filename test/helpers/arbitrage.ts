/**
 * An arbitrageur on the devnet's Uniswap V2 CELO/cUSD pool (account 1), as Celo's bring its pools back to the market
 * between blocks: it sells CELO into the pool until its price is the reference again, 0.5 cUSD per CELO.
 */
import { erc20Abi } from 'viem';
import { isqrt } from '../../src/bigint-math.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import type { DevnetFork } from './devnet.ts';
import { trader } from './routing.ts';
import { constantProductOut, readPool, reservesFrom } from './uniswap.ts';

/** Trades the pool back to the reference once, if a buyer of CELO moved it. */
export async function arbitrageBack(fork: DevnetFork): Promise<void> {
  const pool = await readPool(fork, 'CELO/cUSD');
  const celo = fork.token('CELO');
  const [celoReserve, cusdReserve] = reservesFrom(pool, celo);
  const target = isqrt(celoReserve * cusdReserve * 2n);
  if (target <= celoReserve) return;
  const sell = target - celoReserve;
  const out = constantProductOut(sell, celoReserve, cusdReserve);
  // A move too small to pay anything back is left.
  if (out === 0n) return;
  // Its inventory is the devnet token's to mint; it pays the pool as a trader does.
  const arbitrageur = trader(fork, 1);
  await fork.confirm(
    await arbitrageur.wallet.writeContract({ address: celo, abi: artifacts.TestToken.abi, functionName: 'mint', args: [arbitrageur.address, sell] }),
  );
  await fork.confirm(await arbitrageur.wallet.writeContract({ address: celo, abi: erc20Abi, functionName: 'transfer', args: [pool.address, sell] }));
  const celoIs0 = pool.token0.toLowerCase() === celo.toLowerCase();
  await fork.confirm(
    await arbitrageur.wallet.writeContract({
      address: pool.address,
      abi: artifacts.UniswapV2Pair.abi,
      functionName: 'swap',
      args: [celoIs0 ? 0n : out, celoIs0 ? out : 0n, arbitrageur.address, '0x'],
    }),
  );
}

/**
 * Keeps arbitraging while another process trades: it looks at the pool every `lookMs` (a market participant's own
 * pace, not a test's wait) and trades it back whenever it moved. Returns its stop.
 */
export function keepArbitraging(fork: DevnetFork, lookMs = 100): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await arbitrageBack(fork);
      await new Promise((resolve) => setTimeout(resolve, lookMs));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
