/**
 * Swap volume in the devnet's Uniswap V3 pools that keep Uniswap's default oracle (one observation), as Celo's busy
 * pools see it: a trader (its own account) sells its spec's dollars' worth into each, one way then the other, so
 * that prices stay about the world's while each pool's one observation keeps being rewritten and its own oracle never
 * reaches a window back. Runs beside the embedded devnet and `routekeeper devnet`; tests make their pools busy
 * themselves, at the blocks they choose.
 */
import { type Address, createPublicClient, createWalletClient, http, parseUnits } from 'viem';
import { chainFor } from '../chains.ts';
import type { DeploymentAddressBook } from '../config/address-book.ts';
import { devnetAccount } from './accounts.ts';
import * as artifacts from './artifacts/contracts.ts';
import { devnetReceipt } from './receipt.ts';
import { type TokenSymbol, busyPoolTrading, roles, tokenSpecs, uniswapV3PoolSpecs } from './world-spec.ts';

type BusyPool = { address: Address; token0: TokenSymbol; token1: TokenSymbol; tradeUsd: number };

/** The book's V3 pools that world-spec leaves at one observation. */
export function busyPoolsOf(book: Pick<DeploymentAddressBook, 'uniswapV3'>): BusyPool[] {
  return (book.uniswapV3?.pools ?? []).flatMap((pool) => {
    const spec = uniswapV3PoolSpecs.find(
      (candidate) => candidate.fee === pool.fee && [candidate.token0, candidate.token1].sort().join('/') === [pool.token0, pool.token1].sort().join('/'),
    );
    if (!spec || spec.observations) return [];
    return [{ address: pool.address, token0: pool.token0 as TokenSymbol, token1: pool.token1 as TokenSymbol, tradeUsd: spec.busyTradeUsd ?? 2_000 }];
  });
}

/** Trades in every busy pool every `everyMs` (one swap each, alternating sides). Returns a stop function. */
export function tradeInBusyPools(rpcUrl: string, book: DeploymentAddressBook, options = busyPoolTrading): () => void {
  const pools = busyPoolsOf(book);
  const adapter = book.contracts.adapters.uniswapV3;
  if (pools.length === 0 || !adapter) return () => {};
  const trader = devnetAccount(roles.trader);
  const wallet = createWalletClient({ chain: chainFor(book.chainId, rpcUrl), transport: http(rpcUrl), account: trader.account });
  const reader = createPublicClient({ transport: http(rpcUrl) });
  const token = (symbol: TokenSymbol) => book.tokens[symbol] as { address: Address; decimals: number };
  let round = 0;
  const swapOnce = async () => {
    const sellToken0 = round++ % 2 === 0;
    for (const pool of pools) {
      const [sold, bought] = sellToken0 ? [pool.token0, pool.token1] : [pool.token1, pool.token0];
      const usdPrice = tokenSpecs.find((spec) => spec.symbol === sold)?.usdPrice ?? 1;
      const amount = parseUnits((pool.tradeUsd / usdPrice).toFixed(6), token(sold).decimals);
      // The devnet's tokens mint to anyone: the trader mints what it sells into the adapter, which swaps it.
      for (const hash of [
        await wallet.writeContract({
          address: token(sold).address,
          abi: artifacts.TestToken.abi,
          functionName: 'mint',
          args: [adapter, amount],
          gas: 100_000n,
        }),
        await wallet.writeContract({
          address: adapter,
          abi: artifacts.UniswapV3Adapter.abi,
          functionName: 'swap',
          args: [token(sold).address, token(bought).address, trader.address, pool.address],
          gas: 600_000n,
        }),
      ])
        await devnetReceipt(reader, hash);
    }
  };
  let trading: Promise<void> | undefined;
  const timer = setInterval(() => {
    // One round at a time: a slow node skips a beat.
    trading ??= swapOnce()
      .catch(() => {})
      .finally(() => (trading = undefined));
  }, options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
