/**
 * How many times a one-shot order has filled, or may have: read from what the wallet signed and from the chain, not
 * from a state column alone. A writer who sets a filled order's trade back to `failed` must not make it sell again.
 */
import type { Hex } from 'viem';
import type { Wallet } from '../chain/wallet.ts';
import type { TradeReads } from '../ledger/ledger.ts';
import type { ApprovalMode } from './settings.ts';
import { authorizedCall } from './stored.ts';
import { StoredRecordRefusedError } from '../chain/errors.ts';
import { type TradeRecord, type TradeState, maybeTradedStates } from '../model/trade.ts';

/** States in which a one-shot order counts as filled (or may have filled: never sell twice). */
export const filledStates: readonly TradeState[] = ['confirmed', 'anomaly', ...maybeTradedStates];

export type FillReads = { reads: TradeReads; wallet: Wallet; settings: { approvals: ApprovalMode } };

/**
 * The strategy's trades that filled or may have: those whose state says so (a writer can only stop an order that
 * way), and those whose own transaction the wallet signed whatever their state says, unless the chain shows that
 * transaction did not trade (it reverted, or its nonce went to another of the trade's transactions). Their bytes
 * are proven first (StoredRecordRefusedError names a row that is not the wallet's or not its trade's).
 */
export async function fillsOf(deps: FillReads, strategyId: string): Promise<number> {
  let fills = 0;
  for (const record of await deps.reads.trades.ofStrategy(strategyId)) {
    if (filledStates.includes(record.status) || (await signedAndMayHaveTraded(deps, record))) fills++;
  }
  return fills;
}

async function signedAndMayHaveTraded({ reads: ledger, wallet, settings }: FillReads, record: TradeRecord): Promise<boolean> {
  const signed = (await ledger.attempts.ofTrade(record.id)).filter((attempt) => attempt.purpose === 'trade');
  if (signed.length === 0) return false;
  if (!(await wallet.tags.hasTaggedCall(record))) {
    throw new StoredRecordRefusedError(
      `trade ${record.id}: the wallet's transactions of it are stored, but not a checked call of the wallet's tag; its order is not run again`,
    );
  }
  for (const attempt of signed) await authorizedCall(wallet, record, attempt, settings.approvals);
  const receipts = await Promise.all(signed.map((attempt) => wallet.client.request({ method: 'eth_getTransactionReceipt', params: [attempt.hash as Hex] })));
  if (receipts.some((receipt) => receipt?.status === '0x1')) return true;
  // Not traded only once every nonce it was signed at has gone to a transaction that did not trade.
  const mined = await wallet.client.getTransactionCount({ address: wallet.address, blockTag: 'latest' });
  return signed.some((attempt, i) => receipts[i] === null && attempt.nonce >= mined);
}
