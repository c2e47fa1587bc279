/**
 * What a deposit into a farm and a withdrawal from one share (OneClickFarm, in one transaction): the service's answer
 * names the farm and the legs' routes; the farm must name exactly the position's pool (and gauge); each leg keeps its
 * own slippage floor and the whole trade's minimum is held to the farm's reference.
 */
import { type Address, type Hex, decodeFunctionData, isAddressEqual, zeroAddress } from 'viem';
import { oneClickFarmAbi, oneClickWithdrawAbi } from '../../contracts/abi.ts';
import { encodeDepositCall, encodeWithdrawCall } from '../../contracts/calldata.ts';
import { swapPayloadFrom, type SwapPayload } from '../../contracts/payload.ts';
import { checkDepositQuote, checkWithdrawQuote, minimumOutput } from '../../guard/guards.ts';
import { GuardRefusal } from '../../model/guard-refusal.ts';
import { type RouteVerifier, type VerifiedFarm, isUnlisted } from '../../guard/route.ts';
import type { DepositTrade, Trade, WithdrawTrade } from '../../model/trade.ts';
import { abortable } from '../../ops/abort.ts';
import type { EarnRoute, RouteDetail } from '../../routing-api/schemas.ts';
import { earliest, uncappedOutput } from '../call-types.ts';
import { type RoutedCheck, type RoutedKind, type Verified, checkRouted, provenHops, routedChecks, tolerated } from '../check.ts';
import type { NamedCheck } from '../check-runner.ts';
import type { CheckContext } from '../check-types.ts';
import { type FarmProposal, proposalOf } from '../proposal.ts';
import { withPriceRefusals } from '../price-refusals.ts';
import { type HopFee, type Reference, depositReference, withdrawReference } from '../reference.ts';
import type { TradeKindModule } from './kind.ts';
import { paidBalanceProblems, paidToWallet, receivesOutput } from './paid-to-wallet.ts';

type FarmKind = FarmProposal['kind'];

/** The farm's reference for a deposit or a withdrawal, from its legs' fees. */
function farmReference(
  ctx: CheckContext,
  trade: Trade,
  kind: FarmKind,
  farm: VerifiedFarm,
  legs: { inputAmount: bigint; hops: HopFee[] }[],
): Promise<Reference> {
  const client = ctx.wallet.client;
  return kind === 'deposit' ? depositReference(client, ctx.prices, trade, farm, legs) : withdrawReference(client, ctx.prices, trade, farm, legs);
}

/**
 * Each leg keeps its own slippage floor from the quote (a one-token leg, no swap, needs none) and is never
 * capped; the whole trade's minimum, held to the reference, is what protects the user.
 */
function legPayloads(route: EarnRoute, slippageBps: number): SwapPayload[] {
  return route.underlyingRoutes.map((detail: RouteDetail) =>
    swapPayloadFrom(detail, {
      minOutputAmount: detail.pairs.length === 0 ? 0n : minimumOutput(detail.expectedOutputAmount, slippageBps),
      expectedOutputAmount: uncappedOutput,
      to: zeroAddress, // OneClickFarm sends each leg's output where it belongs
    }),
  );
}

/**
 * The legs' real fees, once the flows proved the pools of their unlisted hops: the minimum we signed must hold against
 * the reference they give. A leg may swap in the position's own pool, whose flows mix with the deposit's: no other
 * holder may have taken its input.
 */
const legsProven: NamedCheck<RoutedCheck> = {
  name: 'legs-proven',
  verify: async (s) => {
    const { verified, reference } = s;
    if (!verified || !('farm' in verified) || !reference || !verified.legs.some((leg) => leg.hops.some(isUnlisted))) return;
    const { farm } = verified;
    const kind = proposalOf(s.proposal, 'deposit', 'withdraw').kind;
    const feePpm = (await s.ctx.routes.poolFee(farm.pool, [farm.token0, farm.token1])) ?? s.ctx.routes.highestKnownFee();
    const ownPool = { pool: farm.pool, tokenIn: farm.token0, tokenOut: farm.token1, feePpm };
    const inOwnPool = [ownPool, { ...ownPool, tokenIn: farm.token1, tokenOut: farm.token0 }];
    const legs = verified.legs.map((leg) => ({ ...leg, hops: provenHops(leg.hops, [...(s.swaps ?? []), ...inOwnPool]) }));
    const proven = await abortable(
      withPriceRefusals(() => farmReference(s.ctx, s.trade, kind, farm, legs)),
      s.ctx.signal,
    );
    const provenFloor = tolerated(proven.amountOut, s.ctx.priceToleranceBps);
    const { minOut } = s.filled('call');
    if (minOut < provenFloor) {
      throw new GuardRefusal(
        'price',
        `the minimum ${minOut} is below ${provenFloor}, the reference less the tolerance once the legs' pools are proven (${proven.basis})`,
      );
    }
    Object.assign(reference, { amountOut: proven.amountOut, basis: `${proven.basis} (legs' pools proven by the simulation's flows)` });
  },
};

/**
 * A farm's answer proven: the farm data names exactly the position's pool (and gauge), every leg's adapters and pools
 * are known, no leg swaps through a venue held to its own feed (a farm's legs are held to the farm's reference, without
 * the per-hop quotes such a venue is checked by), and each leg ends (a deposit) or starts (a withdrawal) in one of the
 * pool's tokens.
 */
async function verifyFarmRoute(kind: FarmKind, routes: RouteVerifier, trade: Trade, proposal: FarmProposal): Promise<Verified> {
  const { route } = proposal;
  const depositData = route.depositData as NonNullable<EarnRoute['depositData']>;
  // The position is what a deposit mints, or what a withdraw spends.
  const position = kind === 'deposit' ? trade.tokenOut : trade.tokenIn;
  const [farm, legs] = await Promise.all([
    routes.verifyFarm(depositData, position),
    Promise.all(
      route.underlyingRoutes.map(async (leg, i) => ({
        inputAmount: leg.inputAmount,
        hops: await routes.verifyRoute(leg, `underlyingRoutes[${i}]`, 'prove-by-flows'),
      })),
    ),
  ]);
  for (const [i, leg] of legs.entries()) {
    const index = leg.hops.findIndex((hop) => !isUnlisted(hop) && hop.venue);
    const venue = leg.hops[index];
    if (venue && !isUnlisted(venue) && venue.venue)
      throw new GuardRefusal(
        'unknown-adapter',
        `underlyingRoutes[${i}].pairs[${index}] swaps through ${venue.venue.of.nameOf(venue.venue.facts)}, which a ${kind}'s legs may not`,
        undefined,
        `underlyingRoutes[${i}].pairs[${index}]`,
      );
  }
  for (const [i, leg] of route.underlyingRoutes.entries()) {
    // A deposit leg must end in one of the pool's tokens (anything else would stay in the farm for the next
    // caller to take); a withdraw leg must start from one.
    const end = kind === 'deposit' ? leg.path[leg.path.length - 1] : leg.path[0];
    if (!end || (!isAddressEqual(end, farm.token0) && !isAddressEqual(end, farm.token1))) {
      const field = `underlyingRoutes[${i}].path[${kind === 'deposit' ? leg.path.length - 1 : 0}]`;
      throw new GuardRefusal('farm-mismatch', `${field} ${end} is not a token of pool ${farm.pool}`, undefined, field);
    }
  }
  return { farm, legs };
}

/** The routed parts of a deposit (`deposit`) or a withdrawal (`withdraw`). */
function farmRouted(kind: FarmKind, paid: (returned: Hex) => bigint): RoutedKind {
  const ofKind = (proposal: Parameters<RoutedKind['proposalOf']>[0]) => proposalOf(proposal, kind) as FarmProposal;
  return {
    proposalOf: ofKind,
    checkAnswer: (trade, proposal) => {
      const { route } = ofKind(proposal);
      if (!route.depositData) throw new GuardRefusal('quote-mismatch', 'the quote does not say which farm to use (no depositData)');
      if (kind === 'deposit') checkDepositQuote(trade, route);
      else checkWithdrawQuote(trade, route);
    },
    contracts: (_trade, proposal) => {
      const { route } = ofKind(proposal);
      return { router: route.routerAddress, oneClickFarm: route.oneClickFarmAddress };
    },
    verify: (routes, trade, proposal) => verifyFarmRoute(kind, routes, trade, ofKind(proposal)),
    reference: async (ctx, trade, _proposal, verified) => {
      if (!verified || !('farm' in verified)) return undefined;
      // A leg's hop through an unlisted adapter counts at the highest known fee until its flows prove its pool.
      const assumed = ctx.routes.highestKnownFee();
      const legs = verified.legs.map((leg) => ({ ...leg, hops: leg.hops.map((hop) => (isUnlisted(hop) ? { feePpm: assumed } : hop)) }));
      return farmReference(ctx, trade, kind, verified.farm, legs);
    },
    call: (trade, proposal, floor, referenceOut) => {
      const { route } = ofKind(proposal);
      const farm = route.depositData;
      if (!farm) throw new Error('check: a deposit or withdraw proposal must be checked for depositData first');
      const details = legPayloads(route, trade.slippageBps);
      const minOut = minimumOutput(route.expectedOut, trade.slippageBps, { reference: floor });
      const data =
        kind === 'deposit'
          ? encodeDepositCall({ details, router: route.routerAddress, farm: farm.addr, minExpected: minOut, to: trade.wallet, farmData: farm.extra })
          : encodeWithdrawCall({
              position: trade.tokenIn,
              amount: trade.amountIn,
              farm: farm.addr,
              farmData: farm.extra,
              details,
              router: route.routerAddress,
              tokenOut: trade.tokenOut,
              minOut,
              to: trade.wallet,
            });
      return {
        target: route.oneClickFarmAddress,
        spender: route.oneClickFarmAddress,
        oneClickFarm: route.oneClickFarmAddress,
        router: route.routerAddress,
        farm: farm.addr,
        data,
        expectedOut: route.expectedOut,
        minOut,
        referenceOut,
        deadline: earliest(details.map((detail) => detail.deadline)),
      };
    },
    paid,
    flowTerms: (_trade, proposal, call, verified) => {
      const { route } = ofKind(proposal);
      return {
        router: route.routerAddress,
        partners: route.underlyingRoutes.map((leg) => BigInt(leg.partner)),
        farm: 'farm' in verified ? { address: call.farm as Address, verified: verified.farm } : undefined,
        paysAtMost: kind === 'deposit',
      };
    },
    checks: [
      routedChecks.answerIsOurs,
      routedChecks.contractsKnown,
      routedChecks.routeKnown,
      routedChecks.poolsSteady,
      routedChecks.referenceRead,
      routedChecks.chainRead,
      routedChecks.nearReference,
      routedChecks.callIsOurs,
      routedChecks.allowance,
      routedChecks.deadline,
      routedChecks.feeCap,
      routedChecks.simulation,
      routedChecks.flowsAccounted,
      legsProven,
      routedChecks.shownPoolsSteady,
    ],
  };
}

/** A farm kind's module, its call's return value read with its own ABI. */
export function farmKind<T extends DepositTrade | WithdrawTrade>(
  kind: T['kind'],
  paid: (returned: Hex) => bigint,
  words: Pick<TradeKindModule<T>, 'asked' | 'done'>,
): TradeKindModule<T> {
  const routed = farmRouted(kind, paid);
  return {
    kind,
    quote: async (trade, { routing, signal, avoid }) => {
      const asked = { tokenIn: trade.tokenIn, tokenOut: trade.tokenOut, chainId: trade.chainId, excludePools: avoid, signal, inputAmount: trade.amountIn };
      return { kind, route: await (kind === 'deposit' ? routing.getDepositRoute(asked) : routing.getWithdrawRoute(asked)) };
    },
    check: (ctx, trade, proposal) => checkRouted(ctx, trade, proposal, routed),
    checks: routed.checks.map((check) => check.name),
    paid,
    outcome: (record, receipt) => paidToWallet(record, receipt),
    balanceProblems: (record, changes, mined) => paidBalanceProblems(record, changes, mined),
    receives: receivesOutput,
    effect: (record, amountOut) => (kind === 'deposit' ? { deposited: amountOut } : { withdrawn: { position: record.amountIn, received: amountOut } }),
    callTokens: (data) => {
      // Every token on the legs' routes.
      if (kind === 'deposit') return decodeFunctionData({ abi: oneClickFarmAbi, data }).args[0].flatMap((leg) => leg.path);
      return decodeFunctionData({ abi: oneClickWithdrawAbi, data }).args[4].flatMap((leg) => leg.path);
    },
    ...words,
  };
}
