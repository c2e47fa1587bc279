/**
 * The check stage of a trade the routing service proposed (a swap, a deposit, a withdraw) or a claim's: a declared
 * list of named checks (check-runner.ts), each trade kind's own (src/trade/kinds/), built from the checks below and
 * its own. The routing service is untrusted: its answer must be about exactly what we asked, every contract must be
 * known for the chain, the call is our own encoding, and a simulation of the exact transactions must pay our
 * minimum. A failing check throws a GuardRefusal naming its reason (and the check); nothing is signed.
 *
 * The chain is read once for most of them: the route's pools, the prices, the block, fees, nonce, allowance, a
 * simulation of the exact transactions after the wallet's transactions in flight, and the state of each venue that
 * is held to a feed rather than to a history (Mento's). The simulated call is ours with the minimum the quote and
 * our slippage give; the minimum we sign (`call-is-ours`) may only be higher, once the reference is known. The known
 * router and OneClickFarm use the minimum only to revert a call paying less, so the call we sign does on this chain
 * exactly what was simulated, as long as what was simulated pays that higher minimum (`simulation` checks it).
 */
import { type Address, type Hex, type Log, isAddressEqual } from 'viem';
import { type CallResult, preflight } from '../chain/preflight.ts';
import type { ChainClient } from '../chains.ts';
import type { AddressBook } from '../config/address-book.ts';
import { chainTimingFor, knownContractsFor, priceSourcesFor } from '../config/chain-data.ts';
import type { HopQuoteRead } from '../contracts/hop-quoter.ts';
import { type FlowRules, type ProvenSwap, accountFlows, flowsOf } from '../guard/flows.ts';
import { checkContractsAllowed, checkDeadline, checkMarket, checkPrice } from '../guard/guards.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import { type PoolKind, RouteVerifier, type UnlistedHop, type VerifiedFarm, type VerifiedHop, isUnlisted } from '../guard/route.ts';
import type { Trade } from '../model/trade.ts';
import { abortable } from '../ops/abort.ts';
import type { Unreadable } from '../pools/kind.ts';
import type { FeedVenue, VenueOfHop } from '../pools/venue.ts';
import { PriceReference } from '../price/reference.ts';
import { approvalsOf } from './approvals.ts';
import type { BuiltCall } from './call-types.ts';
import type { CheckContext, Checked } from './check-types.ts';
import { CallCheckFields, type CallCheckState, callChecks } from './call-checks.ts';
import { type NamedCheck, SharedRead, filledIn, runChecks } from './check-runner.ts';
import type { Proposal, RoutedProposal } from './proposal.ts';
import { withPriceRefusals } from './price-refusals.ts';
import type { Reference } from './reference.ts';

export type { CheckContext, Checked } from './check-types.ts';

/**
 * What the checks hold a chain's quotes to: its known contracts and its independent prices (built-in data and
 * the address book), and our partner id (that of our API key), which quotes may carry besides 0.
 */
export function chainChecks(client: ChainClient, chainId: number, book?: AddressBook, ourPartner?: bigint): Pick<CheckContext, 'routes' | 'prices'> {
  const known = knownContractsFor(chainId, book);
  const partners = ourPartner === undefined ? known.partners : [...known.partners, ourPartner];
  const { blockTimeSeconds, sequencer } = chainTimingFor(chainId, book);
  return {
    routes: new RouteVerifier({ ...known, partners }, client),
    prices: new PriceReference(client, priceSourcesFor(chainId, book), { sequencer, averages: { blockTimeSeconds } }),
  };
}

export type RouteHop = VerifiedHop | UnlistedHop;
/** What the route checks proved: a swap's hops, or a farm and its legs' hops (a claim has no route). */
export type Verified = { hops: RouteHop[] } | { farm: VerifiedFarm; legs: { inputAmount: bigint; hops: RouteHop[] }[] } | undefined;

/** What the flow accounting holds a routed trade's simulation to, besides the trade itself. */
export type FlowTerms = { router: Address; partners: readonly bigint[]; farm?: { address: Address; verified: VerifiedFarm }; paysAtMost?: boolean };

/** What a routed trade kind gives the check stage: its proposal read, its route proven, its reference, its call. */
export type RoutedKind = {
  /** The proposal, if it is of this kind; the stage never checks one of another kind. */
  proposalOf(proposal: Proposal): RoutedProposal;
  /** The answer is about what we asked: our tokens, our amount, one expected output, a farm to use. */
  checkAnswer(trade: Trade, proposal: RoutedProposal): void;
  /** The router, OneClickFarm or gauge the call targets and approves. */
  contracts(trade: Trade, proposal: RoutedProposal): { router?: Address; oneClickFarm?: Address; gauge?: Address };
  /** Every adapter, pool and token the route runs through is known (a claim has no route). */
  verify(routes: RouteVerifier, trade: Trade, proposal: RoutedProposal): Promise<Verified>;
  /** What the trade should pay without the service (`quoted`: the hop quotes read beside the simulation). */
  reference(
    ctx: CheckContext,
    trade: Trade,
    proposal: RoutedProposal,
    verified: Verified,
    quoted: () => Promise<CallResult | undefined>,
  ): Promise<Reference | undefined>;
  /** Our call: `floor` is what our minimum may not go below, `referenceOut` what the reference said. */
  call(trade: Trade, proposal: RoutedProposal, floor?: bigint, referenceOut?: bigint): BuiltCall;
  /** The call's return value as the amount it pays. */
  paid(returned: Hex): bigint;
  /** The per-hop quotes read in the simulation, on the state the call meets (a swap's). */
  quoteRead?(trade: Trade, proposal: RoutedProposal): HopQuoteRead;
  /** The terms of the flow accounting (none: the kind moves no route, a known gauge paying its own). */
  flowTerms?(trade: Trade, proposal: RoutedProposal, call: BuiltCall, verified: NonNullable<Verified>): FlowTerms;
  /** The kind's checks, in order. */
  readonly checks: readonly NamedCheck<RoutedCheck>[];
};

/** A hop through a venue held to its own feed (src/pools/venue.ts), and its place in the route. */
type VenueHop = { hop: VerifiedHop & { venue: VenueOfHop }; index: number; field: string };

/** What the checks of one routed trade share: the trade, its proposal, the reads of the batch, and what passed. */
export class RoutedCheck extends CallCheckFields implements CallCheckState {
  readonly ctx: CheckContext;
  readonly trade: Trade;
  readonly proposal: RoutedProposal;
  readonly kind: RoutedKind;
  /** Filled by `route-known`. */
  verified: Verified = undefined;
  /** The call simulated (ours, at the quote's minimum), and the approvals it needs. */
  simulated: BuiltCall | undefined;
  /** Filled by `reference-read`, `chain-read`, `call-is-ours`, ... in the order of the list. */
  reference: Reference | undefined;
  call: BuiltCall | undefined;
  swaps: ProvenSwap[] | undefined;
  /** Each venue hop's state at the latest block, in the order of `venueHops()` (once `venues-open` found them readable). */
  venueStates: unknown[] | undefined;

  /** The batch: each read starts when the runner starts the reads, all in one tick. */
  readonly chain = new SharedRead(() => {
    const simulated = this.kind.call(this.trade, this.proposal);
    this.simulated = simulated;
    this.approvals = simulated.spender ? approvalsOf(this.trade, simulated.spender, this.ctx.settings) : [];
    return preflight(this.ctx.wallet.client, {
      from: this.trade.wallet,
      to: simulated.target,
      data: simulated.data,
      approvals: this.approvals,
      before: this.ctx.wallet.inFlightCalls(),
      quote: this.verified ? this.kind.quoteRead?.(this.trade, this.proposal) : undefined,
    });
  });
  readonly referenceRead = new SharedRead(() =>
    withPriceRefusals(() => this.kind.reference(this.ctx, this.trade, this.proposal, this.verified, () => this.chain.start().then((reads) => reads.quote))),
  );
  readonly steadiness = new SharedRead(() => checkPoolsSteady(this.ctx, poolsOf(this.verified)));
  readonly venues = new SharedRead(() => readVenueStates(this.ctx.wallet.client, this.venueHops()));

  constructor(ctx: CheckContext, trade: Trade, proposal: RoutedProposal, kind: RoutedKind) {
    super();
    this.ctx = ctx;
    this.trade = trade;
    this.proposal = proposal;
    this.kind = kind;
  }

  /** The route's hops through a venue held to its own feed (a swap's only: a farm's legs may not use one). */
  venueHops(): VenueHop[] {
    const { verified } = this;
    if (!verified || !('hops' in verified)) return [];
    return verified.hops.flatMap((hop, index) =>
      !isUnlisted(hop) && hop.venue ? [{ hop: hop as VenueHop['hop'], index, field: `details.pairs[${index}]` }] : [],
    );
  }

  paid(returned: Hex): bigint {
    return this.kind.paid(returned);
  }

  simulatedMinimum(): bigint | undefined {
    return this.filled('call').minOut;
  }

  /** A value a check before this one filled in (the list's order guarantees it). */
  filled<K extends 'reference' | 'reads' | 'call' | 'fees'>(key: K): NonNullable<this[K]> {
    return filledIn(this, key);
  }
}

/** Runs a routed kind's checks; a refusal about one verified hop names its pool, so that another route may avoid it. */
export async function checkRouted(ctx: CheckContext, trade: Trade, proposal: Proposal, kind: RoutedKind): Promise<Checked> {
  const state = new RoutedCheck(ctx, trade, kind.proposalOf(proposal), kind);
  const passed = await runChecks(kind.checks, state, ctx.signal).catch((error: unknown) => {
    throw namingVenue(error, state.verified);
  });
  const fees = state.filled('fees');
  return {
    call: state.filled('call'),
    reference: state.reference,
    approvals: state.needed,
    reads: state.filled('reads'),
    fees: ctx.wallet.fees.capped(fees),
    gas: state.gas,
    simulatedOut: state.simulatedOut,
    passed,
  };
}

/** An amount less a tolerance in basis points (rounded down). */
export const tolerated = (amount: bigint, toleranceBps: number) => (amount * BigInt(10_000 - toleranceBps)) / 10_000n;

/**
 * The named checks a routed kind's list is made of, in the order kinds list them. `docs/safety.md` cites them by name.
 */
export const routedChecks = {
  /** The answer is about what we asked. */
  answerIsOurs: { name: 'answer-is-ours', verify: (s) => s.kind.checkAnswer(s.trade, s.proposal) },
  /** The router, OneClickFarm or gauge the call targets and approves is known for this chain. */
  contractsKnown: { name: 'contracts-known', verify: (s) => checkContractsAllowed(s.ctx.routes.known, s.kind.contracts(s.trade, s.proposal)) },
  /** Every adapter, pool and token the route runs through is known, and a farm names exactly our position. */
  routeKnown: {
    name: 'route-known',
    verify: async (s) => {
      s.verified = await abortable(s.kind.verify(s.ctx.routes, s.trade, s.proposal), s.ctx.signal);
    },
  },
  /**
   * No pool the route swaps in was moved away from its time-weighted average within the window: a trade in the block
   * before ours would otherwise set our price (and, for a token priced by its pool, the reference too). A moved pool
   * is reported as such, before any price it caused.
   */
  poolsSteady: { name: 'pools-steady', reads: (s) => void s.steadiness.start(), verify: (s) => s.steadiness.start() },
  /**
   * A venue held to its feed that is no venue now (destroyed, its views reverting) or takes no swap now (a Mento v3
   * pool while the FX market is closed) says so, before its quote's revert (src/pools/venue.ts).
   */
  venuesOpen: {
    name: 'venues-open',
    reads: (s) => {
      void s.venues.start();
      void s.chain.start();
    },
    verify: async (s) => {
      const [states, chain] = await Promise.all([s.venues.settled(), s.chain.settled()]);
      if (states.status !== 'fulfilled') return;
      s.venueStates = readableVenueStates(s.venueHops(), states.value);
      if (chain.status !== 'fulfilled') return;
      for (const [i, { hop, field }] of s.venueHops().entries()) {
        const closed = hop.venue.of.closedBecause(hop.venue.facts, s.venueStates[i], chain.value.block.timestamp);
        if (closed) throw new GuardRefusal(closed.reason, `${field}: ${closed.why}`, undefined, field);
      }
    },
  },
  /** What the trade should pay, found without the service: the route's pools at the oracle, or its quotes on the same state. */
  referenceRead: {
    name: 'reference-read',
    reads: (s) => void s.referenceRead.start(),
    verify: async (s) => {
      s.reference = await s.referenceRead.start();
    },
  },
  /** The batch's chain reads: block, fees, nonce, allowances, and the simulation of the exact transactions. */
  chainRead: {
    name: 'chain-read',
    reads: (s) => void s.chain.start(),
    verify: async (s) => {
      s.reads = await s.chain.start();
    },
  },
  /**
   * A hop through a venue held to its feed: it would take the swap now (Mento's breaker, trading limits, the Reserve),
   * and pays within the tolerance of its rate feed's median less its spread (src/pools/venue.ts).
   */
  venuesPriced: {
    name: 'venues-priced',
    reads: (s) => void s.venues.start(),
    verify: async (s) => {
      const states = await s.venues.start();
      const hopOuts = s.reference?.hopOuts;
      if (!hopOuts) return;
      s.venueStates ??= readableVenueStates(s.venueHops(), states);
      const now = s.filled('reads').block.timestamp;
      for (const [i, { hop, index, field }] of s.venueHops().entries()) {
        const amountIn = index === 0 ? s.trade.amountIn : (hopOuts[index - 1] as bigint);
        const swap = { facts: hop.venue.facts, tokenIn: hop.tokenIn, amountIn, quotedOut: hopOuts[index] as bigint, field };
        hop.venue.of.checkSwap(swap, s.venueStates[i], now, s.ctx.priceToleranceBps);
      }
    },
  },
  /** The route's pools pay within the tolerance of the oracle, and the quote within the tolerance of what the route pays. */
  nearReference: {
    name: 'near-reference',
    verify: (s) => {
      const { reference } = s;
      if (!reference || !('route' in s.proposal)) return;
      if (reference.oracleOut !== undefined) checkMarket(reference.amountOut, reference.oracleOut, s.ctx.priceToleranceBps);
      checkPrice(s.proposal.route.expectedOut, reference, s.ctx.priceToleranceBps);
    },
  },
  /**
   * The call is ours: our recipient, our minimum (never below the reference less slippage for a swap, less the
   * tolerance for a deposit or withdraw), our expected output; it may only raise the minimum of the call simulated.
   */
  callIsOurs: {
    name: 'call-is-ours',
    verify: (s) => {
      const { reference } = s;
      const floor = reference && (reference.oracleOut !== undefined ? reference.amountOut : tolerated(reference.amountOut, s.ctx.priceToleranceBps));
      const call = s.kind.call(s.trade, s.proposal, floor, reference?.amountOut);
      if (call.minOut === 0n) throw new GuardRefusal('price', 'the minimum output would be 0: a trade that accepts nothing is never signed');
      const simulated = s.simulated;
      if (!simulated || call.minOut < simulated.minOut || call.target !== simulated.target)
        throw new Error('check: the call signed may only raise the minimum of the call simulated');
      s.call = call;
    },
  },
  allowance: callChecks.allowance,
  /** The deadline leaves time to be mined and is not too far. */
  deadline: {
    name: 'deadline',
    verify: (s) => {
      const { deadline } = s.filled('call');
      if (deadline !== undefined) checkDeadline([deadline], s.filled('reads').block.timestamp, s.ctx.settings.deadline);
    },
  },
  feeCap: callChecks.feeCap,
  simulation: callChecks.simulation,
  /**
   * Every token movement of the simulated transactions is accounted for: the wallet pays exactly what it trades and
   * gets at least our minimum, and nobody else gains but pools of known factories making one swap each, listed venues
   * and our partner within its fee (guard/flows.ts). A node that cannot simulate gives no logs: the list-based checks
   * are then all there is, and a hop through an unlisted adapter, which nothing else proves, is refused.
   */
  flowsAccounted: {
    name: 'flows-accounted',
    verify: async (s) => {
      const { verified } = s;
      if (!verified || !s.kind.flowTerms) return;
      const reads = s.filled('reads');
      const call = s.filled('call');
      const approvalLogs = reads.approvalResults.flatMap((result) => (result.ok ? (result.logs ?? []) : []));
      const logs = reads.call !== 'unsimulated' && reads.call.ok && reads.call.logs ? [...approvalLogs, ...reads.call.logs] : undefined;
      const terms = s.kind.flowTerms(s.trade, s.proposal, call, verified);
      const hops = hopsOf(withStatesRead(verified, s.venueHops(), s.venueStates));
      s.swaps = await abortable(provenSwaps(s.ctx.routes, s.trade, logs, hops, { ...terms, minOut: call.minOut }), s.ctx.signal);
    },
  },
  /** The pools only the flows showed (through unlisted adapters, or a farm's own pool a leg swapped in) were steady too. */
  shownPoolsSteady: {
    name: 'shown-pools-steady',
    verify: async (s) => {
      const { verified } = s;
      const steadyPools = poolsOf(verified);
      // A venue held to its feed is no pool with a history (src/pools/venue.ts).
      const feedPriced = s.venueHops().map(({ hop }) => hop.pool);
      const unlistedLegs = verified !== undefined && 'farm' in verified && verified.legs.some((leg) => leg.hops.some(isUnlisted));
      const shown = [...(s.swaps ?? []).map((swap) => swap.pool), ...(unlistedLegs && 'farm' in verified ? [verified.farm.pool] : [])]
        .filter((pool) => !steadyPools.some((known) => isAddressEqual(known.address, pool)) && !feedPriced.some((known) => isAddressEqual(known, pool)))
        .map((address): SwapPool => ({ address }));
      await abortable(checkPoolsSteady(s.ctx, shown), s.ctx.signal);
    },
  },
} satisfies Record<string, NamedCheck<RoutedCheck>>;

/**
 * Each venue hop's state at the latest block, read by its venue's kind (one call per kind, in this tick: the batching
 * transport sends them with the check's other reads); none when the route has no such hop.
 */
async function readVenueStates(client: ChainClient, hops: readonly VenueHop[]): Promise<(unknown | Unreadable)[]> {
  const kinds = [...new Set(hops.map(({ hop }) => hop.venue.of))];
  const byKind = await Promise.all(
    kinds.map((venue: FeedVenue) =>
      venue.readStates(
        client,
        hops.filter(({ hop }) => hop.venue.of === venue).map(({ hop }) => hop.venue.facts),
      ),
    ),
  );
  const taken = new Map<FeedVenue, number>();
  return hops.map(({ hop }) => {
    const at = taken.get(hop.venue.of) ?? 0;
    taken.set(hop.venue.of, at + 1);
    return byKind[kinds.indexOf(hop.venue.of)]?.[at];
  });
}

/**
 * The venue hops' states, each one readable: a venue whose views revert at the latest block (destroyed by governance
 * since it was listed, its feed removed from the BreakerBox, a paused pool) is refused by name, as the routing service
 * leaves it out.
 */
function readableVenueStates(hops: readonly VenueHop[], states: readonly (unknown | Unreadable)[]): unknown[] {
  return hops.map(({ hop, field }, i) => {
    const state = states[i];
    if (state === undefined || (typeof state === 'object' && state !== null && 'unreadable' in state)) {
      const why = (state as Unreadable | undefined)?.unreadable ?? 'no state';
      throw new GuardRefusal(
        'unknown-pool',
        `${field}: ${hop.venue.of.nameOf(hop.venue.facts)} cannot be read at the latest block (${why}): it is no venue now`,
        undefined,
        field,
      );
    }
    return state;
  });
}

/**
 * A refusal about one verified hop (its field), naming the hop's pool as the venue at fault, so that another route may
 * be asked for without it; a refusal that names one already, or no hop, is left as it is.
 */
function namingVenue(error: unknown, verified: Verified): unknown {
  if (!(error instanceof GuardRefusal) || error.venue || !error.field || !verified) return error;
  const hops = 'hops' in verified ? verified.hops.map((hop, i) => ({ hop, field: `details.pairs[${i}]` })) : [];
  const named = hops.find((candidate) => candidate.field === error.field && !isUnlisted(candidate.hop));
  if (!named || isUnlisted(named.hop)) return error;
  const refusal = new GuardRefusal(error.reason, error.shortMessage, error.details, error.field, named.hop.pool);
  return Object.assign(refusal, { check: (error as GuardRefusal & { check?: string }).check });
}

/**
 * The route with each venue's facts as its state read in this check's batch says (governance may change a Mento v3
 * pool's fees since the pool was verified): its protocol fee recipient may take what the pool charges now.
 */
function withStatesRead(verified: NonNullable<Verified>, hops: readonly VenueHop[], states: readonly unknown[] | undefined): NonNullable<Verified> {
  if (!('hops' in verified) || !states) return verified;
  const read = new Map(hops.map(({ index }, i) => [index, states[i]]));
  return {
    hops: verified.hops.map((hop, index) => {
      if (isUnlisted(hop) || !hop.venue || !read.has(index)) return hop;
      return { ...hop, venue: { ...hop.venue, facts: hop.venue.of.withState(hop.venue.facts, read.get(index)) } };
    }),
  };
}

/**
 * The swaps a simulation's logs show, once every token movement in them is accounted for (guard/flows.ts) under the
 * trade's terms. Without logs (a node that cannot simulate) there is nothing to account for, and a hop through an
 * unlisted adapter, which nothing else proves, is refused.
 */
export async function provenSwaps(
  routes: RouteVerifier,
  trade: Trade,
  logs: readonly Log[] | undefined,
  hops: readonly RouteHop[],
  terms: FlowTerms & { minOut: bigint },
): Promise<ProvenSwap[] | undefined> {
  if (!logs) {
    const unproven = hops.find(isUnlisted);
    if (unproven) {
      throw new GuardRefusal(
        'unknown-adapter',
        `${unproven.field} ${unproven.adapter} is not a listed adapter, and this node cannot simulate (eth_simulateV1) to prove what it does`,
        undefined,
        unproven.field,
      );
    }
    return undefined;
  }
  const { farm } = terms;
  const venueFlows = hops.flatMap((hop) => (!isUnlisted(hop) && hop.venue ? [hop.venue.of.flows(hop.venue.facts, hop)] : []));
  const rules: FlowRules = {
    wallet: trade.wallet,
    pays: { token: trade.tokenIn, amount: trade.amountIn, atMost: terms.paysAtMost },
    receives: { token: trade.tokenOut, minimum: terms.minOut },
    venues: farm ? [farm.address, ...(farm.verified.gauge ? [farm.verified.gauge] : [])] : [],
    positionPool: farm
      ? {
          address: farm.verified.pool,
          token0: farm.verified.token0,
          token1: farm.verified.token1,
          protocolFeeRecipient: await routes.protocolFeeRecipient(farm.verified.pool, [farm.verified.token0, farm.verified.token1]),
        }
      : undefined,
    partnerFees: { router: terms.router, recipients: routes.known.partnerFees.filter((partner) => terms.partners.includes(partner.id)) },
    // Who besides a venue held to its feed may gain in a hop through it, as its kind says (src/pools/venue.ts).
    mentoReserves: venueFlows.flatMap((flows) => flows.reserves ?? []),
    fixedPricePools: venueFlows.flatMap((flows) => flows.fixedPricePools ?? []),
  };
  return accountFlows(flowsOf(logs), rules, (pool, tokens) => routes.poolFee(pool, tokens));
}

/** Every hop of a swap's route, or of a deposit's or withdraw's legs. */
export const hopsOf = (verified: NonNullable<Verified>): RouteHop[] => ('hops' in verified ? verified.hops : verified.legs.flatMap((leg) => leg.hops));

/** A pool a trade swaps in, with its kind when its factory told it, and the route's field that names it. */
export type SwapPool = { address: Address; kind?: PoolKind; field?: string };

/** The pools of a route's verified hops (a node that cannot simulate shows no others). */
export function poolsOf(verified: Verified): SwapPool[] {
  if (!verified) return [];
  const fieldsOf =
    'hops' in verified ? [{ hops: verified.hops, at: 'details' }] : verified.legs.map((leg, i) => ({ hops: leg.hops, at: `underlyingRoutes[${i}]` }));
  // A venue held to its own feed is no pool with a history: it is held to its feed instead (src/pools/venue.ts).
  return fieldsOf.flatMap(({ hops, at }) =>
    hops.flatMap((hop, i) => (isUnlisted(hop) || hop.venue ? [] : [{ address: hop.pool, kind: hop.kind, field: `${at}.pairs[${i}]` }])),
  );
}

/** Each pool steady (or at the reference, when it has no history of its own); a refusal names the pool's hop. */
export async function checkPoolsSteady(ctx: CheckContext, pools: readonly SwapPool[]): Promise<void> {
  const unique = [...new Map(pools.map((pool) => [pool.address.toLowerCase(), pool])).values()];
  await Promise.all(
    unique.map((pool) =>
      withPriceRefusals(() => ctx.prices.checkSteady(pool.address, ctx.priceToleranceBps, pool.kind), { field: pool.field, venue: pool.address }),
    ),
  );
}

/** A route's hops with each unlisted one replaced by the proven swap of its two tokens; refused if there is none. */
export function provenHops(hops: readonly RouteHop[], swaps: readonly Omit<ProvenSwap, 'amountIn' | 'amountOut'>[] | undefined): VerifiedHop[] {
  return hops.map((hop) => {
    if (!isUnlisted(hop)) return hop;
    const swap = swaps?.find((candidate) => isAddressEqual(candidate.tokenIn, hop.tokenIn) && isAddressEqual(candidate.tokenOut, hop.tokenOut));
    if (!swap) {
      throw new GuardRefusal(
        'unknown-pool',
        `${hop.field} ${hop.adapter} swaps ${hop.tokenIn} → ${hop.tokenOut} in no pool a known factory made`,
        undefined,
        hop.field,
      );
    }
    return { tokenIn: hop.tokenIn, tokenOut: hop.tokenOut, pool: swap.pool, feePpm: swap.feePpm };
  });
}
