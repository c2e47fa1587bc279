/** The approvals a trade needs: one per token it spends, to the call's spender, and which of them the chain finds short. */
import { type Address, maxUint256 } from 'viem';
import type { Approval, Preflight } from '../chain/preflight.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import type { Trade } from '../model/trade.ts';
import { spentTokens } from '../model/kinds/registry.ts';
import type { ExecutionSettings } from './settings.ts';

/** An approval the trade needs first (its allowance is short), with the gas its simulation used (none: not simulated). */
export type NeededApproval = { approval: Approval; gas?: bigint };

/** The allowance `spender` needs of each token the trade spends: exactly what it spends, or unlimited when the settings say so. */
export function approvalsOf(trade: Trade, spender: Address, settings: ExecutionSettings): Approval[] {
  return spentTokens(trade).map(({ token, amount }) => ({ token, spender, amount, value: settings.approvals === 'unlimited' ? maxUint256 : amount }));
}

/**
 * Of the approvals a call may need (in the order the preflight simulated them), those whose allowance is short, each
 * with its simulated gas; a simulated approval that reverts is refused.
 */
export function neededApprovals(approvals: readonly Approval[], reads: Preflight): NeededApproval[] {
  return approvals.flatMap((approval, i) => {
    if ((reads.allowances[i] ?? 0n) >= approval.amount) return [];
    const simulated = reads.approvalResults[i];
    if (simulated && !simulated.ok) throw new GuardRefusal('simulation', `a simulation of the approval of ${approval.token} reverts: ${simulated.reason}`);
    return [{ approval, ...(simulated?.ok && { gas: simulated.gasUsed }) }];
  });
}
