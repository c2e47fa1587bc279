/**
 * The daemon's side of a venue held to its own rate feed rather than to a history of its own (Mento's exchanges and
 * fixed-price pools): how a hop through it is proven, what of it the check stage reads in its one batch, and what it
 * is checked by before a signature. A pool kind with a history (Uniswap's) has none: its hops are proven by their
 * factory and held to their own average (src/price/). The routed checks (src/trade/check.ts) ask a hop's venue and
 * never its kind's name.
 */
import type { Address, Hex, PublicClient } from 'viem';
import type { FeePpm, KnownContracts } from '../config/chain-data.ts';
import type { RefusalReason } from '../model/refusal-reasons.ts';
import type { Unreadable } from './batch-read.ts';

/** Who besides the venue may gain in a swap through it, in the flow accounting's terms (guard/flows.ts). */
export type VenueFlows = {
  /** A reserve that may gain the collateral a hop pays into it, and nothing else. */
  reserves?: readonly { address: Address; token: Address }[];
  /** A pool that makes its one swap at its fees, and whose protocol fee recipient may take at most its share. */
  fixedPricePools?: readonly { address: Address; tokenIn: Address; feePpm: number; protocolFeeRecipient: Address; protocolFeeBps: bigint }[];
};

/** A hop through the venue with what it swaps: its input and what its adapter quotes it pays; `field` names it in the answer. */
export type VenueSwap<Facts> = { facts: Facts; tokenIn: Address; amountIn: bigint; quotedOut: bigint; field: string };

/** The venues of one kind a chain's data lists, read once per process (and again when a hop names one not among them). */
export type VenueList<Facts> = {
  /** The venue a hop's `extras` (the answer's `field`) name, proven for these two tokens; refused by name otherwise. */
  verify(extras: Hex, tokenIn: Address, tokenOut: Address, field: string): Promise<Facts>;
};

// Members are methods: a venue of one kind of facts stands for every venue where the facts are not known.
export interface FeedVenue<Facts = unknown, State = unknown> {
  /** The chain data's venues of this kind. */
  list(client: PublicClient, known: KnownContracts): VenueList<Facts>;
  /** The address the hop swaps at (the key of a v2 exchange), and the fee it charges, in millionths. */
  poolOf(facts: Facts): Address;
  feePpmOf(facts: Facts): FeePpm;
  /** How refusals name it. */
  nameOf(facts: Facts): string;
  /** Each hop's state at the latest block, in the tick of the check's batch (one call per kind). */
  readStates(client: PublicClient, facts: readonly Facts[]): Promise<(State | Unreadable)[]>;
  /** Why it would take no swap at all in the block after `now`, whatever its size (its quote then reverts), or nothing. */
  closedBecause(facts: Facts, state: State, now: bigint): { reason: RefusalReason; why: string } | undefined;
  /** It would take this swap now, and pays within the tolerance of its feed's reference; refused (GuardRefusal) otherwise. */
  checkSwap(swap: VenueSwap<Facts>, state: State, now: bigint, toleranceBps: number): void;
  /** The facts with what the state read says now (governance may change fees since the venue was verified). */
  withState(facts: Facts, state: State): Facts;
  /** Who besides it may gain in a hop through it. */
  flows(facts: Facts, hop: { tokenIn: Address; feePpm: number }): VenueFlows;
}

/** A verified hop's venue: the module of its kind and the facts it proved. */
export type VenueOfHop = { of: FeedVenue; facts: unknown };
