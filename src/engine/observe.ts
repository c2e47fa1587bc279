/**
 * What each strategy looks at before deciding: balances and rewards from the chain, and values at the
 * independent price reference, never at the routing service's quotes (a fake quote must not be able to trigger
 * a stop-loss or tilt a rebalance). This is the only impure part of a strategy; its output is plain data for decide().
 */
import { type Address, erc20Abi, isAddressEqual } from 'viem';
import { stakingGaugeAbi } from '../contracts/abi.ts';
import type { ChainClient } from '../chains.ts';
import type { TokenInfo } from '../units.ts';
import { NoPriceError, type PriceReference } from '../price/reference.ts';
import { RoutekeeperError } from '../errors.ts';
import type { CompoundObservation } from '../strategy/compound.ts';
import type { DcaObservation } from '../strategy/dca.ts';
import type { LimitObservation } from '../strategy/limit.ts';
import type { RebalanceObservation } from '../strategy/rebalance.ts';
import type { CompoundStrategy, DcaStrategy, LimitStrategy, RebalanceStrategy } from '../strategy/types.ts';

export type MarketView = {
  client: ChainClient;
  /** The independent price reference every value is read at. */
  prices: PriceReference;
  wallet: Address;
  /** The token that is also the chain's native coin (CELO on Celo), to value gas; undefined if the chain has none. */
  nativeToken?: TokenInfo;
  now(): number;
  /** The daemon's shutdown signal. */
  signal?: AbortSignal;
};

/** A value a strategy needs to decide could not be had (no price, no native token): the run does not trade. */
export class ValuationError extends RoutekeeperError {
  override name = 'ValuationError';
}

/** Gas a claim plus a re-deposit takes, with room to spare (devnet: about 90k + 450k). */
export const compoundGasUnits = 700_000n;

const balanceOf = (view: MarketView, token: Address) =>
  view.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [view.wallet] });

/** What `amountIn` of tokenIn is worth in tokenOut at the reference prices, or why it has no value (no price). */
async function valueAtReference(
  view: MarketView,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
): Promise<{ value: bigint } | { value: undefined; noPrice: string }> {
  if (amountIn === 0n) return { value: 0n };
  if (isAddressEqual(tokenIn, tokenOut)) return { value: amountIn };
  try {
    return { value: (await view.prices.convert(tokenIn, tokenOut, amountIn)).amountOut };
  } catch (error) {
    if (error instanceof NoPriceError) return { value: undefined, noPrice: error.shortMessage };
    throw error;
  }
}

/** What `amountIn` of tokenIn is worth in tokenOut at the reference prices; undefined when either has no price. */
export async function referenceValue(view: MarketView, tokenIn: Address, tokenOut: Address, amountIn: bigint): Promise<bigint | undefined> {
  return (await valueAtReference(view, tokenIn, tokenOut, amountIn)).value;
}

export async function observeDca(strategy: DcaStrategy, view: MarketView): Promise<DcaObservation> {
  return { sellBalance: await balanceOf(view, strategy.sell.address) };
}

export async function observeLimit(strategy: LimitStrategy, view: MarketView, fills: number): Promise<LimitObservation> {
  const [sellBalance, valued] = await Promise.all([
    balanceOf(view, strategy.sell.address),
    valueAtReference(view, strategy.sell.address, strategy.buy.address, strategy.amount),
  ]);
  return { now: view.now(), sellBalance, referenceOut: valued.value, ...('noPrice' in valued && { noPrice: valued.noPrice }), fills };
}

export async function observeRebalance(strategy: RebalanceStrategy, view: MarketView): Promise<RebalanceObservation> {
  const holdings = await Promise.all(
    strategy.targets.map(async ({ token }) => {
      const balance = await balanceOf(view, token.address);
      // No price means no value, not a value of zero (which would make the rebalance buy more of it).
      return { token: token.address, balance, value: await referenceValue(view, token.address, strategy.quote.address, balance) };
    }),
  );
  const quoteHolding = holdings.find((h) => isAddressEqual(h.token, strategy.quote.address));
  return { holdings, quoteBalance: quoteHolding?.balance ?? (await balanceOf(view, strategy.quote.address)) };
}

export async function observeCompound(strategy: CompoundStrategy, view: MarketView): Promise<CompoundObservation> {
  const { gauge, valueToken } = strategy;
  const [earned, position, gasPrice] = await Promise.all([
    view.client.readContract({ address: gauge.address, abi: stakingGaugeAbi, functionName: 'earned', args: [view.wallet] }),
    balanceOf(view, gauge.address),
    view.client.getGasPrice(),
  ]);
  // Gas is never free: without a way to value it the run stops here rather than compound at any cost.
  const native = view.nativeToken;
  if (!native) throw new ValuationError(`${strategy.id}: cannot value gas: the chain's native token is not known`);
  const [earnedValue, gasCostValue] = await Promise.all([
    referenceValue(view, gauge.rewardToken.address, valueToken.address, earned),
    referenceValue(view, native.address, valueToken.address, gasPrice * compoundGasUnits),
  ]);
  if (gasCostValue === undefined) throw new ValuationError(`${strategy.id}: cannot value gas: no price for ${native.symbol} or ${valueToken.symbol}`);
  if (earnedValue === undefined)
    throw new ValuationError(`${strategy.id}: cannot value the rewards: no price for ${gauge.rewardToken.symbol} or ${valueToken.symbol}`);
  return { now: view.now(), earned, position, earnedValue, gasCostValue };
}
