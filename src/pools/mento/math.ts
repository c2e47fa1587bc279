/**
 * Mento v2's exchange arithmetic, exact to the wei: what `Broker.getAmountOut` answers and what `Broker.swapIn` then
 * does, for a BiPoolManager exchange at a given block time. Written from Mento's sources (mento-protocol/mento-core
 * `contracts/swap/BiPoolManager.sol`, `ConstantProductPricingModule.sol`, `ConstantSumPricingModule.sol`,
 * `contracts/libraries/TradingLimits.sol`, and Celo's `FixidityLib.sol`), and held to the published build's own
 * answers on the devnet (test/pools/mento-quotes.test.ts):
 *  - amounts are scaled to 18 decimals (`tokenPrecisionMultipliers`) and priced against two virtual buckets;
 *  - the buckets are reset to the oracle's median rate (`stablePoolResetSize` of asset0, its worth of asset1) when a
 *    swap comes `referenceRateResetFrequency` seconds after the last reset and the oracle has a valid median then;
 *  - ConstantProduct prices x·y=k on the buckets, ConstantSum at their ratio; both keep `spread` of the input;
 *  - a ConstantSum exchange does not trade at all without a valid median;
 *  - `swapIn` also needs the rate feed's trading mode to be bidirectional (the BreakerBox), each token's trading
 *    limits to hold after the swap's flow (whole tokens, over L0's and L1's windows and forever), and the Reserve to
 *    hold the collateral it pays out. `getAmountOut` checks none of these: a route must.
 */

/** Fixidity's one: Mento's spreads and rates are fractions of 1e24. */
export const FIXED1 = 10n ** 24n;
const MUL_PRECISION = 10n ** 12n;

/**
 * FixidityLib.multiply: the integer and fractional parts multiplied apart, the fractional parts each cut to 12
 * decimals first, so the product can be a few units short of x·y/1e24: the exchange's own rounding.
 */
export function fixidityMultiply(x: bigint, y: bigint): bigint {
  if (x === 0n || y === 0n) return 0n;
  const [x1, x2] = [x / FIXED1, x % FIXED1];
  const [y1, y2] = [y / FIXED1, y % FIXED1];
  return x1 * y1 * FIXED1 + x2 * y1 + x1 * y2 + (x2 / MUL_PRECISION) * (y2 / MUL_PRECISION);
}

export type MentoPricing = 'ConstantProduct' | 'ConstantSum';

/** A pricing module's `getAmountOut(tokenInBucket, tokenOutBucket, spread, amountIn)`, in 18-decimal units. */
export function pricingAmountOut(pricing: MentoPricing, inBucket: bigint, outBucket: bigint, spread: bigint, amountIn: bigint): bigint {
  if (amountIn === 0n) return 0n;
  const netIn = fixidityMultiply(FIXED1 - spread, amountIn * FIXED1);
  const numerator = fixidityMultiply(netIn, outBucket * FIXED1);
  const denominator = pricing === 'ConstantProduct' ? inBucket * FIXED1 + netIn : inBucket * FIXED1;
  return denominator === 0n ? 0n : numerator / denominator;
}

/** The oracle's view of an exchange's rate feed, as read at a block. */
export type MentoOracle = {
  /** `medianRate(feed)`: asset0 per asset1 as numerator / denominator (0/0: never reported). */
  rateNumerator: bigint;
  rateDenominator: bigint;
  medianTimestamp: bigint;
  numRates: bigint;
  /** The oldest report's time and how long a report lives: it is expired from `oldestReport + expiry` on. */
  oldestReport: bigint;
  reportExpiry: bigint;
};

/** One token's trading limit on an exchange (Broker's `tradingLimitsConfig` and `tradingLimitsState`). */
export type TradingLimit = {
  timestep0: bigint;
  timestep1: bigint;
  limit0: bigint;
  limit1: bigint;
  limitGlobal: bigint;
  /** L0 = 1, L1 = 2, LG = 4. */
  flags: number;
  lastUpdated0: bigint;
  lastUpdated1: bigint;
  netflow0: bigint;
  netflow1: bigint;
  netflowGlobal: bigint;
  /** The token's decimals: flows count in whole tokens. */
  decimals: number;
};

export type MentoExchangeState = {
  pricing: MentoPricing;
  bucket0: bigint;
  bucket1: bigint;
  lastBucketUpdate: bigint;
  spread: bigint;
  resetFrequency: bigint;
  minimumReports: bigint;
  stablePoolResetSize: bigint;
  /** 10^(18 − decimals) of each asset. */
  multiplier0: bigint;
  multiplier1: bigint;
  oracle: MentoOracle;
  /** The BreakerBox's trading mode for the exchange's rate feed: 0 trades both ways, anything else halts swaps. */
  tradingMode: number;
  /** Each asset's trading limit, when the Broker has one configured. */
  limit0?: TradingLimit;
  limit1?: TradingLimit;
  /** What the Reserve holds of each asset that is collateral (paid out from it); undefined: a stable, minted. */
  reserve0?: bigint;
  reserve1?: bigint;
};

/** Whether the oracle's median may be priced against at `now` (BiPoolManager's `oracleHasValidMedian`). */
export function hasValidMedian(state: MentoExchangeState, now: bigint): boolean {
  const { oracle } = state;
  const expired = oracle.oldestReport > 0n && now - oracle.oldestReport >= oracle.reportExpiry;
  return !expired && oracle.numRates >= state.minimumReports && oracle.medianTimestamp + state.resetFrequency > now && oracle.rateNumerator > 0n;
}

/** The buckets a swap at `now` prices against: reset to the oracle's rate when one is due, else as they are. */
export function bucketsAt(state: MentoExchangeState, now: bigint): { bucket0: bigint; bucket1: bigint; reset: boolean } | undefined {
  const valid = hasValidMedian(state, now);
  // A ConstantSum exchange requires a valid median for every quote ("no valid median").
  if (state.pricing === 'ConstantSum' && !valid) return undefined;
  if (valid && now >= state.lastBucketUpdate + state.resetFrequency) {
    const bucket0 = state.stablePoolResetSize;
    return { bucket0, bucket1: (state.oracle.rateDenominator * bucket0) / state.oracle.rateNumerator, reset: true };
  }
  return { bucket0: state.bucket0, bucket1: state.bucket1, reset: false };
}

/** `Broker.getAmountOut` at `now` (raw units), which checks no limit, breaker or Reserve balance; undefined where it reverts. */
export function mentoAmountOut(state: MentoExchangeState, inIs0: boolean, amountIn: bigint, now: bigint): bigint | undefined {
  const buckets = bucketsAt(state, now);
  if (!buckets) return undefined;
  const [inBucket, outBucket] = inIs0 ? [buckets.bucket0, buckets.bucket1] : [buckets.bucket1, buckets.bucket0];
  const [multiplierIn, multiplierOut] = inIs0 ? [state.multiplier0, state.multiplier1] : [state.multiplier1, state.multiplier0];
  const scaledOut = pricingAmountOut(state.pricing, inBucket, outBucket, state.spread, amountIn * multiplierIn);
  // Whether the Reserve holds that much collateral is not the view's question (swapIn's: see mentoSwap).
  return scaledOut / multiplierOut;
}

const MAX_INT48 = 2n ** 47n - 1n;
const L0 = 1;
const L1 = 2;
const LG = 4;

/** Why a limit stops a flow: which limit, and how much flow (whole tokens) it still allows in that direction. */
export type LimitBreach = { limit: 'L0' | 'L1' | 'LG'; headroom: bigint };

/**
 * TradingLimits.update then verify, as the Broker Celo runs (v2.2.0) has them: the limit's state after `flow` (raw
 * units; into the Reserve positive), or the limit it breaks. Whole tokens are counted, truncated toward zero, and a
 * flow of less than one whole token either way, or none at all, counts as **+1** (`_deltaFlowUnits == 0 ? 1 : …`): an
 * outflow of dust adds to the inflow. Later sources count it with its sign; the deployed Broker does not.
 */
export function afterFlow(limit: TradingLimit, flow: bigint, now: bigint): { state: TradingLimit } | { breach: LimitBreach } {
  let units = flow / 10n ** BigInt(limit.decimals);
  if (units === 0n) units = 1n;
  if (units > MAX_INT48 || units < -MAX_INT48 - 1n) return { breach: { limit: 'LG', headroom: 0n } };
  const next = { ...limit };
  if (limit.flags & L0) {
    if (now > next.lastUpdated0 + next.timestep0) {
      next.netflow0 = 0n;
      next.lastUpdated0 = now;
    }
    next.netflow0 += units;
    if (limit.flags & L1) {
      if (now > next.lastUpdated1 + next.timestep1) {
        next.netflow1 = 0n;
        next.lastUpdated1 = now;
      }
      next.netflow1 += units;
    }
  }
  if (limit.flags & LG) next.netflowGlobal += units;
  const checks: [number, 'L0' | 'L1' | 'LG', bigint, bigint][] = [
    [L0, 'L0', next.netflow0, limit.limit0],
    [L1, 'L1', next.netflow1, limit.limit1],
    [LG, 'LG', next.netflowGlobal, limit.limitGlobal],
  ];
  for (const [flag, name, netflow, cap] of checks) {
    if (limit.flags & flag && (netflow > cap || netflow < -cap)) {
      const before = netflow - units;
      return { breach: { limit: name, headroom: units > 0n ? cap - before : cap + before } };
    }
  }
  return { state: next };
}

/** Why `Broker.swapIn` would revert for a swap that `getAmountOut` prices. */
export type MentoRefusal =
  | { kind: 'halted'; tradingMode: number }
  | { kind: 'no-median' }
  | { kind: 'reserve'; holds: bigint }
  | { kind: 'limit'; token: 0 | 1; breach: LimitBreach };

/**
 * `Broker.swapIn` at `now` as the exchange, the BreakerBox, the trading limits and the Reserve run it: what it pays
 * and the exchange's state after it, or why it reverts.
 */
export function mentoSwap(
  state: MentoExchangeState,
  inIs0: boolean,
  amountIn: bigint,
  now: bigint,
): { amountOut: bigint; state: MentoExchangeState } | { refused: MentoRefusal } {
  if (state.tradingMode !== 0) return { refused: { kind: 'halted', tradingMode: state.tradingMode } };
  const buckets = bucketsAt(state, now);
  if (!buckets) return { refused: { kind: 'no-median' } };
  const [multiplierIn, multiplierOut] = inIs0 ? [state.multiplier0, state.multiplier1] : [state.multiplier1, state.multiplier0];
  const [inBucket, outBucket] = inIs0 ? [buckets.bucket0, buckets.bucket1] : [buckets.bucket1, buckets.bucket0];
  const scaledIn = amountIn * multiplierIn;
  const scaledOut = pricingAmountOut(state.pricing, inBucket, outBucket, state.spread, scaledIn);
  const amountOut = scaledOut / multiplierOut;
  const next: MentoExchangeState = {
    ...state,
    bucket0: buckets.bucket0,
    bucket1: buckets.bucket1,
    lastBucketUpdate: buckets.reset ? now : state.lastBucketUpdate,
  };
  if (state.pricing === 'ConstantProduct') {
    // The buckets move by the scaled amounts, the input's spread included.
    if (inIs0) [next.bucket0, next.bucket1] = [buckets.bucket0 + scaledIn, buckets.bucket1 - scaledOut];
    else [next.bucket0, next.bucket1] = [buckets.bucket0 - scaledOut, buckets.bucket1 + scaledIn];
  }
  // The flows into the Reserve: the input in, the output out; each token's limit is checked in that order.
  const flows: [0 | 1, bigint][] = inIs0
    ? [
        [0, amountIn],
        [1, -amountOut],
      ]
    : [
        [1, amountIn],
        [0, -amountOut],
      ];
  for (const [token, flow] of flows) {
    const limit = token === 0 ? state.limit0 : state.limit1;
    if (!limit) continue;
    const after = afterFlow(limit, flow, now);
    if ('breach' in after) return { refused: { kind: 'limit', token, breach: after.breach } };
    if (token === 0) next.limit0 = after.state;
    else next.limit1 = after.state;
  }
  const reserveOut = inIs0 ? state.reserve1 : state.reserve0;
  if (reserveOut !== undefined && reserveOut < amountOut) return { refused: { kind: 'reserve', holds: reserveOut } };
  const reserveIn = inIs0 ? state.reserve0 : state.reserve1;
  if (inIs0)
    [next.reserve0, next.reserve1] = [
      reserveIn === undefined ? undefined : reserveIn + amountIn,
      reserveOut === undefined ? undefined : reserveOut - amountOut,
    ];
  else
    [next.reserve1, next.reserve0] = [
      reserveIn === undefined ? undefined : reserveIn + amountIn,
      reserveOut === undefined ? undefined : reserveOut - amountOut,
    ];
  return { amountOut, state: next };
}
