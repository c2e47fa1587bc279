/** What a trade kind proposes before its checks: the routing service's answer, or the kind's own word that it needs none. */
import type { EarnRoute, SwapRoute } from '../routing-api/schemas.ts';

export type SwapProposal = { kind: 'swap'; route: SwapRoute };
export type FarmProposal = { kind: 'deposit' | 'withdraw'; route: EarnRoute };
/** A claim needs no quote: the gauge pays what has accrued. */
export type ClaimProposal = { kind: 'claim' };
/** Nor does a trade on a V3 position: the position manager and the pool are read from the chain, never asked. */
export type PositionProposal = { kind: 'position' };

export type Proposal = SwapProposal | FarmProposal | ClaimProposal | PositionProposal;

/** A proposal of the routing service (a swap, a deposit, a withdraw) or a claim's: what the routed check stage checks. */
export type RoutedProposal = Exclude<Proposal, PositionProposal>;

/** The proposal, if it is of one of `kinds`; a kind's checks never run on another kind's proposal. */
export function proposalOf<K extends Proposal['kind']>(proposal: Proposal, ...kinds: K[]): Extract<Proposal, { kind: K }> {
  if (!(kinds as string[]).includes(proposal.kind)) throw new Error(`check: a ${proposal.kind} proposal for a ${kinds.join(' or ')} trade`);
  return proposal as Extract<Proposal, { kind: K }>;
}
