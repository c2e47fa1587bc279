/**
 * How many times a one-shot order has filled, or may have: read from the wallet's history (wallet-history.ts: every
 * row of the wallet proven by its tags, sorted by what they say) and from the chain, not from a column. A writer who
 * sets a filled order's trade back to `failed`, or moves it to another strategy or wallet, must not make it sell again.
 * An order worked in slices (engine/worked-order.ts) counts once; the one a run is working (`working`, its slot) not
 * at all, since its remainder is what the run goes on with.
 */
import type { Hex } from 'viem';
import type { ApprovalMode } from './settings.ts';
import { authorizedCall } from './stored.ts';
import { orderOfSlot, parseTradeSlot } from '../model/trade-slot.ts';
import { type TradeState, maybeTradedStates } from '../model/trade.ts';
import { type HistoryReads, type PastTrade, readWalletHistory } from './wallet-history.ts';

/** States in which a one-shot order counts as filled (or may have filled: never sell twice). */
export const filledStates: readonly TradeState[] = ['confirmed', 'anomaly', ...maybeTradedStates];

export type FillReads = HistoryReads & { settings: { approvals: ApprovalMode } };

/**
 * The strategy's trades that filled or may have: those whose state says so (a writer can only stop an order that
 * way), and those whose own transaction the wallet signed whatever their state says, unless the chain shows that
 * transaction did not trade.
 */
export async function fillsOf(deps: FillReads, strategyId: string, working?: string): Promise<number> {
  // An order worked in slices fills once, however many of its slices did.
  const filled = new Set<string>();
  for (const past of (await readWalletHistory(deps)).ofStrategy(strategyId)) {
    const order = orderOfSlot(past.record.slot);
    if (filled.has(order) || (working !== undefined && parseTradeSlot(past.record.slot).runSlot === working)) continue;
    if (filledStates.includes(past.record.status) || (await signedAndMayHaveTraded(deps, past))) filled.add(order);
  }
  return filled.size;
}

/**
 * Whether the wallet signed the trade's own transaction and the chain does not show it failed to trade: it reverted,
 * or its nonce went to another of the trade's transactions. Its bytes are proven first (StoredRecordRefusedError names
 * a row that is not the wallet's, or not its trade's).
 */
export async function signedAndMayHaveTraded({ wallet, settings }: Pick<FillReads, 'wallet' | 'settings'>, past: PastTrade): Promise<boolean> {
  const signed = past.attempts.filter((attempt) => attempt.purpose === 'trade');
  if (signed.length === 0) return false;
  for (const attempt of signed) await authorizedCall(wallet, past.record, attempt, settings.approvals);
  const receipts = await Promise.all(signed.map((attempt) => wallet.client.request({ method: 'eth_getTransactionReceipt', params: [attempt.hash as Hex] })));
  if (receipts.some((receipt) => receipt?.status === '0x1')) return true;
  // Not traded only once every nonce it was signed at has gone to a transaction that did not trade.
  const mined = await wallet.client.getTransactionCount({ address: wallet.address, blockTag: 'latest' });
  return signed.some((attempt, i) => receipts[i] === null && attempt.nonce >= mined);
}
