/**
 * What the chain itself says about a transaction, asked so that a lying or lagging node cannot settle a trade:
 *  - a receipt counts only when the canonical block at its height is the receipt's block, lists the
 *    transaction, and the head is `confirmations − 1` blocks past it (a reorg that drops the block is seen);
 *  - a nonce the wallet has used is traced to the transaction that used it, found in its block: ours (by hash)
 *    or one we never signed.
 */
import type { Address, Hex, TransactionReceipt } from 'viem';
import { getBlock, getBlockNumber, getTransactionCount } from 'viem/actions';
import type { ChainClient } from './chains.ts';

/** Where a receipt stands: enough blocks on top of it, still too few, or its block is not (or no longer) the chain's. */
export type Inclusion = 'confirmed' | 'awaiting-confirmations' | 'not-in-chain';

export async function inclusionOf(client: ChainClient, receipt: TransactionReceipt, confirmations: number): Promise<Inclusion> {
  const [head, block] = await Promise.all([
    getBlockNumber(client, { cacheTime: 0 }),
    getBlock(client, { blockNumber: receipt.blockNumber }).catch(() => undefined),
  ]);
  const hash = receipt.transactionHash.toLowerCase();
  if (!block || block.hash !== receipt.blockHash || !block.transactions.some((listed) => listed.toLowerCase() === hash)) return 'not-in-chain';
  return head >= receipt.blockNumber + BigInt(Math.max(1, confirmations)) - 1n ? 'confirmed' : 'awaiting-confirmations';
}

/** The transaction that used a nonce of the wallet, and its block. */
export type NonceUse = { hash: Hex; blockNumber: bigint };

/**
 * Finds the block in which the wallet's transaction count passed `nonce` (looking back from the head in doubling
 * steps, then bisecting) and the wallet's transaction with that nonce in it. Undefined when the nonce is not used
 * at the head. Needs the node's state at recent blocks only, for a nonce used recently.
 */
export async function nonceUse(client: ChainClient, wallet: Address, nonce: number): Promise<NonceUse | undefined> {
  const countAt = (blockNumber: bigint) => getTransactionCount(client, { address: wallet, blockNumber });
  const head = await getBlockNumber(client, { cacheTime: 0 });
  if ((await countAt(head)) <= nonce) return undefined;
  // count(after) > nonce; walk back until count(before) <= nonce.
  let after = head;
  let before = -1n;
  for (let step = 1n; before < 0n; step *= 2n) {
    const candidate = head > step ? head - step : 0n;
    if ((await countAt(candidate)) <= nonce) before = candidate;
    else if (candidate === 0n) return undefined;
    else after = candidate;
  }
  while (after - before > 1n) {
    const middle: bigint = (before + after) / 2n;
    if ((await countAt(middle)) <= nonce) before = middle;
    else after = middle;
  }
  const block = await getBlock(client, { blockNumber: after, includeTransactions: true });
  const used = block.transactions.find((tx) => tx.from.toLowerCase() === wallet.toLowerCase() && tx.nonce === nonce);
  return used && { hash: used.hash, blockNumber: after };
}
