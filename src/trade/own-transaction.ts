/**
 * A trade's own transaction as the chain shows it: mined successfully, from the wallet, to the trade's checked call
 * (the call its row carries, which the wallet's tag vouches for) with exactly that call's bytes. What a row says a
 * transaction did counts only once the chain shows this; a row pointing at another transaction proves nothing.
 */
import { type Address, type Hex, type TransactionReceipt, isAddressEqual } from 'viem';
import type { ChainClient } from '../chains.ts';
import type { TradeRecord } from '../model/trade.ts';

/** The receipt of `hash`, when it is the wallet's own successful transaction of `record`'s call; none otherwise. */
export async function ownTransactionReceipt(
  client: ChainClient,
  wallet: Address,
  record: Pick<TradeRecord, 'call'>,
  hash: Hex,
): Promise<TransactionReceipt | undefined> {
  const call = record.call;
  if (!call) return undefined;
  const [tx, receipt] = await Promise.all([client.getTransaction({ hash }), client.getTransactionReceipt({ hash })]).catch(() => [undefined, undefined]);
  if (!tx || !receipt || receipt.status !== 'success') return undefined;
  const ours = isAddressEqual(tx.from, wallet) && tx.to && isAddressEqual(tx.to, call.target) && tx.input.toLowerCase() === call.data.toLowerCase();
  return ours ? receipt : undefined;
}
