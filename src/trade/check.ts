/**
 * The check stage: every guard a trade passes before anything is signed, in the order they run. The routing
 * service is untrusted: its answer must be about exactly what we asked, every contract must be known for the
 * chain, the call is our own encoding, and a simulation of the exact transactions must pay our minimum.
 * A failing check throws a GuardRefusal naming its reason; nothing is signed.
 */
import { type Address, maxUint256 } from 'viem';
import type { Fees } from '../chain/fees.ts';
import { type Approval, type Preflight, preflight } from '../chain/preflight.ts';
import type { Wallet } from '../chain/wallet.ts';
import {
  type Allowlist,
  type Budget,
  checkBudget,
  checkContractsAllowed,
  checkDeadline,
  checkDepositQuote,
  checkFeeCap,
  checkReadyTransaction,
  checkSimulation,
  checkSwapQuote,
  checkThreshold,
  checkWithdrawQuote,
} from '../guard/guards.ts';
import { GuardRefusal } from '../guard/refusal.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { abortable } from '../ops/abort.ts';
import { type BuiltCall, buildCall, returnedAmount } from './call.ts';
import type { Proposal } from './quote.ts';
import type { ExecutionSettings, TradeBudgets } from './settings.ts';
import type { Trade } from './types.ts';

export type CheckContext = {
  ledger: Ledger;
  wallet: Wallet;
  allowlist: Allowlist;
  settings: ExecutionSettings;
  budgets: TradeBudgets;
  signal?: AbortSignal;
};

/** A trade that passed every check: the call, the approval it needs, and the chain as the checks read it. */
export type Checked = {
  call: BuiltCall;
  /** Set when the spender's allowance is short: approve first, on the nonce before the trade. */
  approval?: Approval;
  reads: Preflight;
  fees: Fees;
  /** Gas limits with headroom, from the simulation (undefined: simulate again once the approval is mined). */
  gas: { approve?: bigint; trade?: bigint };
  simulatedOut?: bigint;
};

const DAY_MS = 24 * 3600 * 1000;

export async function check(ctx: CheckContext, trade: Trade, proposal: Proposal): Promise<Checked> {
  // 1. The answer is about what we asked: our tokens, our amount, one expected output, a farm to use.
  checkProposal(trade, proposal);

  // 2. The call is ours: our recipient, our minimum (never the service's), other route fields passed through.
  const call = buildCall(trade, proposal);

  // 3. Every contract the call runs through or that receives an approval is known for this chain.
  checkContractsAllowed(ctx.allowlist, {
    router: call.router,
    oneClickFarm: call.oneClickFarm,
    farm: call.farm,
    gauge: trade.kind === 'claim' ? trade.tokenIn : undefined,
  });

  // 4. The strategy's own floor (price limit, take-profit level).
  if (trade.kind === 'swap') checkThreshold(call.expectedOut, trade.minAmountOut);

  // 5. Budgets: what this strategy and this wallet already committed, from the ledger.
  checkBudgets(ctx, trade);

  // 6. One batched read of the chain: block, fees, nonce, allowance, and a simulation of the exact transactions.
  const approval = call.spender ? approvalOf(trade, call.spender, ctx.settings) : undefined;
  const reads = await abortable(preflight(ctx.wallet.client, { from: trade.wallet, to: call.target, data: call.data, approval }), ctx.signal);
  const needsApproval = approval !== undefined && (reads.allowance ?? 0n) < approval.amount;

  // 7. The deadline leaves time to be mined and is not too far.
  if (call.deadline !== undefined) checkDeadline([call.deadline], reads.block.timestamp, ctx.settings.deadline);

  // 8. A ready-to-sign transaction from the service, if it sent one, is exactly our call (minimum included).
  if (proposal.kind === 'swap' && call.payload) checkReadyTransaction(proposal.route.txn, { to: call.target, from: trade.wallet, payload: call.payload });

  // 9. Gas is within the cap.
  const fees = ctx.wallet.fees.fromBlock(reads.block.baseFeePerGas, reads.maxPriorityFeePerGas);
  checkFeeCap(fees.maxFeePerGas, ctx.settings.feeCap);

  // 10. The exact transactions, simulated together, succeed and pay at least our minimum.
  if (needsApproval && reads.approvalResult && !reads.approvalResult.ok) {
    throw new GuardRefusal('simulation', `a simulation of the approval of ${approval.token} reverts: ${reads.approvalResult.reason}`);
  }
  const gas: Checked['gas'] = {};
  let simulatedOut: bigint | undefined;
  if (reads.call !== 'unsimulated') {
    if (!reads.call.ok) throw new GuardRefusal('simulation', `a simulation of the exact transaction reverts: ${reads.call.reason}`);
    simulatedOut = returnedAmount(trade.kind, reads.call.returned);
    checkSimulation(simulatedOut, call.minOut);
    gas.trade = reads.call.gasUsed;
  }
  if (needsApproval && reads.approvalResult?.ok) gas.approve = reads.approvalResult.gasUsed;
  return { call, approval: needsApproval ? approval : undefined, reads, fees: ctx.wallet.fees.capped(fees), gas, simulatedOut };
}

/** The checks that can change with time, for a call already signed: run again before it is replaced. */
export async function recheck(ctx: Pick<CheckContext, 'wallet' | 'settings'>, trade: Trade, call: Pick<BuiltCall, 'target' | 'data' | 'minOut' | 'deadline'>): Promise<void> {
  const reads = await preflight(ctx.wallet.client, { from: trade.wallet, to: call.target, data: call.data });
  if (call.deadline !== undefined) checkDeadline([call.deadline], reads.block.timestamp, { ...ctx.settings.deadline, minSeconds: 0 });
  if (reads.call === 'unsimulated' || !reads.call.ok) {
    throw new GuardRefusal('simulation', `a simulation of the exact transaction reverts: ${reads.call === 'unsimulated' ? 'not simulated' : reads.call.reason}`);
  }
  checkSimulation(returnedAmount(trade.kind, reads.call.returned), call.minOut);
}

function checkProposal(trade: Trade, proposal: Proposal): void {
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

function approvalOf(trade: Trade, spender: Address, settings: ExecutionSettings): Approval {
  return { token: trade.tokenIn, spender, amount: trade.amountIn, value: settings.approvals === 'unlimited' ? maxUint256 : trade.amountIn };
}

function checkBudgets(ctx: CheckContext, trade: Trade): void {
  const now = Date.now();
  const scopes: { budgets: readonly Budget[]; scope: string; filter: { strategyId?: string; wallet?: Address } }[] = [
    { budgets: ctx.budgets.strategy?.(trade.strategyId) ?? [], scope: `strategy ${trade.strategyId}`, filter: { strategyId: trade.strategyId } },
    { budgets: ctx.budgets.wallet ?? [], scope: `wallet ${trade.wallet}`, filter: { wallet: trade.wallet } },
  ];
  for (const { budgets, scope, filter } of scopes) {
    for (const budget of budgets) {
      if (budget.token.toLowerCase() !== trade.tokenIn.toLowerCase()) continue;
      checkBudget(budget, trade.amountIn, scope, (window) =>
        ctx.ledger.spentSince({ ...filter, tokenIn: trade.tokenIn, since: window === 'day' ? now - DAY_MS : 0, excludeId: trade.id }),
      );
    }
  }
}
