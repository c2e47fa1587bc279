/**
 * A kind of trade, in one module (src/trade/kinds/): what it asks the routing service (or that it asks nothing), its
 * checks, its call's return value, what its receipt shows, the tokens its call can move, and how it reads in words.
 * Every stage asks the trade's kind (registry.ts) rather than branching on it; what the ledger stores of a kind and
 * what it spends are its terms, below the ledger (src/model/kinds/).
 */
import type { Address, Hex, Log } from 'viem';
import type { Preflight } from '../../chain/preflight.ts';
import type { Settlement, Trade, TradeRecord } from '../../model/trade.ts';
import type { RoutingClient } from '../../routing-client/client.ts';
import type { BuiltCall } from '../call-types.ts';
import type { CheckContext, Checked } from '../check-types.ts';
import type { Proposal } from '../proposal.ts';
import type { TokenNames } from '../token-names.ts';

/** What a quote is asked with: the pools this trade's checks refused a route for are avoided. */
export type QuoteAsk = { routing: RoutingClient; signal?: AbortSignal; avoid: readonly Address[] };

/** What a mined receipt shows a trade did, and why it cannot be trusted, if it cannot. */
export type Outcome = { amountOut?: bigint; reportedOut?: bigint; partnerFee?: bigint; position?: Settlement['position']; anomaly?: string };

/**
 * What a confirmed trade did, in the terms the strategies' accounting reads (src/status/): none of them names a kind.
 * Amounts are raw; `amountOut` is what its settlement says arrived.
 */
export type TradeEffect = {
  /** Sold `amountIn` of tokenIn for `amountOut` of tokenOut; what its routing partner took (undefined: not known). */
  swapped?: { partnerFee?: bigint };
  /** A gauge's rewards, in tokenOut. */
  claimed?: bigint;
  /** Farm position tokens received for what it deposited. */
  deposited?: bigint;
  /** Farm position tokens spent, and what they paid. */
  withdrawn?: { position: bigint; received: bigint };
  /** A V3 position's fees collected (a collect's, or those a removal collected beside what it freed). */
  feesCollected?: { amount0: bigint; amount1: bigint };
  /** What went into a V3 position, and the liquidity it bought. */
  added?: { amount0: bigint; amount1: bigint; liquidity: bigint };
  /** What a removal's liquidity freed. */
  removed?: { amount0: bigint; amount1: bigint };
  /** A new V3 position was opened (a re-range's). */
  opened?: boolean;
};

/** What a trade report shows of the trade, for words. */
export type Asked = Pick<Trade, 'kind' | 'tokenIn' | 'tokenOut' | 'amountIn'>;

/** What a replacement's recheck needs besides the chain: the route verifier and prices, and the strategy's tolerance. */
export type RecheckContext = Pick<CheckContext, 'wallet' | 'settings'> & Partial<Pick<CheckContext, 'routes' | 'prices' | 'priceToleranceBps'>>;

// Members are methods: a kind of one trade type stands in the registry for every trade of its kind.
export interface TradeKindModule<T extends Trade = Trade> {
  readonly kind: T['kind'];
  /** The routing service's proposal, or the kind's own (it needs none). */
  quote(trade: T, ask: QuoteAsk): Promise<Proposal>;
  /** Every check before the signature, as the kind's declared list. */
  check(ctx: CheckContext, trade: T, proposal: Proposal): Promise<Checked>;
  /** The names of its checks, in the order they run (docs/safety.md cites them). */
  readonly checks: readonly string[];
  /** The call's return value as the amount it pays (the same for a stored call after a restart). */
  paid(returned: Hex): bigint;
  /**
   * Before a signed call is replaced (a new signature), what can change with time besides the deadline and the
   * simulation's minimum: a swap's price against the oracle now.
   */
  recheck?(ctx: RecheckContext, trade: T, call: Pick<BuiltCall, 'target' | 'data' | 'minOut'>, reads: Preflight, paysNow: bigint): Promise<void>;
  /** What its mined receipt shows. */
  outcome(record: T & Pick<TradeRecord, 'call'>, receipt: { logs: readonly Log[] }): Outcome;
  /**
   * What the wallet's balances of the trade's two tokens must show after it (their changes, in tokenIn and tokenOut
   * order), against what its receipt said it moved: each problem in words, none when they agree.
   */
  balanceProblems(record: T & Pick<TradeRecord, 'call'>, changes: readonly [bigint, bigint], mined: Pick<Outcome, 'amountOut' | 'position'>): string[];
  /** What it did, once confirmed with `amountOut` arrived (accounting's terms). */
  effect(record: T & Pick<TradeRecord, 'settlement'>, amountOut: bigint): TradeEffect;
  /** The tokens it brings to the wallet (what a block's balances must grow by at least what its receipt shows). */
  receives(record: T): readonly Address[];
  /** The tokens its call can move besides its own two (a route's intermediate tokens). */
  callTokens(data: Hex): readonly Address[];
  /** What was asked, as a verb phrase: "sell 10 cUSD for CELO". */
  asked(trade: Asked, names: TokenNames): string;
  /** What was done, in the past tense, with what it paid (`moved`: what a position trade moved of each token). */
  done(trade: Asked, amountOut: bigint | undefined, names: TokenNames, moved?: Settlement['position']): string;
}
