/**
 * Uniswap V3 swap arithmetic in bigint, step for step as UniswapV3Pool.swap does it (exact input), so that a quote
 * equals, to the wei, what the pool pays. Written from the pool's published logic (v3-core's TickMath, SqrtPriceMath,
 * SwapMath and TickBitmap) rather than taken from @uniswap/v3-sdk, whose JSBI arithmetic is slower in the route
 * search's hot path, whose ESM build does not load under Node, and which brings ethers with it; the suite holds this
 * module to the pool bytecode (`test/routing/uniswap-v3-math.test.ts`).
 */

import { isqrt } from '../../bigint-math.ts';

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
const Q96 = 1n << 96n;
const Q128 = 1n << 128n;
const MAX_UINT256 = (1n << 256n) - 1n;
const FEE_DENOMINATOR = 1_000_000n;

/**
 * The factors TickMath multiplies for each bit of |tick|: 2¹²⁸ / 1.0001^(2ⁱ⁻¹), rounded to nearest, which is how the
 * published constants are made. They are computed here in fixed point with 640 fractional bits, far more than the
 * 128 the rounding needs.
 */
const tickFactors: readonly bigint[] = (() => {
  const bits = 640n;
  const one = 1n << bits;
  const roundTo128 = (fixed: bigint) => (fixed + (1n << (bits - 129n))) >> (bits - 128n);
  const factors = [roundTo128(isqrt((10_000n << (2n * bits)) / 10_001n))];
  let power = (10_000n * one + 5_000n) / 10_001n; // (1/1.0001)¹
  for (let i = 1; i < 20; i++) {
    factors.push(roundTo128(power));
    power = (power * power + (one >> 1n)) >> bits;
  }
  return factors;
})();

/** A cache: a tick's sqrt price, computed once (pure in the tick). */
const sqrtRatioCache = new Map<number, bigint>();

/** √(1.0001^tick) × 2⁹⁶, rounded up, exactly as TickMath.getSqrtRatioAtTick computes it. */
export function sqrtRatioAtTick(tick: number): bigint {
  const cached = sqrtRatioCache.get(tick);
  if (cached !== undefined) return cached;
  const abs = Math.abs(tick);
  if (!Number.isInteger(tick) || abs > MAX_TICK) throw new RangeError(`tick ${tick} is outside Uniswap V3's range`);
  let ratio = abs & 1 ? (tickFactors[0] as bigint) : Q128;
  for (let bit = 1; bit < 20; bit++) if (abs & (1 << bit)) ratio = (ratio * (tickFactors[bit] as bigint)) >> 128n;
  if (tick > 0) ratio = MAX_UINT256 / ratio;
  const result = (ratio >> 32n) + (ratio % (1n << 32n) === 0n ? 0n : 1n);
  if (sqrtRatioCache.size > 100_000) sqrtRatioCache.clear();
  sqrtRatioCache.set(tick, result);
  return result;
}

export const MIN_SQRT_RATIO = sqrtRatioAtTick(MIN_TICK);
export const MAX_SQRT_RATIO = sqrtRatioAtTick(MAX_TICK);

/** The greatest tick whose sqrt ratio is at most `sqrtPriceX96` (TickMath.getTickAtSqrtRatio), by bisection. */
export function tickAtSqrtRatio(sqrtPriceX96: bigint): number {
  let [low, high] = [MIN_TICK, MAX_TICK];
  while (low < high) {
    const mid = Math.floor((low + high + 1) / 2);
    if (sqrtRatioAtTick(mid) <= sqrtPriceX96) low = mid;
    else high = mid - 1;
  }
  return low;
}

const divUp = (a: bigint, b: bigint) => a / b + (a % b === 0n ? 0n : 1n);
const mulDivUp = (a: bigint, b: bigint, d: bigint) => divUp(a * b, d);

/** SqrtPriceMath.getAmount0Delta: token0 between two prices for `liquidity`. */
export function amount0Delta(sqrtA: bigint, sqrtB: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const [lower, upper] = sqrtA < sqrtB ? [sqrtA, sqrtB] : [sqrtB, sqrtA];
  const numerator1 = liquidity << 96n;
  const numerator2 = upper - lower;
  return roundUp ? divUp(mulDivUp(numerator1, numerator2, upper), lower) : (numerator1 * numerator2) / upper / lower;
}

/** SqrtPriceMath.getAmount1Delta: token1 between two prices for `liquidity`. */
export function amount1Delta(sqrtA: bigint, sqrtB: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const [lower, upper] = sqrtA < sqrtB ? [sqrtA, sqrtB] : [sqrtB, sqrtA];
  return roundUp ? mulDivUp(liquidity, upper - lower, Q96) : (liquidity * (upper - lower)) / Q96;
}

/**
 * SqrtPriceMath.getNextSqrtPriceFromInput. Selling token0 takes the pool's 256-bit path when the product fits, else
 * its other formula (which rounds differently), as the contract does.
 */
function nextSqrtPriceFromInput(sqrtPrice: bigint, liquidity: bigint, amountIn: bigint, zeroForOne: boolean): bigint {
  if (!zeroForOne) return sqrtPrice + (amountIn * Q96) / liquidity;
  if (amountIn === 0n) return sqrtPrice;
  const numerator1 = liquidity << 96n;
  const product = amountIn * sqrtPrice;
  if (product <= MAX_UINT256 && numerator1 + product <= MAX_UINT256) return mulDivUp(numerator1, sqrtPrice, numerator1 + product);
  return divUp(numerator1, numerator1 / sqrtPrice + amountIn);
}

/** SwapMath.computeSwapStep for an exact input: how far one step goes, what it takes (fee apart) and pays. */
function swapStep(sqrtPrice: bigint, sqrtTarget: bigint, liquidity: bigint, remaining: bigint, feePips: bigint) {
  const zeroForOne = sqrtPrice >= sqrtTarget;
  const remainingLessFee = (remaining * (FEE_DENOMINATOR - feePips)) / FEE_DENOMINATOR;
  let amountIn = zeroForOne ? amount0Delta(sqrtTarget, sqrtPrice, liquidity, true) : amount1Delta(sqrtPrice, sqrtTarget, liquidity, true);
  const next = remainingLessFee >= amountIn ? sqrtTarget : nextSqrtPriceFromInput(sqrtPrice, liquidity, remainingLessFee, zeroForOne);
  const reached = next === sqrtTarget;
  if (!reached) amountIn = zeroForOne ? amount0Delta(next, sqrtPrice, liquidity, true) : amount1Delta(sqrtPrice, next, liquidity, true);
  const amountOut = zeroForOne ? amount1Delta(next, sqrtPrice, liquidity, false) : amount0Delta(sqrtPrice, next, liquidity, false);
  const fee = reached ? mulDivUp(amountIn, feePips, FEE_DENOMINATOR - feePips) : remaining - amountIn;
  return { next, amountIn, amountOut, fee };
}

/** An initialized tick: what crossing it upwards adds to the liquidity in range, and all positions' liquidity at it. */
export type InitializedTick = { tick: number; liquidityNet: bigint; liquidityGross: bigint };

/**
 * A V3 pool's state as a swap needs it. `ticks` are the initialized ticks (sorted) within the words of the pool's
 * tick bitmap that were read, `words` (a word covers 256 spacings); a swap that would leave them is not quoted.
 */
export type V3PoolState = {
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  ticks: readonly InitializedTick[];
  words: { low: number; high: number };
  /** Its own oracle as far as the service follows it (oracle.ts); none: not known. */
  oracle?: V3Oracle;
};

/**
 * A pool's oracle (v3-core `Oracle.sol`): how many observations it keeps and will keep, which it wrote last, and
 * when (a block's time, in seconds).
 */
export type V3Oracle = { index: number; cardinality: number; cardinalityNext: number; lastWrite: bigint };

export type V3Swap = { amountOut: bigint; sqrtPriceX96: bigint; tick: number; liquidity: bigint };

/** The first index of `ticks` whose tick is at least `tick`. */
function lowerBound(ticks: readonly InitializedTick[], tick: number): number {
  let [low, high] = [0, ticks.length];
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((ticks[mid] as InitializedTick).tick < tick) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * TickBitmap.nextInitializedTickWithinOneWord over the known ticks: the next initialized tick at or below (selling
 * token0) or above the current one within its bitmap word, or the word's last tick; undefined outside the words read.
 */
function nextTick(state: V3PoolState, tick: number, spacing: number, lte: boolean): { next: number; initialized?: InitializedTick } | undefined {
  const compressed = Math.floor(tick / spacing);
  const start = lte ? compressed : compressed + 1;
  const word = Math.floor(start / 256);
  if (word < state.words.low || word > state.words.high) return undefined;
  if (lte) {
    const wordStart = word * 256;
    const i = lowerBound(state.ticks, (compressed + 1) * spacing) - 1;
    const found = state.ticks[i];
    if (found && Math.floor(found.tick / spacing) >= wordStart) return { next: found.tick, initialized: found };
    return { next: wordStart * spacing };
  }
  const wordEnd = word * 256 + 255;
  const found = state.ticks[lowerBound(state.ticks, start * spacing)];
  if (found && Math.floor(found.tick / spacing) <= wordEnd) return { next: found.tick, initialized: found };
  return { next: wordEnd * spacing };
}

/**
 * What the pool pays for exactly `amountIn` and where its price ends, or undefined when the swap would leave the
 * ticks known (or run the pool dry, leaving part of the input unswapped, which the adapter would keep).
 */
export function swapExactIn(state: V3PoolState, pool: { fee: number; tickSpacing: number }, zeroForOne: boolean, amountIn: bigint): V3Swap | undefined {
  const swapped = walk(state, pool, zeroForOne, amountIn);
  if (!swapped) return undefined;
  const { amountOut, sqrtPriceX96, liquidity, tick } = swapped;
  return { amountOut, sqrtPriceX96, liquidity, tick: tick ?? tickAtSqrtRatio(sqrtPriceX96) };
}

/** What the pool pays for exactly `amountIn` (the route search's hot path: the tick it ends at is not worked out). */
export function quoteExactIn(state: V3PoolState, pool: { fee: number; tickSpacing: number }, zeroForOne: boolean, amountIn: bigint): bigint | undefined {
  return walk(state, pool, zeroForOne, amountIn)?.amountOut;
}

/**
 * The pool's exact-input loop. A step that ends between two ticks ends the swap (its input is spent, or the price
 * limit reached), so the tick it ends at (`undefined`: TickMath.getTickAtSqrtRatio of the price) is needed only by a
 * caller that keeps the pool's new state.
 */
function walk(
  state: V3PoolState,
  pool: { fee: number; tickSpacing: number },
  zeroForOne: boolean,
  amountIn: bigint,
): (Omit<V3Swap, 'tick'> & { tick: number | undefined }) | undefined {
  if (amountIn <= 0n) return { amountOut: 0n, sqrtPriceX96: state.sqrtPriceX96, tick: state.tick, liquidity: state.liquidity };
  const limit = zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n;
  const feePips = BigInt(pool.fee);
  let { sqrtPriceX96, liquidity } = state;
  let tick: number | undefined = state.tick;
  let remaining = amountIn;
  let amountOut = 0n;
  while (remaining !== 0n && sqrtPriceX96 !== limit) {
    // A step that ends between two ticks ends the swap, so the tick is known here (worked out should it not be).
    tick ??= tickAtSqrtRatio(sqrtPriceX96);
    const step = nextTick(state, tick, pool.tickSpacing, zeroForOne);
    if (!step) return undefined;
    const tickNext = Math.min(Math.max(step.next, MIN_TICK), MAX_TICK);
    const sqrtNext = sqrtRatioAtTick(tickNext);
    const target = (zeroForOne ? sqrtNext < limit : sqrtNext > limit) ? limit : sqrtNext;
    const start = sqrtPriceX96;
    const { next, amountIn: stepIn, amountOut: stepOut, fee } = swapStep(sqrtPriceX96, target, liquidity, remaining, feePips);
    sqrtPriceX96 = next;
    remaining -= stepIn + fee;
    amountOut += stepOut;
    if (sqrtPriceX96 === sqrtNext) {
      if (step.initialized) liquidity += zeroForOne ? -step.initialized.liquidityNet : step.initialized.liquidityNet;
      tick = zeroForOne ? tickNext - 1 : tickNext;
    } else if (sqrtPriceX96 !== start) {
      tick = undefined;
    }
  }
  if (remaining !== 0n) return undefined;
  return { amountOut, sqrtPriceX96, tick, liquidity };
}

/** A position's liquidity added (`delta` > 0, a Mint) or removed (a Burn) between two ticks: the state after it. */
export function withPositionChange(state: V3PoolState, tickLower: number, tickUpper: number, delta: bigint): V3PoolState {
  const ticks = [...state.ticks];
  const change = (tick: number, net: bigint) => {
    const i = lowerBound(ticks, tick);
    const existing = ticks[i]?.tick === tick ? ticks[i] : undefined;
    const updated = { tick, liquidityNet: (existing?.liquidityNet ?? 0n) + net, liquidityGross: (existing?.liquidityGross ?? 0n) + delta };
    if (existing && updated.liquidityGross === 0n) ticks.splice(i, 1);
    else if (existing) ticks[i] = updated;
    else if (updated.liquidityGross !== 0n) ticks.splice(i, 0, updated);
  };
  change(tickLower, delta);
  change(tickUpper, -delta);
  const inRange = state.tick >= tickLower && state.tick < tickUpper;
  return { ...state, ticks, liquidity: inRange ? state.liquidity + delta : state.liquidity };
}
