/** Sell an amount of one token for another through the router, on a route the routing service proposes. */
import { type Hex, decodeFunctionData, decodeFunctionResult, isAddressEqual } from 'viem';
import { routerAbi } from '../../contracts/abi.ts';
import { encodeSwapCall } from '../../contracts/calldata.ts';
import { hopQuoteRead } from '../../contracts/hop-quoter.ts';
import { type SwapPayload, swapPayloadFrom } from '../../contracts/payload.ts';
import { flowsOf } from '../../guard/flows.ts';
import { checkDelivered, checkMarket, checkReadyTransaction, checkSwapQuote, checkThreshold, minimumOutput } from '../../guard/guards.ts';
import type { SwapTrade } from '../../model/trade.ts';
import { uncappedOutput } from '../call-types.ts';
import { type RoutedCheck, type RoutedKind, checkRouted, provenHops, provenSwaps, routedChecks } from '../check.ts';
import type { NamedCheck } from '../check-runner.ts';
import { proposalOf } from '../proposal.ts';
import { withPriceRefusals } from '../price-refusals.ts';
import { oracleAfterFees, oracleSwapValue, swapReference } from '../reference.ts';
import type { TradeKindModule } from './kind.ts';
import { paidBalanceProblems, paidToWallet, receivesOutput } from './paid-to-wallet.ts';

const paid = (returned: Hex) => decodeFunctionResult({ abi: routerAbi, functionName: 'swapExactInputForOutput', data: returned });

/** The swap's own checks, besides the routed ones. */
const swapChecks = {
  /** The strategy's own floor (a price limit or take-profit level): what the route is expected to pay reaches it. */
  strategyFloor: {
    name: 'strategy-floor',
    verify: (s) => checkThreshold(s.filled('call').expectedOut, (s.trade as SwapTrade).minAmountOut),
  },
  /** A ready-to-sign transaction from the service, if it sent one, describes our call. */
  readyTransaction: {
    name: 'ready-transaction',
    verify: (s) => {
      const call = s.filled('call');
      if (call.payload) checkReadyTransaction(proposalOf(s.proposal, 'swap').route.txn, { to: call.target, from: s.trade.wallet, payload: call.payload });
    },
  },
  /**
   * The route delivered, in the simulation of the exact transaction, at least what its hops quoted on the same state:
   * an adapter whose quote promises more than its swap pays is refused.
   */
  deliveredToRouter: {
    name: 'delivered-to-router',
    verify: (s) => {
      const hopOuts = s.reference?.hopOuts;
      const reads = s.filled('reads');
      if (!hopOuts || reads.call === 'unsimulated' || !reads.call.ok || !reads.call.logs) return;
      const router = s.filled('call').target;
      const delivered = flowsOf(reads.call.logs)
        .filter((flow) => isAddressEqual(flow.to, router) && isAddressEqual(flow.token, s.trade.tokenOut))
        .reduce((sum, flow) => sum + flow.amount, 0n);
      checkDelivered(hopOuts, delivered, s.swaps);
    },
  },
  /** A hop through an unlisted adapter, once its flows prove its pool: the route still pays within the tolerance of the oracle after that pool's fee. */
  unlistedPoolsPriced: {
    name: 'unlisted-pools-priced',
    verify: (s) => {
      const { verified, reference } = s;
      if (!verified || !('hops' in verified) || reference?.oracleValue === undefined || reference.oracleOut !== undefined) return;
      const { oracleOut, fees } = oracleAfterFees(reference.oracleValue, provenHops(verified.hops, s.swaps));
      checkMarket(reference.amountOut, oracleOut, s.ctx.priceToleranceBps);
      Object.assign(reference, { oracleOut, basis: `${reference.basis}, ${fees} (pools proven by the simulation's flows)` });
    },
  },
} satisfies Record<string, NamedCheck<RoutedCheck>>;

const routed: RoutedKind = {
  proposalOf: (proposal) => proposalOf(proposal, 'swap'),
  checkAnswer: (trade, proposal) => checkSwapQuote(trade, proposalOf(proposal, 'swap').route),
  contracts: (_trade, proposal) => ({ router: proposalOf(proposal, 'swap').route.routerAddress }),
  verify: async (routes, _trade, proposal) => ({ hops: await routes.verifyRoute(proposalOf(proposal, 'swap').route.details, 'details', 'prove-by-flows') }),
  reference: async (ctx, trade, proposal, verified, quoted) =>
    verified && 'hops' in verified ? swapReference(ctx.prices, trade, proposalOf(proposal, 'swap').route.details, verified.hops, quoted()) : undefined,
  call: (trade, proposal, floor, referenceOut) => {
    const { route } = proposalOf(proposal, 'swap');
    const minOut = minimumOutput(route.expectedOut, trade.slippageBps, { threshold: (trade as SwapTrade).minAmountOut, reference: floor });
    const payload = swapPayloadFrom(route.details, { minOutputAmount: minOut, to: trade.wallet, expectedOutputAmount: uncappedOutput });
    return {
      target: route.routerAddress,
      spender: route.routerAddress,
      router: route.routerAddress,
      data: encodeSwapCall(payload),
      expectedOut: route.expectedOut,
      minOut,
      referenceOut,
      deadline: payload.deadline,
      payload,
    };
  },
  paid,
  // What the route pays is read in the same simulation, on the state the call meets (contracts/hop-quoter.ts).
  quoteRead: (trade, proposal) => hopQuoteRead(proposalOf(proposal, 'swap').route.details, trade.amountIn),
  flowTerms: (_trade, proposal) => {
    const { route } = proposalOf(proposal, 'swap');
    return { router: route.routerAddress, partners: [BigInt(route.details.partner)] };
  },
  checks: [
    routedChecks.answerIsOurs,
    routedChecks.contractsKnown,
    routedChecks.routeKnown,
    routedChecks.poolsSteady,
    routedChecks.venuesOpen,
    routedChecks.referenceRead,
    routedChecks.chainRead,
    routedChecks.venuesPriced,
    routedChecks.nearReference,
    routedChecks.callIsOurs,
    swapChecks.strategyFloor,
    routedChecks.allowance,
    routedChecks.deadline,
    swapChecks.readyTransaction,
    routedChecks.feeCap,
    routedChecks.simulation,
    routedChecks.flowsAccounted,
    swapChecks.deliveredToRouter,
    swapChecks.unlistedPoolsPriced,
    routedChecks.shownPoolsSteady,
  ],
};

export const swap: TradeKindModule<SwapTrade> = {
  kind: 'swap',
  quote: async (trade, { routing, signal, avoid }) => ({
    kind: 'swap',
    route: await routing.getSwapRoute({
      tokenIn: trade.tokenIn,
      tokenOut: trade.tokenOut,
      chainId: trade.chainId,
      excludePools: avoid,
      signal,
      amountIn: trade.amountIn,
      slippageBps: trade.slippageBps,
      from: trade.wallet,
    }),
  }),
  check: (ctx, trade, proposal) => checkRouted(ctx, trade, proposal, routed),
  checks: routed.checks.map((check) => check.name),
  paid,
  /**
   * What it pays now is within the tolerance of the oracle now: a market that moved up while the transaction waited
   * would otherwise be sold into at the old price. The replacement is a new signature: its flows are accounted for as
   * the original's were.
   */
  recheck: async (ctx, trade, call, reads, paysNow) => {
    const { routes, prices } = ctx;
    if (!routes || !prices || reads.call === 'unsimulated' || !reads.call.ok) return;
    const [payload] = decodeFunctionData({ abi: routerAbi, data: call.data }).args as readonly [SwapPayload];
    const listed = await routes.verifyRoute(payload, 'call', 'prove-by-flows');
    const swaps = await provenSwaps(routes, trade, reads.call.logs, listed, { router: call.target, partners: [payload.partner], minOut: call.minOut });
    const hops = provenHops(listed, swaps);
    await withPriceRefusals(async () =>
      checkMarket(paysNow, await oracleSwapValue(prices, trade, hops), ctx.priceToleranceBps ?? ctx.settings.maxPriceDeviationBps),
    );
  },
  outcome: (record, receipt) => paidToWallet(record, receipt, record.call?.router),
  balanceProblems: (record, changes, mined) => paidBalanceProblems(record, changes, mined),
  receives: receivesOutput,
  effect: (record) => ({ swapped: { partnerFee: record.settlement?.partnerFee } }),
  callTokens: (data) => {
    const decoded = decodeFunctionData({ abi: routerAbi, data });
    return decoded.functionName === 'swapExactInputForOutput' ? decoded.args[0].path : [];
  },
  asked: (trade, names) => `sell ${names.amount(trade.amountIn, trade.tokenIn)} for ${names.symbol(trade.tokenOut)}`,
  done: (trade, amountOut, names) =>
    `sold ${names.amount(trade.amountIn, trade.tokenIn)} for ${amountOut === undefined ? names.symbol(trade.tokenOut) : names.amount(amountOut, trade.tokenOut)}`,
};
