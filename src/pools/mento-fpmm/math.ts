/**
 * Mento v3's fixed-price pools' arithmetic (mento-core `contracts/swap/FPMM.sol`, `contracts/oracles/OracleAdapter.sol`,
 * `contracts/oracles/breakers/MarketHoursBreaker.sol`, `contracts/libraries/TradingLimitsV2.sol`): a pool pays its
 * rate feed's rate (inverted when the pool says so) less `lpFee + protocolFee` basis points, out of its reserves, while
 * the FX market is open, the BreakerBox lets the feed trade and its median is within the feed's report expiry; each
 * token's net flow (15-decimal units, the input counted less the fee) stays within its limits over 5 minutes and a day.
 */

const BPS = 10_000n;
const INTERNAL_DECIMALS = 15n;
const TIMESTEP0 = 300n;
const TIMESTEP1 = 86_400n;

/** Whether the FX market is open at a time (seconds, UTC), as Mento's MarketHoursBreaker says. */
export function isFXMarketOpen(timestamp: bigint): boolean {
  const date = new Date(Number(timestamp) * 1000);
  const [dayOfWeek, hour, month, day] = [date.getUTCDay(), date.getUTCHours(), date.getUTCMonth() + 1, date.getUTCDate()];
  // getUTCDay: Sunday 0 … Saturday 6.
  if ((dayOfWeek === 5 && hour >= 21) || dayOfWeek === 6 || (dayOfWeek === 0 && hour < 23)) return false;
  if (month === 12 && (day === 24 || day === 31)) return hour < 22;
  if (month === 12 && day === 25) return false;
  return !(month === 1 && day === 1);
}

/** One token's TradingLimitsV2 (limits 0: none), as `getTradingLimits` answers. */
export type FpmmLimit = { limit0: bigint; limit1: bigint; decimals: number; lastUpdated0: bigint; lastUpdated1: bigint; netflow0: bigint; netflow1: bigint };

export type FpmmState = {
  /** 10^decimals of each token, as the pool keeps them. */
  decimals0: bigint;
  decimals1: bigint;
  reserve0: bigint;
  reserve1: bigint;
  lpFee: bigint;
  protocolFee: bigint;
  /** The feed's median (SortedOracles, 1e24 denominator), its time and expiry, and the BreakerBox's mode for it. */
  rateNumerator: bigint;
  rateDenominator: bigint;
  medianTimestamp: bigint;
  reportExpiry: bigint;
  tradingMode: number;
  invertRateFeed: boolean;
  /**
   * Whether the pool's oracle adapter's market-hours breaker keeps the FX market's hours (an FX pool), or has its
   * checks off (Celo's USD pools since 2026-03-14): then the pool trades at weekends and on holidays.
   */
  marketHoursChecked: boolean;
  limit0?: FpmmLimit;
  limit1?: FpmmLimit;
};

/** Why a pool would not trade now. */
export type FpmmRefusal =
  | { kind: 'market-closed' }
  | { kind: 'halted'; tradingMode: number }
  | { kind: 'no-median' }
  | { kind: 'liquidity'; reserve: bigint }
  | { kind: 'limit'; token: 0 | 1; limit: 'L0' | 'L1'; headroom: bigint };

/** The pool's rate (token1 per token0, 1e18 denominators) as `getFXRateIfValid` gives it at `now`, or why not. */
export function fpmmRate(state: FpmmState, now: bigint): { numerator: bigint; denominator: bigint } | FpmmRefusal {
  if (state.marketHoursChecked && !isFXMarketOpen(now)) return { kind: 'market-closed' };
  if (state.tradingMode !== 0) return { kind: 'halted', tradingMode: state.tradingMode };
  if (state.medianTimestamp < now - state.reportExpiry) return { kind: 'no-median' };
  const [numerator, denominator] = [state.rateNumerator / 1_000_000n, state.rateDenominator / 1_000_000n];
  if (numerator === 0n || denominator === 0n) return { kind: 'no-median' };
  return state.invertRateFeed ? { numerator: denominator, denominator: numerator } : { numerator, denominator };
}

/** `getAmountOut(amountIn, tokenIn)` at a rate. */
export function fpmmAmountOut(state: FpmmState, rate: { numerator: bigint; denominator: bigint }, inIs0: boolean, amountIn: bigint): bigint {
  if (amountIn === 0n) return 0n;
  const keep = BPS - (state.lpFee + state.protocolFee);
  return inIs0
    ? (amountIn * rate.numerator * state.decimals1 * keep) / (rate.denominator * state.decimals0 * BPS)
    : (amountIn * rate.denominator * state.decimals0 * keep) / (rate.numerator * state.decimals1 * BPS);
}

/** How much flow (15-decimal units) a limit still allows in the direction of `delta`, from `before`. */
const room = (cap: bigint, before: bigint, delta: bigint) => (delta > 0n ? cap - before : cap + before);

/** TradingLimitsV2.applyTradingLimits: the limit's state after a flow, or the limit it breaks and the room left. */
function afterFlow(limit: FpmmLimit, amountIn: bigint, amountOut: bigint, feeBps: bigint, now: bigint): FpmmLimit | { limit: 'L0' | 'L1'; headroom: bigint } {
  if (limit.limit0 === 0n && limit.limit1 === 0n) return limit;
  const scale = (value: bigint) => (value * 10n ** INTERNAL_DECIMALS) / 10n ** BigInt(limit.decimals);
  const scaledIn = scale(amountIn);
  const delta = scaledIn - (scaledIn * feeBps) / BPS - scale(amountOut);
  if (delta === 0n) return limit;
  const next = { ...limit };
  if (limit.limit0 > 0n) {
    if (now > next.lastUpdated0 + TIMESTEP0) [next.netflow0, next.lastUpdated0] = [0n, now];
    next.netflow0 += delta;
    if (next.netflow0 > limit.limit0 || next.netflow0 < -limit.limit0) return { limit: 'L0', headroom: room(limit.limit0, next.netflow0 - delta, delta) };
  }
  if (limit.limit1 > 0n) {
    if (now > next.lastUpdated1 + TIMESTEP1) [next.netflow1, next.lastUpdated1] = [0n, now];
    next.netflow1 += delta;
    if (next.netflow1 > limit.limit1 || next.netflow1 < -limit.limit1) return { limit: 'L1', headroom: room(limit.limit1, next.netflow1 - delta, delta) };
  }
  return next;
}

/**
 * A swap of `amountIn` through the pool at `now`, as the router's adapter makes it (the input sent, the pool's own
 * quote taken out): what it pays and the state it leaves, or why the pool would revert.
 */
export function fpmmSwap(state: FpmmState, inIs0: boolean, amountIn: bigint, now: bigint): { amountOut: bigint; state: FpmmState } | { refused: FpmmRefusal } {
  const rate = fpmmRate(state, now);
  if ('kind' in rate) return { refused: rate };
  const amountOut = fpmmAmountOut(state, rate, inIs0, amountIn);
  const reserveOut = inIs0 ? state.reserve1 : state.reserve0;
  if (amountOut >= reserveOut) return { refused: { kind: 'liquidity', reserve: reserveOut } };
  const fee = state.lpFee + state.protocolFee;
  // The protocol's share of the input leaves the pool to its recipient.
  const protocolCut = (amountIn * state.protocolFee) / BPS;
  const next: FpmmState = inIs0
    ? { ...state, reserve0: state.reserve0 + amountIn - protocolCut, reserve1: state.reserve1 - amountOut }
    : { ...state, reserve0: state.reserve0 - amountOut, reserve1: state.reserve1 + amountIn - protocolCut };
  for (const token of [0, 1] as const) {
    const limit = token === 0 ? state.limit0 : state.limit1;
    if (!limit) continue;
    const flowIn = (token === 0) === inIs0 ? amountIn : 0n;
    const flowOut = (token === 0) === inIs0 ? 0n : amountOut;
    const after = afterFlow(limit, flowIn, flowOut, fee, now);
    if ('headroom' in after) return { refused: { kind: 'limit', token, limit: after.limit, headroom: after.headroom } };
    if (token === 0) next.limit0 = after;
    else next.limit1 = after;
  }
  return { amountOut, state: next };
}
