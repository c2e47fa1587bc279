/**
 * Claim a gauge's rewards: the gauge is the trade's `tokenIn`, its reward token `tokenOut`, the amount the rewards
 * observed. Nothing is asked of the routing service and nothing leaves the wallet; the gauge must be a known one.
 */
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { stakingGaugeAbi } from '../../contracts/abi.ts';
import type { ClaimTrade } from '../../model/trade.ts';
import { type RoutedKind, checkRouted, routedChecks } from '../check.ts';
import { proposalOf } from '../proposal.ts';
import type { TradeKindModule } from './kind.ts';
import { paidBalanceProblems, paidToWallet, receivesOutput } from './paid-to-wallet.ts';

const paid = (returned: `0x${string}`) => decodeFunctionResult({ abi: stakingGaugeAbi, functionName: 'claim', data: returned });

const routed: RoutedKind = {
  proposalOf: (proposal) => proposalOf(proposal, 'claim'),
  checkAnswer: () => undefined,
  contracts: (trade) => ({ gauge: trade.tokenIn }),
  verify: async () => undefined,
  reference: async () => undefined,
  // The gauge pays at least what was observed; the minimum is "something".
  call: (trade) => ({
    target: trade.tokenIn,
    data: encodeFunctionData({ abi: stakingGaugeAbi, functionName: 'claim' }),
    expectedOut: trade.amountIn,
    minOut: 1n,
  }),
  paid,
  // A known gauge paying its own rewards: no route, no price, no flows to account for.
  checks: [routedChecks.contractsKnown, routedChecks.chainRead, routedChecks.callIsOurs, routedChecks.allowance, routedChecks.feeCap, routedChecks.simulation],
};

export const claim: TradeKindModule<ClaimTrade> = {
  kind: 'claim',
  quote: async () => ({ kind: 'claim' }),
  check: (ctx, trade, proposal) => checkRouted(ctx, trade, proposal, routed),
  checks: routed.checks.map((check) => check.name),
  paid,
  outcome: (record, receipt) => paidToWallet(record, receipt),
  // Its `tokenIn` is the gauge: nothing of it is spent.
  balanceProblems: (record, changes, mined) => paidBalanceProblems(record, changes, mined, false),
  receives: receivesOutput,
  effect: (_record, amountOut) => ({ claimed: amountOut }),
  callTokens: () => [],
  asked: (trade, names) => `claim ${names.symbol(trade.tokenOut)} rewards`,
  done: (trade, amountOut, names) => `claimed ${amountOut === undefined ? names.symbol(trade.tokenOut) : names.amount(amountOut, trade.tokenOut)}`,
};
