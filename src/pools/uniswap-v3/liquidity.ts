/**
 * A Uniswap V3 position's liquidity and amounts, exact as the contracts compute them: the periphery's
 * LiquidityAmounts (how much liquidity amounts buy) and the pool's SqrtPriceMath (what a position holds, or what a
 * mint pulls). Prices are √price × 2⁹⁶, as the pool keeps them; a range is its two ticks' √prices.
 */
import { isqrt } from '../../bigint-math.ts';
import { amount0Delta, amount1Delta, sqrtRatioAtTick } from './math.ts';

const Q96 = 1n << 96n;
const Q192 = 1n << 192n;

export type TickRange = { tickLower: number; tickUpper: number };
export type TokenAmounts = { amount0: bigint; amount1: bigint };

const rangeRatios = ({ tickLower, tickUpper }: TickRange) => ({ sqrtA: sqrtRatioAtTick(tickLower), sqrtB: sqrtRatioAtTick(tickUpper) });

/** LiquidityAmounts.getLiquidityForAmount0/1: the liquidity an amount of one token buys across [a, b]. */
const liquidityFor0 = (sqrtA: bigint, sqrtB: bigint, amount0: bigint) => (amount0 * ((sqrtA * sqrtB) / Q96)) / (sqrtB - sqrtA);
const liquidityFor1 = (sqrtA: bigint, sqrtB: bigint, amount1: bigint) => (amount1 * Q96) / (sqrtB - sqrtA);

/**
 * LiquidityAmounts.getLiquidityForAmounts: the most liquidity `amounts` buy in `range` at the pool's price, as the
 * position manager computes it for `increaseLiquidity` (the contract's uint128 cast aside).
 */
export function liquidityForAmounts(sqrtPriceX96: bigint, range: TickRange, amounts: TokenAmounts): bigint {
  const { sqrtA, sqrtB } = rangeRatios(range);
  if (sqrtPriceX96 <= sqrtA) return liquidityFor0(sqrtA, sqrtB, amounts.amount0);
  if (sqrtPriceX96 >= sqrtB) return liquidityFor1(sqrtA, sqrtB, amounts.amount1);
  const from0 = liquidityFor0(sqrtPriceX96, sqrtB, amounts.amount0);
  const from1 = liquidityFor1(sqrtA, sqrtPriceX96, amounts.amount1);
  return from0 < from1 ? from0 : from1;
}

/**
 * What `liquidity` in `range` holds at a price: rounded down, what burning it returns; rounded up, what minting it
 * pulls (the pool's `mint`, and so the position manager's `increaseLiquidity`).
 */
export function amountsForLiquidity(sqrtPriceX96: bigint, range: TickRange, liquidity: bigint, rounding: 'down' | 'up'): TokenAmounts {
  const { sqrtA, sqrtB } = rangeRatios(range);
  const up = rounding === 'up';
  if (sqrtPriceX96 <= sqrtA) return { amount0: amount0Delta(sqrtA, sqrtB, liquidity, up), amount1: 0n };
  if (sqrtPriceX96 >= sqrtB) return { amount0: 0n, amount1: amount1Delta(sqrtA, sqrtB, liquidity, up) };
  return { amount0: amount0Delta(sqrtPriceX96, sqrtB, liquidity, up), amount1: amount1Delta(sqrtA, sqrtPriceX96, liquidity, up) };
}

/** Raw token0 in raw token1 at a √price: what it is worth there. */
export const token0InToken1 = (sqrtPriceX96: bigint, amount0: bigint) => (amount0 * sqrtPriceX96 * sqrtPriceX96) / Q192;

/**
 * Which token to sell, and how much, so that what is left fits `range` at `sqrtPriceX96` (the reference price, not the
 * pool's): the amounts' value, split in the ratio the range holds at that price. The swap's fee and impact are not
 * counted: they leave a little of the token bought over, which stays in the wallet.
 */
export function swapToRangeRatio(sqrtPriceX96: bigint, range: TickRange, amounts: TokenAmounts): { sell: 'token0' | 'token1'; amount: bigint } | undefined {
  // What a unit of liquidity holds at the price (large, so that the ratio is exact to far below a raw unit).
  const perLiquidity = amountsForLiquidity(sqrtPriceX96, range, 1n << 128n, 'down');
  const price = sqrtPriceX96 * sqrtPriceX96;
  // Both in token1 × 2¹⁹²: the amounts' whole value, and a unit of liquidity's.
  const value = amounts.amount0 * price + amounts.amount1 * Q192;
  const unitValue = perLiquidity.amount0 * price + perLiquidity.amount1 * Q192;
  if (unitValue === 0n) return undefined;
  const target0 = (value * perLiquidity.amount0) / unitValue;
  const target1 = (value * perLiquidity.amount1) / unitValue;
  if (amounts.amount0 > target0) return { sell: 'token0', amount: amounts.amount0 - target0 };
  if (amounts.amount1 > target1) return { sell: 'token1', amount: amounts.amount1 - target1 };
  return undefined;
}

/**
 * What selling `amount` of one token pays, and the √price the range then meets: the position's own pool moved by the
 * sale itself, or another route's rate with the position's pool where it was. Undefined: not known for that amount.
 */
export type RangeSale = (amount: bigint) => { out: bigint; sqrtPriceX96: bigint } | undefined;

/**
 * The most of `sell` (at most `upTo`) whose sale leaves amounts that fit `range` at the price the mint then meets, the
 * sale's fee and impact counted: selling one more raw unit would leave too little of it. Through another pool, the fee
 * and impact mean selling a little more than at the reference; through the position's own pool, the sale also moves
 * the price the range needs amounts at, and that means selling less. What is left over is what rounding and the
 * model's error leave. The fit only falls as more is sold, so the amount is found by halving.
 */
export function saleToRangeRatio(range: TickRange, amounts: TokenAmounts, sell: 'token0' | 'token1', sale: RangeSale, upTo: bigint): bigint {
  const stillOver = (amount: bigint): boolean => {
    const sold = sale(amount);
    if (!sold) return false;
    const unit = amountsForLiquidity(sold.sqrtPriceX96, range, 1n << 128n, 'down');
    // The part sold is still at least its share: (held − x) · need(other) ≥ (other + out) · need(sold).
    return sell === 'token0'
      ? (amounts.amount0 - amount) * unit.amount1 >= (amounts.amount1 + sold.out) * unit.amount0
      : (amounts.amount1 - amount) * unit.amount0 >= (amounts.amount0 + sold.out) * unit.amount1;
  };
  let [low, high] = [0n, upTo];
  if (stillOver(high)) return high;
  while (high - low > 1n) {
    const mid = (low + high) / 2n;
    if (stillOver(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * √price × 2⁹⁶ of raw token0 in raw token1, from both tokens' USD prices (18 decimals) and decimals: the reference
 * price in the pool's own terms.
 */
export function sqrtPriceX96FromUsd(usd0E18: bigint, usd1E18: bigint, decimals0: number, decimals1: number): bigint {
  return isqrt((usd0E18 * 10n ** BigInt(decimals1) * Q192) / (usd1E18 * 10n ** BigInt(decimals0)));
}
