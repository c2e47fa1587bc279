/**
 * At start-up, before anything new runs: every intent of this wallet whose fate the ledger does not know
 * is settled with the chain. Stored transactions are followed (and their exact bytes re-broadcast if the
 * chain never saw them); a mined trade's outcome is adopted. Nothing new is ever signed for these slots.
 */
import type { Address } from 'viem';
import type { ChainClient } from '../chain/chains.ts';
import type { WalletSender } from '../chain/sender.ts';
import { RoutekeeperError } from '../errors.ts';
import type { Intent, Ledger } from '../ledger/ledger.ts';
import { type ExecutionReport, recordOutcome } from './executor.ts';
import { outcomeReader } from './plans.ts';

export type ReconcileDeps = { client: ChainClient; ledger: Ledger; sender: WalletSender; chainId: number };

export async function reconcile(deps: ReconcileDeps): Promise<ExecutionReport[]> {
  const reports: ExecutionReport[] = [];
  const mine = deps.ledger
    .unfinishedIntents()
    .filter((intent) => intent.chainId === deps.chainId && intent.wallet.toLowerCase() === deps.sender.address.toLowerCase());
  for (const intent of mine) reports.push(await settle(deps, intent));
  return reports;
}

async function settle(deps: ReconcileDeps, intent: Intent): Promise<ExecutionReport> {
  const { ledger, sender } = deps;
  const base = { intentId: intent.id, steps: [] };
  const summary = (intent.quote ?? {}) as Record<string, unknown>;
  const request = intent.request as { tokenOut: Address };
  const outcomeOf = outcomeReader(intent.kind, summary, { tokenOut: request.tokenOut, wallet: sender.address });
  try {
    // First settle whatever is still open (an approval or the trade), re-broadcasting stored bytes if needed.
    const deadline = summary.deadline === undefined ? undefined : BigInt(summary.deadline as string);
    const resumed = await sender.resume(intent.id, { deadline });
    const trades = ledger.attemptsOf(intent.id).filter((a) => a.purpose !== 'approve');
    const settled = trades.find((a) => a.status === 'mined' || a.status === 'reverted');
    if (resumed && resumed.attempt.purpose !== 'approve') {
      ledger.recordEvent('reconciled', { hash: resumed.receipt.transactionHash, status: resumed.receipt.status }, intent.id);
      return { ...base, ...(await recordOutcome(deps, intent.id, outcomeOf, resumed, sender.address)) } as ExecutionReport;
    }
    if (settled) {
      // The trade was mined before we stopped, but its outcome was not written: adopt it.
      const receipt = await deps.client.getTransactionReceipt({ hash: settled.hash });
      ledger.recordEvent('reconciled', { hash: settled.hash, status: receipt.status, adopted: true }, intent.id);
      const result = { receipt, attempt: settled, cancelled: settled.purpose === 'cancel' };
      return { ...base, ...(await recordOutcome(deps, intent.id, outcomeOf, result, sender.address)) } as ExecutionReport;
    }
    const reason = 'interrupted before a trade was signed; nothing was traded';
    ledger.updateIntent(intent.id, { status: 'failed', reason });
    return { ...base, status: 'failed', reason };
  } catch (error) {
    const reason = error instanceof RoutekeeperError ? error.shortMessage : String(error);
    ledger.recordEvent('reconcile-failed', { reason }, intent.id);
    const stillOpen = ledger.attemptsOf(intent.id).some((a) => a.status === 'signed' || a.status === 'broadcast');
    if (!stillOpen) ledger.updateIntent(intent.id, { status: 'failed', reason });
    return { ...base, status: stillOpen ? 'submitted' : 'failed', reason };
  }
}
