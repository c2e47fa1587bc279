/**
 * A trade kind's terms: what it asks besides the fields every trade has (trade.ts), what it may spend, and the fields
 * its tag covers. These sit below the ledger, which stores each term in a column of its own (ledger/rows.ts), and
 * below the trade stage, whose kind modules (src/trade/kinds/) do the rest.
 */
import type { Address } from 'viem';
import type { Trade } from '../trade.ts';

/** Every term a kind may have, by name: the ledger's columns for them are named once, in ledger/rows.ts. */
export type KindTerms = {
  minAmountOut?: bigint;
  positionManager?: Address;
  positionId?: bigint;
  amountIn1?: bigint;
  liquidity?: bigint;
  burn?: boolean;
  fee?: number;
  tickLower?: number;
  tickUpper?: number;
  orderAmount?: bigint;
  orderOneRouteOut?: bigint;
};

/** The fields every trade has. */
export type CommonTerms = Omit<Trade, 'kind' | 'minAmountOut' | 'order' | 'position' | 'amountIn1' | 'liquidity' | 'burn' | 'fee' | 'range' | 'mint'>;

export interface TradeTerms<T extends Trade = Trade> {
  readonly kind: T['kind'];
  /** Its own terms, to store. */
  terms(trade: T): KindTerms;
  /** The trade again from the common fields and its stored terms; a term missing is no trade this code made (`missing`). */
  fromTerms(common: CommonTerms, terms: KindTerms, missing: (what: string) => never): T;
  /** What it may take from the wallet, token by token: at most these amounts, and nothing else. */
  spends(trade: T): { token: Address; amount: bigint }[];
  /** Its own fields in its request's tag, in a fixed order, after the fields every trade's tag has. */
  tagged(trade: T): unknown[];
}

export const decimal = (value: bigint | undefined) => value?.toString() ?? null;
export const lower = (value: string | undefined) => value?.toLowerCase() ?? null;

/** What a kind that sells `amountIn` of `tokenIn` spends. */
export const spendsAmountIn = (trade: Trade) => [{ token: trade.tokenIn, amount: trade.amountIn }];
