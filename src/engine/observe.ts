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
import type { V3PositionObservation, V3PositionStrategy } from '../strategy/v3-position.ts';
import { amountsForLiquidity, sqrtPriceX96FromUsd } from '../pools/uniswap-v3/liquidity.ts';
import { readRangeHistory, readSecondsInside, readV3Position } from '../pools/uniswap-v3/position.ts';
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

/** Gas a V3 compound takes (collect, the ratio swap through the router, increaseLiquidity), with room to spare. */
export const v3CompoundGasUnits = 800_000n;

/**
 * A V3 position as its strategy decides on it: read from the chain at the latest block (its owner must be the
 * wallet), its fees and a compound's gas valued at the reference, the reference price in the pool's terms, and, when
 * the file keeps the range, where the pool's oracle put the price over the window.
 */
/** The strategy's position `positionId` (the file's, or the one a re-range opened after it: engine/held-position.ts) as the chain holds it. */
export async function observeV3Position(strategy: V3PositionStrategy, view: MarketView, positionId: bigint): Promise<V3PositionObservation> {
  const { pool, valueToken } = strategy;
  const blockNumber = await view.client.getBlockNumber();
  const [position, gasPrice, usd0, usd1] = await Promise.all([
    readV3Position(view.client, strategy.positionManager, positionId, blockNumber),
    view.client.getGasPrice(),
    view.prices.usdPrice(pool.token0.address).catch(noPrice(strategy, pool.token0.symbol)),
    view.prices.usdPrice(pool.token1.address).catch(noPrice(strategy, pool.token1.symbol)),
  ]);
  if (!isAddressEqual(position.owner, view.wallet)) {
    throw new ValuationError(`${strategy.id}: position ${positionId} belongs to ${position.owner}, not to the wallet ${view.wallet}`);
  }
  if (!isAddressEqual(position.pool, pool.address)) {
    throw new ValuationError(`${strategy.id}: position ${positionId} is in pool ${position.pool}, not the strategy's ${pool.address}`);
  }
  const native = view.nativeToken;
  if (!native) throw new ValuationError(`${strategy.id}: cannot value gas: the chain's native token is not known`);
  const [fees0, fees1, compoundGasValue] = await Promise.all([
    referenceValue(view, pool.token0.address, valueToken.address, position.uncollected.amount0),
    referenceValue(view, pool.token1.address, valueToken.address, position.uncollected.amount1),
    referenceValue(view, native.address, valueToken.address, gasPrice * v3CompoundGasUnits),
  ]);
  if (fees0 === undefined || fees1 === undefined)
    throw new ValuationError(`${strategy.id}: cannot value the fees: no price for the pool's tokens in ${valueToken.symbol}`);
  if (compoundGasValue === undefined) throw new ValuationError(`${strategy.id}: cannot value gas: no price for ${native.symbol} or ${valueToken.symbol}`);
  const [block, secondsInside] = await Promise.all([
    view.client.getBlock({ blockNumber, includeTransactions: false }),
    readSecondsInside(view.client, position.pool, position, blockNumber),
  ]);
  const head = { number: blockNumber, timestamp: block.timestamp };
  const rangeHistory = strategy.keepInRange
    ? await readRangeHistory(view.client, position, {
        seconds: Math.round(strategy.keepInRange.outsideMs / 1000),
        headTimestamp: block.timestamp,
        insideAtHead: secondsInside,
        blockAt: (time) => view.prices.averages.blockAt(time, head),
      })
    : undefined;
  const inLiquidity = amountsForLiquidity(position.sqrtPriceX96, position, position.liquidity, 'down');
  const holds = { amount0: inLiquidity.amount0 + position.uncollected.amount0, amount1: inLiquidity.amount1 + position.uncollected.amount1 };
  return {
    now: view.now(),
    position,
    referenceSqrtPriceX96: sqrtPriceX96FromUsd(usd0.usdE18, usd1.usdE18, pool.token0.decimals, pool.token1.decimals),
    feesValue: fees0 + fees1,
    compoundGasValue,
    ...(rangeHistory && { rangeHistory }),
    mark: { block: blockNumber, blockTime: Number(block.timestamp), holds, ...(secondsInside !== undefined && { secondsInside }) },
  };
}

const noPrice = (strategy: V3PositionStrategy, symbol: string) => (error: unknown) => {
  if (error instanceof NoPriceError) throw new ValuationError(`${strategy.id}: no reference price for ${symbol}: ${error.shortMessage}`);
  throw error;
};
