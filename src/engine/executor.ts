/**
 * Runs one trade intent end to end: claim the slot in the ledger, quote, check, simulate, approve, sign,
 * send, follow, record the outcome. Every run returns a typed report with each step's status and time,
 * failures included. A slot that already ran is skipped: a slot trades at most once.
 */
import { type Address, type Hex, erc20Abi, maxUint256 } from 'viem';
import { readAllowance, type ApprovalMode, ensureAllowance } from '../chain/approvals.ts';
import type { ChainClient } from '../chain/chains.ts';
import { TransactionRevertedError } from '../chain/errors.ts';
import { revertReason } from '../chain/revert.ts';
import type { WalletSender } from '../chain/sender.ts';
import { simulateOutput } from '../chain/simulate.ts';
import { RoutekeeperError } from '../errors.ts';
import {
  type Allowlist,
  type Budget,
  checkBudget,
  checkContractsAllowed,
  checkDeadline,
  checkFeeCap,
  checkSimulation,
  checkThreshold,
  minimumFromPrice,
} from '../guard/guards.ts';
import { GuardRefusal, type RefusalReason } from '../guard/refusal.ts';
import type { IntentKind, Ledger } from '../ledger/ledger.ts';
import type { RoutingClient } from '../service/client.ts';
import { type TradeAsk, type TradePlan, claimPlan, depositPlan, earliest, swapPlan, withdrawPlan } from './plans.ts';

export type TradeRequest = {
  strategyId: string;
  /** The schedule slot this run belongs to; with the strategy id it names the intent. */
  slot: string;
  kind: IntentKind;
  /** For a withdraw: the LP or gauge token; for a claim: the gauge. */
  tokenIn: Address;
  /** For a deposit: the LP or gauge token; for a claim: the reward token. */
  tokenOut: Address;
  amountIn: bigint;
  slippageBps: number;
  /** The strategy's absolute minimum output, raw units. */
  minAmountOut?: bigint;
  /** The strategy's price limit: at least this much tokenOut per tokenIn, in human units ("0.45"). */
  minPrice?: string;
  budgets?: { strategy?: readonly Budget[]; wallet?: readonly Budget[] };
};

export type ExecutionSettings = {
  dryRun: boolean;
  approvals: ApprovalMode;
  /** A quote's deadline must leave at least minSeconds to be mined, and be at most maxSeconds away. */
  deadline: { minSeconds: number; maxSeconds: number };
  feeCap?: bigint;
};

export const defaultExecutionSettings: ExecutionSettings = {
  dryRun: false,
  approvals: 'exact',
  deadline: { minSeconds: 30, maxSeconds: 30 * 60 },
};

export type ExecutorDeps = {
  chainId: number;
  client: ChainClient;
  ledger: Ledger;
  routing: RoutingClient;
  allowlist: Allowlist;
  sender: WalletSender;
  settings: ExecutionSettings;
};

export type RunStatus = 'skipped' | 'refused' | 'dry-run' | 'confirmed' | 'failed' | 'submitted';

export type ExecutionReport = {
  intentId: string;
  status: RunStatus;
  reason?: string;
  refusal?: RefusalReason;
  expectedOut?: bigint;
  minOut?: bigint;
  simulatedOut?: bigint;
  amountOut?: bigint;
  txHash?: Hex;
  /** Gas paid by the mined transaction, in wei of the native coin. */
  gasCostWei?: bigint;
  steps: { step: string; ms: number; ok: boolean }[];
};

const DAY_MS = 24 * 3600 * 1000;

export const intentIdOf = (strategyId: string, slot: string) => `${strategyId}:${slot}`;

export async function executeTrade(deps: ExecutorDeps, request: TradeRequest): Promise<ExecutionReport> {
  const { ledger, sender } = deps;
  const wallet = sender.address;
  const intentId = intentIdOf(request.strategyId, request.slot);
  const report: ExecutionReport = { intentId, status: 'failed', steps: [] };
  const step = async <T>(name: string, work: () => Promise<T> | T): Promise<T> => {
    const started = performance.now();
    try {
      const result = await work();
      report.steps.push({ step: name, ms: Math.round(performance.now() - started), ok: true });
      return result;
    } catch (error) {
      report.steps.push({ step: name, ms: Math.round(performance.now() - started), ok: false });
      throw error;
    }
  };

  const claimed = ledger.createIntent({
    id: intentId,
    strategyId: request.strategyId,
    slot: request.slot,
    kind: request.kind,
    wallet,
    chainId: deps.chainId,
    tokenIn: request.tokenIn,
    amountIn: request.amountIn,
    request,
  });
  if (!claimed) return { ...report, status: 'skipped', reason: `slot ${request.slot} of ${request.strategyId} already ran` };

  const ask: TradeAsk = { kind: request.kind, tokenIn: request.tokenIn, tokenOut: request.tokenOut, amountIn: request.amountIn, slippageBps: request.slippageBps, wallet };
  let plan: TradePlan | undefined;
  try {
    const threshold = await step('threshold', () => thresholdOf(deps.client, request));
    plan = await step('quote', () => quotePlan(deps, request, ask, threshold));
    const checked = plan;
    const { fees, allowance } = await step('guards', async () => {
      // The chain reads the guards need go out together (one batched HTTP request).
      const [block, fees, allowance] = await Promise.all([
        deps.client.getBlock({ blockTag: 'latest' }),
        deps.client.estimateFeesPerGas({ type: 'eip1559' }),
        checked.spender ? readAllowance(deps.client, request.tokenIn, wallet, checked.spender) : maxUint256,
      ]);
      checkContractsAllowed(deps.allowlist, checked.contracts);
      checkDeadline(checked.deadlines, block.timestamp, deps.settings.deadline);
      checkThreshold(checked.expectedOut, threshold);
      checked.checkReadyTransaction();
      checkBudgets(ledger, request, wallet, intentId);
      checkFeeCap(fees.maxFeePerGas, deps.settings.feeCap);
      return { fees, allowance };
    });
    report.expectedOut = checked.expectedOut;
    report.minOut = checked.minOut;
    ledger.updateIntent(intentId, { status: 'pending', quote: checked.summary });

    const simulate = (withApproval: boolean) =>
      simulateOutput(deps.client, {
        from: wallet,
        to: checked.target,
        data: checked.data,
        approval: withApproval && checked.spender ? { token: request.tokenIn, spender: checked.spender, amount: request.amountIn } : undefined,
        decode: checked.decodeReturn,
      });
    report.simulatedOut = await step('simulate', async () => {
      const out = await simulate(allowance < request.amountIn);
      checkSimulation(out, checked.minOut);
      return out;
    });

    if (deps.settings.dryRun) {
      const outcome = { dryRun: true, expectedOut: checked.expectedOut, minOut: checked.minOut, simulatedOut: report.simulatedOut };
      ledger.updateIntent(intentId, { status: 'dry-run', outcome });
      return { ...report, status: 'dry-run' };
    }

    const spender = checked.spender;
    if (spender) {
      await step('approve', () => ensureAllowance(deps.client, sender, { token: request.tokenIn, spender, amount: request.amountIn, mode: deps.settings.approvals, intentId }));
    }
    ledger.updateIntent(intentId, { status: 'submitted' });
    const result = await step('send', () =>
      sender.send(
        { to: checked.target, data: checked.data },
        {
          intentId,
          purpose: 'trade',
          fees,
          deadline: earliest(checked.deadlines),
          // A replacement is a new signature: the guards that can change with time run again first.
          beforeResend: async () => {
            const now = (await deps.client.getBlock({ blockTag: 'latest' })).timestamp;
            checkDeadline(checked.deadlines, now, { ...deps.settings.deadline, minSeconds: 0 });
            checkSimulation(await simulate(false), checked.minOut);
          },
        },
      ),
    );
    return { ...report, ...(await recordOutcome(deps, intentId, checked.outcome, result, wallet)) };
  } catch (error) {
    return { ...report, ...recordFailure(ledger, intentId, error) };
  }
}

async function quotePlan(deps: ExecutorDeps, request: TradeRequest, ask: TradeAsk, threshold: bigint | undefined): Promise<TradePlan> {
  const common = { tokenIn: request.tokenIn, tokenOut: request.tokenOut, chainId: deps.chainId };
  if (request.kind === 'swap') {
    const route = await deps.routing.getSwapRoute({ ...common, amountIn: request.amountIn, slippageBps: request.slippageBps, from: ask.wallet });
    return swapPlan(ask, route, threshold);
  }
  if (request.kind === 'claim') return claimPlan(ask);
  if (request.kind === 'deposit') return depositPlan(ask, await deps.routing.getDepositRoute({ ...common, inputAmount: request.amountIn }));
  return withdrawPlan(ask, await deps.routing.getWithdrawRoute({ ...common, inputAmount: request.amountIn }));
}

/** The strategy's floor in raw units: the higher of its absolute minimum and its price limit. */
async function thresholdOf(client: ChainClient, request: TradeRequest): Promise<bigint | undefined> {
  let threshold = request.minAmountOut;
  if (request.minPrice !== undefined) {
    const decimals = (token: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' });
    const [decimalsIn, decimalsOut] = await Promise.all([decimals(request.tokenIn), decimals(request.tokenOut)]);
    const fromPrice = minimumFromPrice(request.amountIn, request.minPrice, decimalsIn, decimalsOut);
    threshold = threshold === undefined || fromPrice > threshold ? fromPrice : threshold;
  }
  return threshold;
}

function checkBudgets(ledger: Ledger, request: TradeRequest, wallet: Address, intentId: string) {
  const now = Date.now();
  const scopes = [
    { budgets: request.budgets?.strategy ?? [], scope: `strategy ${request.strategyId}`, filter: { strategyId: request.strategyId } },
    { budgets: request.budgets?.wallet ?? [], scope: `wallet ${wallet}`, filter: { wallet } },
  ];
  for (const { budgets, scope, filter } of scopes) {
    for (const budget of budgets) {
      if (budget.token.toLowerCase() !== request.tokenIn.toLowerCase()) continue;
      checkBudget(budget, request.amountIn, scope, (window) =>
        ledger.spentSince({ ...filter, tokenIn: request.tokenIn, since: window === 'day' ? now - DAY_MS : 0, excludeId: intentId }),
      );
    }
  }
}

/** Turns a settled transaction into the intent's outcome: what the logs say was paid, or why it failed. */
export async function recordOutcome(
  deps: Pick<ExecutorDeps, 'client' | 'ledger'>,
  intentId: string,
  outcomeOf: TradePlan['outcome'],
  result: Awaited<ReturnType<WalletSender['send']>>,
  wallet: Address,
): Promise<Partial<ExecutionReport>> {
  const { receipt, attempt, cancelled } = result;
  const onChain = { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, effectiveGasPrice: receipt.effectiveGasPrice };
  const gasCostWei = receipt.gasUsed * receipt.effectiveGasPrice;
  if (cancelled) {
    const reason = 'cancelled: the stuck trade was replaced by a zero-value transfer';
    deps.ledger.updateIntent(intentId, { status: 'failed', reason, outcome: onChain });
    return { status: 'failed', reason, txHash: receipt.transactionHash, gasCostWei };
  }
  if (receipt.status !== 'success') {
    const tx = await deps.client.getTransaction({ hash: receipt.transactionHash });
    const why = await revertReason(deps.client, { from: wallet, to: tx.to as Address, data: tx.input, gas: tx.gas }, receipt.blockNumber - 1n);
    const reason = `reverted on chain: ${why}`;
    deps.ledger.updateIntent(intentId, { status: 'failed', reason, outcome: onChain });
    return { status: 'failed', reason, txHash: attempt.hash, gasCostWei };
  }
  const amountOut = outcomeOf(receipt);
  deps.ledger.updateIntent(intentId, { status: 'confirmed', reason: null, outcome: { ...onChain, amountOut } });
  return { status: 'confirmed', amountOut, txHash: receipt.transactionHash, gasCostWei };
}

/**
 * A run that threw: refused by a guard, failed before any trade was signed, or left open when a signed
 * trade's fate is unknown (then reconciliation settles it; nothing new is signed for the slot).
 */
function recordFailure(ledger: Ledger, intentId: string, error: unknown): Partial<ExecutionReport> {
  const message = error instanceof RoutekeeperError ? error.shortMessage : error instanceof Error ? error.message : String(error);
  if (error instanceof GuardRefusal) {
    ledger.updateIntent(intentId, { status: 'refused', reason: `${error.reason}: ${message}` });
    return { status: 'refused', refusal: error.reason, reason: message };
  }
  const unsettled = ledger.attemptsOf(intentId).some((a) => a.purpose !== 'approve' && (a.status === 'signed' || a.status === 'broadcast'));
  if (unsettled) {
    ledger.updateIntent(intentId, { status: 'submitted', reason: `outcome not known yet: ${message}` });
    return { status: 'submitted', reason: message };
  }
  const reason = error instanceof TransactionRevertedError ? `would revert: ${error.reason}` : message;
  ledger.updateIntent(intentId, { status: 'failed', reason });
  return { status: 'failed', reason };
}
