/** The terms of a swap, a deposit, a withdrawal and a claim. */
import type { ClaimTrade, DepositTrade, SwapTrade, WithdrawTrade } from '../trade.ts';
import { type TradeTerms, decimal, spendsAmountIn } from './terms.ts';

/**
 * A swap's term is the strategy's floor (a price limit or take-profit level); a slice of an order worked in slices
 * also names the order as it started, a figure for `status` that its tag does not cover (it decides nothing).
 */
export const swapTerms: TradeTerms<SwapTrade> = {
  kind: 'swap',
  terms: (trade) => ({ minAmountOut: trade.minAmountOut, orderAmount: trade.order?.amountIn, orderOneRouteOut: trade.order?.oneRouteOut }),
  fromTerms: (common, terms) => ({
    ...common,
    kind: 'swap',
    ...(terms.minAmountOut !== undefined && { minAmountOut: terms.minAmountOut }),
    ...(terms.orderAmount !== undefined &&
      terms.orderOneRouteOut !== undefined && { order: { amountIn: terms.orderAmount, oneRouteOut: terms.orderOneRouteOut } }),
  }),
  spends: spendsAmountIn,
  tagged: (trade) => [decimal(trade.minAmountOut)],
};

/** Every tag has the floor's place; a kind without one leaves it empty (as tags were always made). */
const noFloor = () => [null];

export const depositTerms: TradeTerms<DepositTrade> = {
  kind: 'deposit',
  terms: () => ({}),
  fromTerms: (common) => ({ ...common, kind: 'deposit' }),
  spends: spendsAmountIn,
  tagged: noFloor,
};

export const withdrawTerms: TradeTerms<WithdrawTrade> = {
  kind: 'withdraw',
  terms: () => ({}),
  fromTerms: (common) => ({ ...common, kind: 'withdraw' }),
  spends: spendsAmountIn,
  tagged: noFloor,
};

/** A claim spends nothing: `tokenIn` is the gauge, `amountIn` the rewards observed. */
export const claimTerms: TradeTerms<ClaimTrade> = {
  kind: 'claim',
  terms: () => ({}),
  fromTerms: (common) => ({ ...common, kind: 'claim' }),
  spends: () => [],
  tagged: noFloor,
};
