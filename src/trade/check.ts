/**
 * The check stage: every guard a trade passes before anything is signed, in the order they run. The routing
 * service is untrusted: its answer must be about exactly what we asked, every contract must be known for the
 * chain, the call is our own encoding, and a simulation of the exact transactions must pay our minimum.
 * A failing check throws a GuardRefusal naming its reason; nothing is signed.
 */
import { type Address, type Log, decodeFunctionData, getAddress, isAddressEqual } from 'viem';
import { routerAbi } from '../contracts/abi.ts';
import type { SwapPayload } from '../contracts/payload.ts';
import { type CallResult, type Preflight, preflight } from '../chain/preflight.ts';
import { hopQuoteRead } from '../contracts/hop-quoter.ts';
import {
  type Budget,
  checkBudget,
  checkContractsAllowed,
  checkDeadline,
  checkDelivered,
  checkDepositQuote,
  checkFeeCap,
  checkMarket,
  checkPrice,
  checkReadyTransaction,
  checkSimulation,
  checkSwapQuote,
  checkThreshold,
  checkWithdrawQuote,
} from '../guard/guards.ts';
import { GuardRefusal } from '../guard/refusal.ts';
import { type FlowRules, type ProvenSwap, accountFlows, flowsOf } from '../guard/flows.ts';
import { type MentoHopFacts, type MentoHopState, checkMentoHops, checkMentoHopsOpen, readHopStates, readableHopStates } from '../guard/mento-hop.ts';
import { type PoolKind, RouteVerifier, type UnlistedHop, type VerifiedFarm, type VerifiedHop, isUnlisted } from '../guard/route.ts';
import { abortable } from '../ops/abort.ts';
import { PriceReference } from '../price/reference.ts';
import { approvalsOf, neededApprovals } from './approvals.ts';
import { withPriceRefusals } from './price-refusals.ts';
import type { CheckContext, Checked } from './check-types.ts';

export type { CheckContext, Checked } from './check-types.ts';
import { simulatedCall } from './simulated.ts';
import type { ChainClient } from '../chains.ts';
import type { AddressBook } from '../config/address-book.ts';
import { chainTimingFor, knownContractsFor, priceSourcesFor } from '../config/chain-data.ts';
import type { EarnRoute } from '../routing-api/schemas.ts';
import { type BuiltCall, buildCall, returnedAmount } from './call.ts';
import type { Proposal } from './quote.ts';
import { type HopFee, type Reference, depositReference, oracleAfterFees, oracleSwapValue, swapReference, withdrawReference } from './reference.ts';
import type { TradeBudgets } from './settings.ts';
import { type Trade, isPositionTrade, spentOf, spentTokens } from '../model/trade.ts';
import { checkPosition } from './check-position.ts';
import type { WalletHistory } from './wallet-history.ts';

const DAY_MS = 24 * 3600 * 1000;

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

export async function check(ctx: CheckContext, trade: Trade, proposal: Proposal): Promise<Checked> {
  // A trade on a V3 position asks the service nothing: its own checks (trade/check-position.ts).
  if (proposal.kind === 'position') {
    if (!isPositionTrade(trade)) throw new Error(`check: a ${trade.kind} trade with a position's proposal`);
    return checkPosition(ctx, trade);
  }
  return checkRouted(ctx, trade, proposal);
}

/** A proposal of the routing service (a swap, a deposit, a withdraw) or a claim's. */
type RoutedProposal = Exclude<Proposal, { kind: 'position' }>;

async function checkRouted(ctx: CheckContext, trade: Trade, proposal: RoutedProposal): Promise<Checked> {
  // 1. The answer is about what we asked: our tokens, our amount, one expected output, a farm to use.
  checkProposal(trade, proposal);

  // 2. The router, OneClickFarm or gauge the call targets and approves is known for this chain.
  checkContractsAllowed(ctx.routes.known, {
    router: proposal.kind === 'claim' ? undefined : proposal.route.routerAddress,
    oneClickFarm: proposal.kind === 'deposit' || proposal.kind === 'withdraw' ? proposal.route.oneClickFarmAddress : undefined,
    gauge: trade.kind === 'claim' ? trade.tokenIn : undefined,
  });

  // 3. Every adapter, pool and token the route runs through is known, and a farm names exactly our position.
  const verified = await abortable(verify(ctx.routes, trade, proposal), ctx.signal);
  return checkVerified(ctx, trade, proposal, verified).catch((error: unknown) => {
    throw namingVenue(error, verified);
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
  return new GuardRefusal(error.reason, error.shortMessage, error.details, error.field, named.hop.pool);
}

/** Steps 4 to 13, once the route's every contract is known. */
async function checkVerified(ctx: CheckContext, trade: Trade, proposal: RoutedProposal, verified: Verified): Promise<Checked> {
  // 4. One batched read of the chain for the rest (steps 4 to 11): the route's pools, the prices, the block, fees,
  //    nonce, allowance, and a simulation of the exact transactions, after the wallet's transactions in flight. The simulated call is ours with the minimum
  //    the quote and our slippage give; the minimum we sign (step 5) may only be higher, once the reference is
  //    known. The known router and OneClickFarm use the minimum only to revert a call paying less, so the call we
  //    sign does on this chain exactly what was simulated, as long as what was simulated pays that higher minimum
  //    (step 11 checks it). Reading it all at once saves two round trips between the quote and the signature.
  //
  //    No pool the route swaps in was moved away from its time-weighted average within the window: a trade in the
  //    block before ours would otherwise set our price (and, for a token priced by its pool, the reference too).
  //    Beside it, what the trade should pay, found without the service: the route's pools must pay within the
  //    tolerance of the oracle, and the quote within the tolerance of what the route pays. (A route through an
  //    unlisted adapter has its pools' fees, so its oracle value, only once step 12 proves its pools.) A moved pool
  //    is reported as such, before any price it caused.
  const simulated = buildCall(trade, proposal);
  const approvals = simulated.spender ? approvalsOf(trade, simulated.spender, ctx.settings) : [];
  const steadyPools = poolsOf(verified);
  // What a swap's route pays is read in the same simulation, on the state the call meets (contracts/hop-quoter.ts).
  const quote = proposal.kind === 'swap' && verified ? hopQuoteRead(proposal.route.details, trade.amountIn) : undefined;
  const reading = preflight(ctx.wallet.client, {
    from: trade.wallet,
    to: simulated.target,
    data: simulated.data,
    approvals,
    before: ctx.wallet.inFlightCalls(),
    quote,
  });
  // The Mento exchanges' states, asked in the same tick: the batching transport sends them with the reads above.
  const mentoHops = verified && 'hops' in verified ? verified.hops.flatMap((hop, i) => (!isUnlisted(hop) && hop.mento ? [{ hop, index: i }] : [])) : [];
  const mentoStates =
    mentoHops.length > 0
      ? readHopStates(
          ctx.wallet.client,
          mentoHops.map(({ hop }) => hop.mento as MentoHopFacts),
        )
      : undefined;
  const [steady, referenced, preflighted, mentoRead] = await abortable(
    Promise.allSettled([
      checkPoolsSteady(ctx, steadyPools),
      referenceOf(ctx, trade, proposal, verified, () => reading.then((reads) => reads.quote)),
      reading,
      mentoStates,
    ]),
    ctx.signal,
  );
  if (steady.status === 'rejected') throw steady.reason;
  // A Mento hop that is no venue now (destroyed, its views reverting) or takes no swap now (a v3 pool while the FX
  // market is closed) says so, before its quote's revert.
  const mentoFields = mentoHops.map(({ hop, index }) => ({ ...(hop.mento as MentoHopFacts), field: `details.pairs[${index}]` }));
  const mentoStatesRead = mentoRead.status === 'fulfilled' && mentoRead.value ? readableHopStates(mentoFields, mentoRead.value) : undefined;
  if (mentoStatesRead && preflighted.status === 'fulfilled') checkMentoHopsOpen(mentoFields, mentoStatesRead, preflighted.value.block.timestamp);
  if (referenced.status === 'rejected') throw referenced.reason;
  if (preflighted.status === 'rejected') throw preflighted.reason;
  if (mentoRead.status === 'rejected') throw mentoRead.reason;
  const reference = referenced.value;
  const reads = preflighted.value;
  //    A hop through Mento, first: the Broker would take it now (its breaker, its trading limits, the Reserve), and it
  //    pays within the tolerance of its rate feed's median less its spread (guard/mento-hop.ts).
  if (mentoStatesRead && reference?.hopOuts) {
    const hopOuts = reference.hopOuts;
    const trades = mentoHops.map(({ hop, index }) => ({
      ...(hop.mento as MentoHopFacts),
      tokenIn: hop.tokenIn,
      amountIn: index === 0 ? trade.amountIn : (hopOuts[index - 1] as bigint),
      quotedOut: hopOuts[index] as bigint,
      field: `details.pairs[${index}]`,
    }));
    checkMentoHops(trades, mentoStatesRead, reads.block.timestamp, ctx.priceToleranceBps);
  }
  if (reference && proposal.kind !== 'claim') {
    if (reference.oracleOut !== undefined) checkMarket(reference.amountOut, reference.oracleOut, ctx.priceToleranceBps);
    checkPrice(proposal.route.expectedOut, reference, ctx.priceToleranceBps);
  }

  // 5. The call is ours: our recipient, our minimum (never below the reference less slippage for a swap, less the
  //    tolerance for a deposit or withdraw), our expected output.
  const floor = reference && (reference.oracleOut !== undefined ? reference.amountOut : tolerated(reference.amountOut, ctx.priceToleranceBps));
  const call = buildCall(trade, proposal, floor, reference?.amountOut);
  if (call.minOut === 0n) throw new GuardRefusal('price', 'the minimum output would be 0: a trade that accepts nothing is never signed');
  if (call.minOut < simulated.minOut || call.target !== simulated.target)
    throw new Error('check: the call signed may only raise the minimum of the call simulated');

  // 6. The strategy's own floor (price limit, take-profit level).
  if (trade.kind === 'swap') checkThreshold(call.expectedOut, trade.minAmountOut);

  // 7. What the batch read of the wallet: is the allowance short?
  const needed = neededApprovals(approvals, reads);

  // 8. The deadline leaves time to be mined and is not too far.
  if (call.deadline !== undefined) checkDeadline([call.deadline], reads.block.timestamp, ctx.settings.deadline);

  // 9. A ready-to-sign transaction from the service, if it sent one, describes our call.
  if (proposal.kind === 'swap' && call.payload) checkReadyTransaction(proposal.route.txn, { to: call.target, from: trade.wallet, payload: call.payload });

  // 10. Gas is within the cap.
  const fees = ctx.wallet.fees.fromBlock(reads.block.baseFeePerGas, reads.maxPriorityFeePerGas);
  checkFeeCap(fees.maxFeePerGas, ctx.settings.feeCap);

  // 11. The exact transactions, simulated together, succeed and pay at least our minimum.
  const { gas, simulatedOut } = simulatedCall(reads, trade.kind);
  if (simulatedOut !== undefined) checkSimulation(simulatedOut, call.minOut);

  // 12. Every token movement of the simulated transactions is accounted for: the wallet pays exactly what it trades
  //     and gets at least our minimum, and nobody else gains but pools of known factories making one swap each,
  //     listed venues and our partner within its fee. Then the hops through unlisted adapters are those pools.
  const swaps = await abortable(accountForFlows(ctx, trade, proposal, call, reads, withFeesRead(verified, mentoStatesRead)), ctx.signal);
  if (proposal.kind === 'swap' && reference?.hopOuts) {
    const delivered = deliveredToRouter(reads, call.target, trade.tokenOut);
    if (delivered !== undefined) checkDelivered(reference.hopOuts, delivered, swaps);
  }
  if (verified && 'hops' in verified && reference?.oracleValue !== undefined && reference.oracleOut === undefined) {
    const hops = provenHops(verified.hops, swaps);
    const { oracleOut, fees } = oracleAfterFees(reference.oracleValue, hops);
    checkMarket(reference.amountOut, oracleOut, ctx.priceToleranceBps);
    Object.assign(reference, { oracleOut, basis: `${reference.basis}, ${fees} (pools proven by the simulation's flows)` });
  }
  const unlistedLegs = verified !== undefined && 'farm' in verified && verified.legs.some((leg) => leg.hops.some(isUnlisted));
  if (unlistedLegs && 'farm' in verified && reference && (proposal.kind === 'deposit' || proposal.kind === 'withdraw')) {
    // The legs' real fees, now proven: the minimum we signed must hold against the reference they give. A leg may
    // swap in the position's own pool, whose flows mix with the deposit's: no other holder may have taken its input.
    const { farm } = verified;
    const feePpm = (await ctx.routes.poolFee(farm.pool, [farm.token0, farm.token1])) ?? ctx.routes.highestKnownFee();
    const ownPool = { pool: farm.pool, tokenIn: farm.token0, tokenOut: farm.token1, feePpm };
    const inOwnPool = [ownPool, { ...ownPool, tokenIn: farm.token1, tokenOut: farm.token0 }];
    const legs = verified.legs.map((leg) => ({ ...leg, hops: provenHops(leg.hops, [...(swaps ?? []), ...inOwnPool]) }));
    const proven = await abortable(
      withPriceRefusals(() => farmReference(ctx, trade, proposal.kind, verified.farm, legs)),
      ctx.signal,
    );
    const provenFloor = tolerated(proven.amountOut, ctx.priceToleranceBps);
    if (call.minOut < provenFloor) {
      throw new GuardRefusal(
        'price',
        `the minimum ${call.minOut} is below ${provenFloor}, the reference less the tolerance once the legs' pools are proven (${proven.basis})`,
      );
    }
    Object.assign(reference, { amountOut: proven.amountOut, basis: `${proven.basis} (legs' pools proven by the simulation's flows)` });
  }

  // 13. The same for pools only the flows showed (through unlisted adapters; a deposit's or withdraw's leg through one
  //     may have swapped in the position's own pool).
  // A Mento hop's pool is held to its rate feed, not to a history (guard/mento-hop.ts).
  const oraclePriced = verified ? hopsOf(verified).flatMap((hop) => (!isUnlisted(hop) && hop.mento ? [hop.pool] : [])) : [];
  const shownPools = [...(swaps ?? []).map((swap) => swap.pool), ...(unlistedLegs && 'farm' in verified ? [verified.farm.pool] : [])]
    .filter((pool) => !steadyPools.some((known) => isAddressEqual(known.address, pool)) && !oraclePriced.some((known) => isAddressEqual(known, pool)))
    .map((address): SwapPool => ({ address }));
  await abortable(checkPoolsSteady(ctx, shownPools), ctx.signal);
  return { call, reference, approvals: needed, reads, fees: ctx.wallet.fees.capped(fees), gas, simulatedOut };
}

/**
 * The route with each Mento v3 pool's fees as read in this check's batch (governance may change them since the pool
 * was verified): its protocol fee recipient may take what the pool charges now.
 */
function withFeesRead(verified: Verified, states: readonly MentoHopState[] | undefined): Verified {
  if (!verified || !('hops' in verified) || !states) return verified;
  let next = 0;
  const hops = verified.hops.map((hop) => {
    if (isUnlisted(hop) || !hop.mento) return hop;
    const state = states[next++];
    if (!('fpmm' in hop.mento) || !state || !('lpFee' in state)) return hop;
    return { ...hop, mento: { fpmm: { ...hop.mento.fpmm, lpFee: state.lpFee, protocolFee: state.protocolFee } } };
  });
  return { hops };
}

/**
 * The flow accounting of guard/flows.ts over the simulation's logs (approval and call). A node that cannot
 * simulate gives no logs: the list-based checks of step 3 are then all there is, and a hop through an unlisted
 * adapter, which nothing else proves, is refused. Claims (a known gauge paying its own rewards) have no route.
 */
async function accountForFlows(
  ctx: CheckContext,
  trade: Trade,
  proposal: RoutedProposal,
  call: BuiltCall,
  reads: Preflight,
  verified: Verified,
): Promise<ProvenSwap[] | undefined> {
  if (!verified || proposal.kind === 'claim') return undefined;
  const approvalLogs = reads.approvalResults.flatMap((result) => (result.ok ? (result.logs ?? []) : []));
  const logs = reads.call !== 'unsimulated' && reads.call.ok && reads.call.logs ? [...approvalLogs, ...reads.call.logs] : undefined;
  const routes = proposal.kind === 'swap' ? [proposal.route.details] : proposal.route.underlyingRoutes;
  return provenSwaps(ctx.routes, trade, logs, hopsOf(verified), {
    router: proposal.route.routerAddress,
    partners: routes.map((route) => BigInt(route.partner)),
    minOut: call.minOut,
    farm: 'farm' in verified ? { address: call.farm as Address, verified: verified.farm } : undefined,
    paysAtMost: proposal.kind === 'deposit',
  });
}

/**
 * The swaps a simulation's logs show, once every token movement in them is accounted for (guard/flows.ts) under the
 * trade's terms. Without logs (a node that cannot simulate) there is nothing to account for, and a hop through an
 * unlisted adapter, which nothing else proves, is refused.
 */
async function provenSwaps(
  routes: RouteVerifier,
  trade: Trade,
  logs: readonly Log[] | undefined,
  hops: readonly RouteHop[],
  terms: { router: Address; partners: readonly bigint[]; minOut: bigint; farm?: { address: Address; verified: VerifiedFarm }; paysAtMost?: boolean },
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
    mentoReserves: hops.flatMap((hop) => {
      if (isUnlisted(hop) || !hop.mento || !('exchange' in hop.mento)) return [];
      const { exchange } = hop.mento;
      const collateralIn = isAddressEqual(hop.tokenIn, exchange.asset0) ? exchange.collateral0 : exchange.collateral1;
      return collateralIn ? [{ address: exchange.reserve, token: hop.tokenIn }] : [];
    }),
    fixedPricePools: hops.flatMap((hop) => {
      if (isUnlisted(hop) || !hop.mento || !('fpmm' in hop.mento)) return [];
      const { fpmm } = hop.mento;
      return [
        { address: fpmm.pool, tokenIn: hop.tokenIn, feePpm: hop.feePpm, protocolFeeRecipient: fpmm.protocolFeeRecipient, protocolFeeBps: fpmm.protocolFee },
      ];
    }),
  };
  return accountFlows(flowsOf(logs), rules, (pool, tokens) => routes.poolFee(pool, tokens));
}

/**
 * What the route delivered to the router in the simulation, read from its token movements (the router's return value
 * is what it passes on, after a partner's fee); undefined when the node gave no logs.
 */
function deliveredToRouter(reads: Preflight, router: Address, tokenOut: Address): bigint | undefined {
  if (reads.call === 'unsimulated' || !reads.call.ok || !reads.call.logs) return undefined;
  return flowsOf(reads.call.logs)
    .filter((flow) => isAddressEqual(flow.to, router) && isAddressEqual(flow.token, tokenOut))
    .reduce((sum, flow) => sum + flow.amount, 0n);
}

/** Every hop of a swap's route, or of a deposit's or withdraw's legs. */
const hopsOf = (verified: NonNullable<Verified>): RouteHop[] => ('hops' in verified ? verified.hops : verified.legs.flatMap((leg) => leg.hops));

/** A pool a trade swaps in, with its kind when its factory told it, and the route's field that names it. */
type SwapPool = { address: Address; kind?: PoolKind; field?: string };

/** The pools of a route's verified hops (a node that cannot simulate shows no others). */
function poolsOf(verified: Verified): SwapPool[] {
  if (!verified) return [];
  const fieldsOf =
    'hops' in verified ? [{ hops: verified.hops, at: 'details' }] : verified.legs.map((leg, i) => ({ hops: leg.hops, at: `underlyingRoutes[${i}]` }));
  // A Mento exchange is no pool with a history: it is held to its rate feed instead (guard/mento-hop.ts).
  return fieldsOf.flatMap(({ hops, at }) =>
    hops.flatMap((hop, i) => (isUnlisted(hop) || hop.mento ? [] : [{ address: hop.pool, kind: hop.kind, field: `${at}.pairs[${i}]` }])),
  );
}

/** Each pool steady (or at the reference, when it has no history of its own); a refusal names the pool's hop. */
async function checkPoolsSteady(ctx: CheckContext, pools: readonly SwapPool[]): Promise<void> {
  const unique = [...new Map(pools.map((pool) => [pool.address.toLowerCase(), pool])).values()];
  await Promise.all(
    unique.map((pool) =>
      withPriceRefusals(() => ctx.prices.checkSteady(pool.address, ctx.priceToleranceBps, pool.kind), { field: pool.field, venue: pool.address }),
    ),
  );
}

/** A route's hops with each unlisted one replaced by the proven swap of its two tokens; refused if there is none. */
function provenHops(hops: readonly RouteHop[], swaps: readonly Omit<ProvenSwap, 'amountIn' | 'amountOut'>[] | undefined): VerifiedHop[] {
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

/** An amount less a tolerance in basis points (rounded down). */
const tolerated = (amount: bigint, toleranceBps: number) => (amount * BigInt(10_000 - toleranceBps)) / 10_000n;

type RouteHop = VerifiedHop | UnlistedHop;
type Verified = { hops: RouteHop[] } | { farm: VerifiedFarm; legs: { inputAmount: bigint; hops: RouteHop[] }[] } | undefined;

async function verify(routes: RouteVerifier, trade: Trade, proposal: RoutedProposal): Promise<Verified> {
  switch (proposal.kind) {
    case 'swap':
      return { hops: await routes.verifyRoute(proposal.route.details, 'details', 'prove-by-flows') };
    case 'deposit':
    case 'withdraw': {
      const { route } = proposal;
      const depositData = route.depositData as NonNullable<EarnRoute['depositData']>;
      // The position is what a deposit mints, or what a withdraw spends.
      const position = proposal.kind === 'deposit' ? trade.tokenOut : trade.tokenIn;
      const [farm, legs] = await Promise.all([
        routes.verifyFarm(depositData, position),
        Promise.all(
          route.underlyingRoutes.map(async (leg, i) => ({
            inputAmount: leg.inputAmount,
            hops: await routes.verifyRoute(leg, `underlyingRoutes[${i}]`, 'prove-by-flows'),
          })),
        ),
      ]);
      // A farm's legs are held to the farm's reference, without the per-hop quotes a Mento hop is checked by.
      for (const [i, leg] of legs.entries()) {
        const index = leg.hops.findIndex((hop) => !isUnlisted(hop) && hop.mento);
        if (index >= 0)
          throw new GuardRefusal(
            'unknown-adapter',
            `underlyingRoutes[${i}].pairs[${index}] swaps through Mento, which a ${proposal.kind}'s legs may not`,
            undefined,
            `underlyingRoutes[${i}].pairs[${index}]`,
          );
      }
      for (const [i, leg] of route.underlyingRoutes.entries()) {
        // A deposit leg must end in one of the pool's tokens (anything else would stay in the farm for the next
        // caller to take); a withdraw leg must start from one.
        const end = proposal.kind === 'deposit' ? leg.path[leg.path.length - 1] : leg.path[0];
        if (!end || (!isAddressEqual(end, farm.token0) && !isAddressEqual(end, farm.token1))) {
          const field = `underlyingRoutes[${i}].path[${proposal.kind === 'deposit' ? leg.path.length - 1 : 0}]`;
          throw new GuardRefusal('farm-mismatch', `${field} ${end} is not a token of pool ${farm.pool}`, undefined, field);
        }
      }
      return { farm, legs };
    }
    case 'claim':
      return undefined;
  }
}

/** `quoted`: the hop quotes read beside the simulation (asked for only where a swap's route was verified). */
function referenceOf(
  ctx: CheckContext,
  trade: Trade,
  proposal: Proposal,
  verified: Verified,
  quoted: () => Promise<CallResult | undefined>,
): Promise<Reference | undefined> {
  return withPriceRefusals(async () => {
    if (!verified) return undefined;
    if ('hops' in verified && proposal.kind === 'swap') return await swapReference(ctx.prices, trade, proposal.route.details, verified.hops, quoted());
    if (!('farm' in verified) || (proposal.kind !== 'deposit' && proposal.kind !== 'withdraw')) return undefined;
    // A leg's hop through an unlisted adapter counts at the highest known fee until its flows prove its pool.
    const assumed = ctx.routes.highestKnownFee();
    const legs = verified.legs.map((leg) => ({ ...leg, hops: leg.hops.map((hop) => (isUnlisted(hop) ? { feePpm: assumed } : hop)) }));
    return farmReference(ctx, trade, proposal.kind, verified.farm, legs);
  });
}

function farmReference(
  ctx: CheckContext,
  trade: Trade,
  kind: 'deposit' | 'withdraw',
  farm: VerifiedFarm,
  legs: { inputAmount: bigint; hops: HopFee[] }[],
): Promise<Reference> {
  const client = ctx.wallet.client;
  return kind === 'deposit' ? depositReference(client, ctx.prices, trade, farm, legs) : withdrawReference(client, ctx.prices, trade, farm, legs);
}

/** What a replacement's recheck needs besides the chain: the route verifier and prices, and the strategy's tolerance. */
export type RecheckContext = Pick<CheckContext, 'wallet' | 'settings'> & Partial<Pick<CheckContext, 'routes' | 'prices' | 'priceToleranceBps'>>;

/**
 * The checks that can change with time, for a call already signed: run again before it is replaced (a new
 * signature). The deadline still leaves time; the exact call, simulated now, pays our minimum; and for a swap,
 * what it pays now is within the tolerance of the oracle now (a market that moved up while the transaction
 * waited would otherwise be sold into at the old price).
 */
export async function recheck(ctx: RecheckContext, trade: Trade, call: Pick<BuiltCall, 'target' | 'data' | 'minOut' | 'deadline'>): Promise<void> {
  const reads = await preflight(ctx.wallet.client, { from: trade.wallet, to: call.target, data: call.data });
  if (call.deadline !== undefined) checkDeadline([call.deadline], reads.block.timestamp, { ...ctx.settings.deadline, minSeconds: 0 });
  if (reads.call === 'unsimulated' || !reads.call.ok) {
    throw new GuardRefusal(
      'simulation',
      `a simulation of the exact transaction reverts: ${reads.call === 'unsimulated' ? 'not simulated' : reads.call.reason}`,
    );
  }
  const paysNow = returnedAmount(trade.kind, reads.call.returned);
  checkSimulation(paysNow, call.minOut);
  if (trade.kind === 'swap' && ctx.routes && ctx.prices) {
    const [payload] = decodeFunctionData({ abi: routerAbi, data: call.data }).args as readonly [SwapPayload];
    const listed = await ctx.routes.verifyRoute(payload, 'call', 'prove-by-flows');
    // The replacement is a new signature: its flows are accounted for as the original's were.
    const swaps = await provenSwaps(ctx.routes, trade, reads.call.logs, listed, { router: call.target, partners: [payload.partner], minOut: call.minOut });
    const hops = provenHops(listed, swaps);
    const prices = ctx.prices;
    await withPriceRefusals(async () =>
      checkMarket(paysNow, await oracleSwapValue(prices, trade, hops), ctx.priceToleranceBps ?? ctx.settings.maxPriceDeviationBps),
    );
  }
}

function checkProposal(trade: Trade, proposal: RoutedProposal): void {
  switch (proposal.kind) {
    case 'swap':
      return checkSwapQuote(trade, proposal.route);
    case 'deposit':
    case 'withdraw':
      if (!proposal.route.depositData) throw new GuardRefusal('quote-mismatch', 'the quote does not say which farm to use (no depositData)');
      return proposal.kind === 'deposit' ? checkDepositQuote(trade, proposal.route) : checkWithdrawQuote(trade, proposal.route);
    case 'claim':
      return;
  }
}

/** The budgets that limit this trade (on its input token), by scope: its strategy's, then its wallet's. */
function budgetScopes(budgets: TradeBudgets, trade: Trade): { budgets: readonly Budget[]; scope: string; filter: { strategyId?: string } }[] {
  // Budgets on any token the trade spends (an add to a V3 position spends two).
  const spent = spentTokens(trade).map((spend) => spend.token.toLowerCase());
  const onTokenIn = (list: readonly Budget[]) => list.filter((budget) => spent.includes(budget.token.toLowerCase()));
  return [
    { budgets: onTokenIn(budgets.strategy?.(trade.strategyId) ?? []), scope: `strategy ${trade.strategyId}`, filter: { strategyId: trade.strategyId } },
    { budgets: onTokenIn(budgets.wallet ?? []), scope: `wallet ${getAddress(trade.wallet)}`, filter: {} },
  ];
}

/** Whether any budget limits this trade: a trade no budget limits is committed without reading what was spent. */
export const budgetsApply = (budgets: TradeBudgets, trade: Trade) => budgetScopes(budgets, trade).some((scope) => scope.budgets.length > 0);

/**
 * Budgets: what this strategy and this wallet already committed, as the wallet's history reads it (wallet-history.ts:
 * every row of the wallet proven by its tags first, then sorted by what the tags say). The ledger runs this inside
 * the database transaction that records the trade as checked (`commitChecked`): runs of one wallet check side by
 * side, and each sees every trade committed before it, never one half-checked. Trades still being quoted or checked
 * commit nothing. A row edited (its amount lowered, its time moved out of the day, its strategy or wallet moved) is
 * refused by name, never counted as it says.
 */
export function checkBudgets(budgets: TradeBudgets, trade: Trade, history: Pick<WalletHistory, 'committed'>): void {
  const now = Date.now();
  for (const { budgets: list, scope, filter } of budgetScopes(budgets, trade)) {
    // Each budgeted token on its own: an add or a mint spends two, and either may have a budget.
    for (const token of new Set(list.map((budget) => getAddress(budget.token)))) {
      const trades = history.committed(token, { strategyId: filter.strategyId, excludeId: trade.id }).map((past) => past.record);
      const since = (from: number) => trades.filter((record) => record.createdAt >= from).reduce((sum, record) => sum + spentOf(record, token), 0n);
      const already = { day: since(now - DAY_MS), total: since(0) };
      for (const budget of list.filter((candidate) => isAddressEqual(candidate.token, token))) {
        checkBudget(budget, spentOf(trade, token), scope, (window) => already[window]);
      }
    }
  }
}
