/**
 * The settle stage, the same for a live run and for a run settled after a restart: what the mined receipt says
 * happened, from the logs. What the wallet received is the output token's Transfer logs to the wallet; for a
 * swap the router's Swap event (either version) must agree. A receipt from which no amount can be read, or whose
 * amounts disagree, is an anomaly; so are balances that moved otherwise than signed (balances.ts). An anomaly is
 * recorded, reported, and pauses the trade's strategy and wallet until a person lifts the pause.
 */
import type { Address, Hex, TransactionReceipt } from 'viem';
import type { ReceiptBlocks } from '../chain/evidence.ts';
import { getTransaction } from 'viem/actions';
import { revertReason } from '../contracts/revert.ts';
import type { Mined, Wallet } from '../chain/wallet.ts';
import type { TradeReads } from '../ledger/ledger.ts';
import type { TradeRecorder } from './recorder.ts';
import { type BalanceReads, checkBalanceChanges } from './balances.ts';
import type { Failure, Settlement, TradeRecord, TradeReport, WalletBalances } from '../model/trade.ts';
import { kindOf } from './kinds/registry.ts';

/** Gas paid by every mined transaction of the trade (an approval included), in wei. */
async function gasCostOf(ledger: TradeReads, intentId: string): Promise<bigint> {
  return (await ledger.attempts.ofTrade(intentId))
    .filter((a) => a.status === 'mined' || a.status === 'reverted')
    .reduce((sum, a) => sum + (a.gasUsed ?? 0n) * (a.effectiveGasPrice ?? 0n), 0n);
}

/**
 * Reads made for the settlement before the trade's receipt was judged, beside the reads that judged it (one round
 * trip): used only if the receipt settled is the one they were made for.
 */
export type SettlementReads = {
  receipt: TransactionReceipt;
  balances: Promise<BalanceReads>;
  blocks: Promise<ReceiptBlocks>;
  receipts: ReadonlyMap<Hex, TransactionReceipt>;
};

export async function settle(
  { wallet, reads: ledger, recorder }: { wallet: Wallet; reads: TradeReads; recorder: TradeRecorder },
  record: TradeRecord,
  mined: Mined,
  options: { nativeToken?: Address; readAhead?: SettlementReads } = {},
): Promise<Partial<TradeReport>> {
  const { receipt, attempt } = mined;
  const settlement: Settlement = {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
  };
  const common = { txHash: receipt.transactionHash, gasCostWei: await gasCostOf(ledger, record.id) };
  const fail = async (reason: string): Promise<Partial<TradeReport>> => {
    const failure: Failure = { reason, errorClass: mined.cancelled ? 'cancelled' : 'reverted', retryable: false };
    await recorder.failed(record.id, failure, { settlement });
    return { ...common, status: 'failed', reason };
  };
  if (mined.cancelled) return fail('cancelled: the stuck trade was replaced by a zero-value transfer');
  if (receipt.status !== 'success') {
    const tx = await getTransaction(wallet.client, { hash: receipt.transactionHash });
    const why = await revertReason(wallet.client, { from: wallet.address, to: tx.to as Address, data: tx.input, gas: tx.gas }, receipt.blockNumber - 1n);
    return fail(`reverted on chain: ${why}`);
  }
  if (attempt.purpose === 'approve') return fail('only the approval was mined; the trade was not');

  const outcome = kindOf(record).outcome(record, receipt);
  const settled: Settlement = {
    ...settlement,
    amountOut: outcome.amountOut,
    ...('reportedOut' in outcome && { reportedOut: outcome.reportedOut, partnerFee: outcome.partnerFee }),
    ...(outcome.position && { position: outcome.position }),
  };
  let anomaly = outcome.anomaly;
  let balancesAfter: WalletBalances | undefined;
  if (!anomaly) {
    const ownHashes = (await ledger.attempts.ofTrade(record.id)).map((attempt) => attempt.hash);
    const ahead = options.readAhead?.receipt.blockHash === receipt.blockHash ? options.readAhead : undefined;
    const block = ahead && (await ahead.blocks.catch(() => undefined))?.blocks.get(receipt.blockNumber);
    const balances = await checkBalanceChanges(wallet.client, record, settled, {
      nativeToken: options.nativeToken,
      ownHashes,
      ...(ahead && { reads: ahead.balances, block, receipts: ahead.receipts }),
      lookup: async (hash) => {
        const attempt = await ledger.attempts.byHash(hash);
        if (!attempt) return undefined;
        return { purpose: attempt.purpose, record: attempt.purpose === 'trade' ? await ledger.trades.get(attempt.intentId) : undefined };
      },
    });
    balancesAfter = balances.after;
    if (balances.ok === 'skipped') await recorder.balanceCheckSkipped(record.id, balances.why);
    else if (!balances.ok) anomaly = balances.anomaly;
  }
  if (anomaly) {
    await recorder.anomaly(record, {
      reason: anomaly,
      event: { kind: 'anomaly', details: { hash: receipt.transactionHash, reason: anomaly } },
      settlement: settled,
    });
    return { ...common, status: 'anomaly', reason: anomaly, amountOut: outcome.amountOut, balancesAfter };
  }
  await recorder.confirmed(record.id, settled);
  return { ...common, status: 'confirmed', amountOut: outcome.amountOut, ...(settled.position && { moved: settled.position }), balancesAfter };
}
