/**
 * A trade read back from the ledger is authorized before it is resumed, and each of its stored transactions before
 * it is sent again or replaced: only the strategy file and the chain justify a signature, never a row alone.
 * - its request carries the wallet's tag (record-tags.ts), and, not signed yet, fits a strategy of the current file
 *   (`fits`; a misfit is refused, not an anomaly: the file changed);
 * - once signed, its checked call carries the wallet's tag too;
 * - each stored transaction is proven the wallet's own (chain/stored-tx.ts), and its call, read from the bytes, is
 *   one of the trade's own: its checked call, the approval that call needs (exact, or unlimited when the settings
 *   say so), or a cancellation to the wallet itself. Its purpose is the call's, and must be the row's.
 * Anything else is StoredRecordRefusedError, named: nothing is signed or sent for it.
 */
import { type Address, type Hex, decodeFunctionData, erc20Abi, isAddressEqual, maxUint256 } from 'viem';
import { StoredRecordRefusedError } from '../chain/errors.ts';
import { isOpenAttempt } from '../chain/journal.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import { type ProvenCall, provenCall } from '../chain/stored-tx.ts';
import type { TxRequest, Wallet } from '../chain/wallet.ts';
import type { Attempt, AttemptPurpose } from '../model/attempt.ts';
import type { ApprovalMode } from './settings.ts';
import { type Trade, type TradeRecord, presignStates } from '../model/trade.ts';
import { spentTokens } from '../model/kinds/registry.ts';

/** Why a trade does not fit any strategy of the current file (undefined: it fits). */
export type StrategyFit = (trade: Trade) => string | undefined;

/** A stored transaction's call, proven and authorized, with its purpose read from it and the gas and fees it was signed with. */
export type AuthorizedCall = ProvenCall & { purpose: AttemptPurpose };

/** Which of the trade's own transactions `call` is, or undefined when it is none of them. */
export function purposeOf(wallet: Address, record: TradeRecord, call: TxRequest, approvals: ApprovalMode): AttemptPurpose | undefined {
  if (call.value !== undefined && call.value !== 0n) return undefined;
  if (isAddressEqual(call.to, wallet) && call.data === '0x') return 'cancel';
  const checked = record.call;
  if (!checked) return undefined;
  if (isAddressEqual(call.to, checked.target) && call.data.toLowerCase() === checked.data.toLowerCase()) return 'trade';
  // An approval of a token the trade spends, to the call's spender, of exactly what it spends (or unlimited, when allowed).
  const spent = checked.spender ? spentTokens(record).find((spend) => isAddressEqual(call.to, spend.token)) : undefined;
  if (spent && checked.spender) {
    const approval = decodedApproval(call.data);
    const amountAllowed = approval?.amount === spent.amount || (approvals === 'unlimited' && approval?.amount === maxUint256);
    if (approval && isAddressEqual(approval.spender, checked.spender) && amountAllowed) return 'approve';
  }
  return undefined;
}

function decodedApproval(data: Hex): { spender: Address; amount: bigint } | undefined {
  try {
    const decoded = decodeFunctionData({ abi: erc20Abi, data });
    return decoded.functionName === 'approve' ? { spender: decoded.args[0], amount: decoded.args[1] } : undefined;
  } catch {
    return undefined;
  }
}

/** A stored transaction of `record`, proven the wallet's and one of the trade's own calls; StoredRecordRefusedError if not. */
export async function authorizedCall(wallet: Wallet, record: TradeRecord, attempt: Attempt, approvals: ApprovalMode): Promise<AuthorizedCall> {
  const proven = await provenCall(wallet, attempt);
  const { call } = proven;
  const purpose = purposeOf(wallet.address, record, call, approvals);
  const row = `attempt ${attempt.id} (${attempt.hash}) of trade ${record.id}`;
  if (!purpose)
    throw new StoredRecordRefusedError(
      `${row}: its bytes call ${call.to} with ${call.data.slice(0, 10)}…, none of the trade's own calls (its checked call, the approval it needs, a cancellation); nothing is sent for it`,
    );
  if (purpose !== attempt.purpose)
    throw new StoredRecordRefusedError(`${row}: its row says ${attempt.purpose}, its bytes are the trade's ${purpose}; nothing is sent for it`);
  return { ...proven, purpose };
}

/**
 * Authorizes a trade read back from the ledger before it is resumed: its request's tag and its fit to the strategy
 * file; from `signed` on, its checked call's tag and every stored transaction still in flight.
 */
export async function authorizeStoredTrade(
  wallet: Wallet,
  record: TradeRecord,
  attempts: readonly Attempt[],
  options: { approvals: ApprovalMode; fits?: StrategyFit },
): Promise<void> {
  if (!(await wallet.tags.requestIsTagged(record, record.tags?.request))) {
    throw new StoredRecordRefusedError(`trade ${record.id}: its request carries no tag of the wallet (written or changed without its key); it is not resumed`);
  }
  if (presignStates.includes(record.status)) {
    // Not signed yet, says its row: then it has no transaction but the approval its checked call needs. Its own call
    // or a cancellation signed means it was signed, and its state rolled back by whoever wrote the database.
    const signed = attempts.find((attempt) => attempt.purpose !== 'approve');
    if (signed) {
      throw new StoredRecordRefusedError(
        `trade ${record.id}: the ledger has it ${record.status}, yet the wallet's ${signed.purpose} of it is stored (attempt ${signed.id}, ${signed.hash}): its state was rolled back; nothing is signed or sent for it`,
      );
    }
    if (attempts.length > 0) {
      if (!(await wallet.tags.hasTaggedCall(record))) {
        throw new StoredRecordRefusedError(
          `trade ${record.id}: it has stored approvals but no checked call of the wallet's tag to approve for; nothing is sent for it`,
        );
      }
      for (const attempt of attempts) await authorizedCall(wallet, record, attempt, options.approvals);
    }
    // It goes on only if the file asks for it now. A file changed since (a strategy removed, its amount or slippage
    // changed) refuses it, and pauses nothing: the row is the wallet's own, only out of date.
    const misfit = options.fits?.(record);
    if (misfit !== undefined) throw new GuardRefusal('strategy-file', `trade ${record.id}: ${misfit}; it is not resumed`);
    return;
  }
  // Signed: its bytes may be in a mempool whatever the file says now; they are only ever followed, sent again or
  // replaced by the call the wallet tagged.
  if (!(await wallet.tags.hasTaggedCall(record))) {
    throw new StoredRecordRefusedError(
      `trade ${record.id}: its checked call carries no tag of the wallet (written or changed without its key); nothing is sent for it`,
    );
  }
  for (const attempt of attempts.filter(isOpenAttempt)) await authorizedCall(wallet, record, attempt, options.approvals);
}
