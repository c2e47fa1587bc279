/**
 * What a strategy's settled trades add up to, folded one trade at a time. A settled trade (confirmed, anomaly,
 * refused, failed, dry run) never changes again (the ledger's transition table sees to it), so each is folded
 * exactly once and the tally is exact however long the history: a status kept up to date holds one tally per
 * strategy instead of every trade.
 */
import type { PositionMark } from '../ledger/marks.ts';
import type { PositionTrack } from './position-track.ts';
import type { Strategy } from '../strategy/types.ts';
import type { OrderStart, TradeRecord, TradeState } from '../model/trade.ts';
import type { BalanceMark } from '../ledger/ledger.ts';
import type { Token } from './amounts.ts';
import type { PriceBook } from './prices.ts';
import type { TradeEffect } from '../trade/kinds/kind.ts';
import { kindOf } from '../trade/kinds/registry.ts';
import { orderOfSlot, parseSliceKey, parseTradeSlot } from '../model/trade-slot.ts';

/** What accounting reads besides a strategy's trades. */
export type Books = {
  prices: PriceBook;
  /** The chain's coin, as gas is paid in it; priced under the 'native' mark. */
  native: Token;
  /** Gas paid in wei per trade id, every mined or reverted transaction of it. */
  gas: ReadonlyMap<string, bigint>;
  /** The recorded balances of a wallet, oldest first. */
  balances(wallet: string): readonly BalanceMark[];
  /** A token the strategies do not describe (a gauge's position token), by address. */
  token(address: string): Token;
  /** When prices were last observed (unchanged ones write no row): value charts reach this time. */
  markedAt?: number;
  /** A V3 position strategy's marks, as folded (status/position-track.ts). */
  positionTrack?(strategyId: string): PositionTrack | undefined;
  /** A V3 position strategy's marks, oldest first. */
  positionMarks?(strategyId: string): readonly PositionMark[];
};

/** How often a reason came up, and its most recent detail. */
export type Counted = { reason: string; count: number; last: string };

export type LimitFillRecord = { createdAt: number; slot: string; amountIn: bigint; amountOut: bigint; txHash: string };

export type Tally = {
  counts: Partial<Record<TradeState, number>>;
  /**
   * A V3 position's collects and adds (position-runner.ts): tokens collected and their value when collected, what
   * went back in (fees collected with a removal count as fees); its removals (what their liquidity freed) and the
   * positions its re-ranges opened.
   */
  position: {
    collected0: bigint;
    collected1: bigint;
    collectedValue: bigint | undefined;
    compounds: number;
    added0: bigint;
    added1: bigint;
    liquidityAdded: bigint;
    removals: number;
    removed0: bigint;
    removed1: bigint;
    reRanges: number;
  };
  firstAt: number | undefined;
  gasWei: bigint;
  /** Gas at the value token's price when each trade was made; undefined once a trade's gas had no price. */
  gasValue: bigint | undefined;
  partnerFees: Map<string, bigint>;
  partnerFeesUnknown: number;
  refusals: Map<string, Counted>;
  failures: Map<string, Counted>;
  /** Confirmed trades whose receipt showed what the wallet received. */
  fills: number;
  firstFill: { createdAt: number; amountIn: bigint; amountOut: bigint } | undefined;
  invested: bigint;
  received: bigint;
  /** Swaps only (a rebalance): how each token's holding moved, and the value token traded. */
  swaps: number;
  firstSwapAt: number | undefined;
  deltas: Map<string, bigint>;
  turnover: bigint;
  /** A limit order's fills (one-shot orders: a few). */
  limitFills: LimitFillRecord[];
  /**
   * The latest order worked in slices (engine/worked-order.ts): its slices confirmed, what they sold and bought, and
   * what they would have bought at the reference when each was made (undefined once one had no price).
   */
  lastOrder: OrderTally | undefined;
  /** A compound strategy's claims, re-deposits and withdrawals. */
  claimed: bigint;
  claimedValue: bigint | undefined;
  deposits: number;
  lpAdded: bigint;
  withdrawals: number;
  withdrawnPosition: bigint;
  withdrawnReceived: bigint;
};

export type OrderTally = {
  order: string;
  tokenIn: string;
  tokenOut: string;
  slices: number;
  sold: bigint;
  bought: bigint;
  atReference: bigint | undefined;
  lastAt: number;
  /** The order as it started, as its slices name it: what one route was quoted to pay for all of it. */
  start: OrderStart | undefined;
};

export function emptyTally(): Tally {
  return {
    counts: {},
    firstAt: undefined,
    gasWei: 0n,
    gasValue: 0n,
    partnerFees: new Map(),
    partnerFeesUnknown: 0,
    refusals: new Map(),
    failures: new Map(),
    fills: 0,
    firstFill: undefined,
    invested: 0n,
    received: 0n,
    swaps: 0,
    firstSwapAt: undefined,
    deltas: new Map(),
    turnover: 0n,
    limitFills: [],
    lastOrder: undefined,
    position: {
      collected0: 0n,
      collected1: 0n,
      collectedValue: 0n,
      compounds: 0,
      added0: 0n,
      added1: 0n,
      liquidityAdded: 0n,
      removals: 0,
      removed0: 0n,
      removed1: 0n,
      reRanges: 0,
    },
    claimed: 0n,
    claimedValue: 0n,
    deposits: 0,
    lpAdded: 0n,
    withdrawals: 0,
    withdrawnPosition: 0n,
    withdrawnReceived: 0n,
  };
}

const settledStates: ReadonlySet<TradeState> = new Set<TradeState>(['confirmed', 'anomaly', 'refused', 'failed', 'dry-run']);
export const isSettled = (trade: TradeRecord) => settledStates.has(trade.status);

function count(counted: Map<string, Counted>, reason: string, detail: string): void {
  const entry = counted.get(reason) ?? { reason, count: 0, last: detail };
  entry.count++;
  entry.last = detail;
  counted.set(reason, entry);
}

/** The token strategies value everything in: what a DCA spends, a rebalance's quote, what a limit order buys. */
export function valueTokenOf(strategy: Strategy) {
  switch (strategy.kind) {
    case 'dca':
      return strategy.sell;
    case 'rebalance':
      return strategy.quote;
    case 'limit':
      return strategy.buy;
    case 'compound':
    case 'uniswap-v3-position':
      return strategy.valueToken;
  }
}

/** Gas a trade paid, into the tally's totals (settled trades once; open ones at each report, on a copy). */
export function addGas(tally: Tally, strategy: Strategy, trade: TradeRecord, books: Books): void {
  const paid = books.gas.get(trade.id) ?? 0n;
  if (paid === 0n) return;
  tally.gasWei += paid;
  const value = books.prices.convert(paid, { address: 'native', decimals: books.native.decimals }, valueTokenOf(strategy), trade.createdAt);
  tally.gasValue = value === undefined || tally.gasValue === undefined ? undefined : tally.gasValue + value;
}

/** Adds one settled trade to the tally. */
export function foldTrade(tally: Tally, strategy: Strategy, trade: TradeRecord, books: Books): void {
  tally.counts[trade.status] = (tally.counts[trade.status] ?? 0) + 1;
  tally.firstAt = Math.min(tally.firstAt ?? trade.createdAt, trade.createdAt);
  addGas(tally, strategy, trade, books);
  if (trade.status === 'refused') count(tally.refusals, trade.failure?.refusal ?? 'refused', trade.failure?.reason ?? '');
  if (trade.status === 'failed') count(tally.failures, trade.failure?.errorClass ?? 'failed', trade.failure?.reason ?? '');
  const amountOut = trade.settlement?.amountOut;
  if (trade.status !== 'confirmed' || amountOut === undefined) return;
  tally.fills++;
  if (!tally.firstFill || trade.createdAt < tally.firstFill.createdAt) tally.firstFill = { createdAt: trade.createdAt, amountIn: trade.amountIn, amountOut };
  tally.invested += trade.amountIn;
  tally.received += amountOut;
  // What the trade did, as its kind says (src/trade/kinds/): the folds below never ask which kind it is.
  const effect = kindOf(trade).effect(trade, amountOut);
  if (effect.swapped) foldSwap(tally, strategy, trade, amountOut, effect.swapped.partnerFee);
  if (effect.swapped && parseSliceKey(parseTradeSlot(trade.slot).key ?? '')) foldSlice(tally, trade, amountOut, books);
  if (strategy.kind === 'limit')
    tally.limitFills.push({ createdAt: trade.createdAt, slot: trade.slot, amountIn: trade.amountIn, amountOut, txHash: trade.settlement?.txHash ?? '' });
  if (strategy.kind === 'compound') foldCompound(tally, strategy, trade, effect, books);
  if (strategy.kind === 'uniswap-v3-position') foldPosition(tally, strategy, trade, effect, books);
}

/** A V3 position's collects (the fees, at their value when collected), adds (what went back in, and the liquidity), removals and re-ranges. */
function foldPosition(tally: Tally, strategy: Strategy & { kind: 'uniswap-v3-position' }, trade: TradeRecord, effect: TradeEffect, books: Books): void {
  const { token0, token1 } = strategy.pool;
  const fees = tally.position;
  if (effect.feesCollected) {
    const { amount0: earned0, amount1: earned1 } = effect.feesCollected;
    fees.collected0 += earned0;
    fees.collected1 += earned1;
    const value0 = books.prices.convert(earned0, token0, strategy.valueToken, trade.createdAt);
    const value1 = books.prices.convert(earned1, token1, strategy.valueToken, trade.createdAt);
    fees.collectedValue = value0 === undefined || value1 === undefined || fees.collectedValue === undefined ? undefined : fees.collectedValue + value0 + value1;
  }
  if (effect.added) {
    fees.compounds++;
    fees.added0 += effect.added.amount0;
    fees.added1 += effect.added.amount1;
    fees.liquidityAdded += effect.added.liquidity;
  }
  if (effect.removed) {
    fees.removals++;
    fees.removed0 += effect.removed.amount0;
    fees.removed1 += effect.removed.amount1;
  }
  if (effect.opened) fees.reRanges++;
}

function foldSwap(tally: Tally, strategy: Strategy, trade: TradeRecord, amountOut: bigint, fee: bigint | undefined): void {
  if (fee === undefined) tally.partnerFeesUnknown++;
  else if (fee > 0n) tally.partnerFees.set(trade.tokenOut.toLowerCase(), (tally.partnerFees.get(trade.tokenOut.toLowerCase()) ?? 0n) + fee);
  tally.swaps++;
  tally.firstSwapAt = Math.min(tally.firstSwapAt ?? trade.createdAt, trade.createdAt);
  const [tokenIn, tokenOut] = [trade.tokenIn.toLowerCase(), trade.tokenOut.toLowerCase()];
  tally.deltas.set(tokenOut, (tally.deltas.get(tokenOut) ?? 0n) + amountOut);
  tally.deltas.set(tokenIn, (tally.deltas.get(tokenIn) ?? 0n) - trade.amountIn);
  const quote = valueTokenOf(strategy).address.toLowerCase();
  tally.turnover += tokenOut === quote ? amountOut : tokenIn === quote ? trade.amountIn : 0n;
}

/** A confirmed slice of an order worked over time: the latest order's figures (a later order starts them anew). */
function foldSlice(tally: Tally, trade: TradeRecord, amountOut: bigint, books: Books): void {
  const order = orderOfSlot(trade.slot);
  const last = tally.lastOrder;
  if (last && last.order !== order && last.lastAt > trade.createdAt) return;
  const current =
    last?.order === order
      ? last
      : {
          order,
          tokenIn: trade.tokenIn.toLowerCase(),
          tokenOut: trade.tokenOut.toLowerCase(),
          slices: 0,
          sold: 0n,
          bought: 0n,
          atReference: 0n,
          lastAt: 0,
          start: undefined,
        };
  const reference = books.prices.convert(trade.amountIn, books.token(current.tokenIn), books.token(current.tokenOut), trade.createdAt);
  tally.lastOrder = {
    ...current,
    slices: current.slices + 1,
    sold: current.sold + trade.amountIn,
    bought: current.bought + amountOut,
    atReference: reference === undefined || current.atReference === undefined ? undefined : current.atReference + reference,
    lastAt: Math.max(current.lastAt, trade.createdAt),
    start: current.start ?? (trade.kind === 'swap' ? trade.order : undefined),
  };
}

function foldCompound(tally: Tally, strategy: Strategy & { kind: 'compound' }, trade: TradeRecord, effect: TradeEffect, books: Books): void {
  if (effect.claimed !== undefined) {
    tally.claimed += effect.claimed;
    const value = books.prices.convert(effect.claimed, strategy.gauge.rewardToken, strategy.valueToken, trade.createdAt);
    tally.claimedValue = value === undefined || tally.claimedValue === undefined ? undefined : tally.claimedValue + value;
  }
  if (effect.deposited !== undefined) {
    tally.deposits++;
    tally.lpAdded += effect.deposited;
  }
  if (effect.withdrawn) {
    tally.withdrawals++;
    tally.withdrawnPosition += effect.withdrawn.position;
    tally.withdrawnReceived += effect.withdrawn.received;
  }
}

/** A run that failed before it traded, counted with the failures. */
export function foldFailedRun(tally: Tally, note: string): void {
  count(tally.failures, 'before trading', note);
}

/** A copy that can take open trades' gas without changing the kept tally. */
export const withOpenGas = (tally: Tally, strategy: Strategy, open: readonly TradeRecord[], books: Books): Tally => {
  if (!open.some((trade) => (books.gas.get(trade.id) ?? 0n) > 0n)) return tally;
  const copy = { ...tally };
  for (const trade of open) addGas(copy, strategy, trade, books);
  return copy;
};
