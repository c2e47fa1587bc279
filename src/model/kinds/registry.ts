/** Every kind's terms (terms.ts), by name; and what a trade may spend, asked of its kind. */
import type { Address } from 'viem';
import type { Trade, TradeKind } from '../trade.ts';
import { addLiquidityTerms, collectTerms, mintTerms, movePositionTerms, removeLiquidityTerms } from './position.ts';
import { claimTerms, depositTerms, swapTerms, withdrawTerms } from './routed.ts';
import type { TradeTerms } from './terms.ts';

export const tradeTerms: { readonly [K in TradeKind]: TradeTerms<Extract<Trade, { kind: K }>> } = {
  swap: swapTerms,
  deposit: depositTerms,
  withdraw: withdrawTerms,
  claim: claimTerms,
  collect: collectTerms,
  'add-liquidity': addLiquidityTerms,
  'remove-liquidity': removeLiquidityTerms,
  mint: mintTerms,
  'move-position': movePositionTerms,
};

export const termsOf = (kind: TradeKind): TradeTerms => tradeTerms[kind] as TradeTerms;

/** What a trade may take from the wallet, token by token: at most these amounts, and nothing else. */
export const spentTokens = (trade: Trade): { token: Address; amount: bigint }[] => termsOf(trade.kind).spends(trade);

/** How much of `token` a trade may take from the wallet (an add or a mint spends two tokens). */
export const spentOf = (trade: Trade, token: Address): bigint =>
  spentTokens(trade).reduce((sum, spend) => (spend.token.toLowerCase() === token.toLowerCase() ? sum + spend.amount : sum), 0n);
