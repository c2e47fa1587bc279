/**
 * What the chain itself says about a transaction, asked so that a lying or lagging node cannot settle a trade:
 *  - a receipt counts only when the canonical block at its height is the receipt's block, lists the
 *    transaction, and the head is `confirmations − 1` blocks past it (a reorg that drops the block is seen);
 *  - a nonce the wallet has used is traced to the transaction that used it, found in its block: ours (by hash)
 *    or one we never signed.
 */
import type { Address, Block, Hex, TransactionReceipt } from 'viem';
import { getBlock, getBlockNumber, getTransactionCount } from 'viem/actions';
import type { ChainClient } from '../chains.ts';

/** Where a receipt stands: enough blocks on top of it, still too few, or its block is not (or no longer) the chain's. */
export type Inclusion = 'confirmed' | 'awaiting-confirmations' | 'not-in-chain';

export async function inclusionOf(client: ChainClient, receipt: TransactionReceipt, confirmations: number): Promise<Inclusion> {
  const [head, block] = await Promise.all([
    confirmations > 1 ? getBlockNumber(client, { cacheTime: 0 }) : undefined,
    getBlock(client, { blockNumber: receipt.blockNumber }).catch(() => undefined),
  ]);
  return judgeInclusion(receipt, block && { hash: block.hash, transactions: block.transactions }, head, confirmations);
}

/** A block as the chain holds it at its height: its hash and the hashes of its transactions. */
export type HeldBlock = { hash: Hex | null; transactions: readonly (Hex | { hash: Hex })[] };

/**
 * Where a receipt stands, given the canonical block at its height (undefined: none) and the head. The head is needed
 * only beyond one confirmation: a block held at the receipt's height is itself the first.
 */
export function judgeInclusion(receipt: TransactionReceipt, block: HeldBlock | undefined, head: bigint | undefined, confirmations: number): Inclusion {
  const hash = receipt.transactionHash.toLowerCase();
  const lists = block?.transactions.some((listed) => (typeof listed === 'string' ? listed : listed.hash).toLowerCase() === hash);
  if (!block || block.hash !== receipt.blockHash || !lists) return 'not-in-chain';
  if (confirmations <= 1) return 'confirmed';
  return head !== undefined && head >= receipt.blockNumber + BigInt(confirmations) - 1n ? 'confirmed' : 'awaiting-confirmations';
}

/** The blocks of receipts in hand, each read once with its transactions, and the head when more than one confirmation is wanted. */
export type ReceiptBlocks = { head?: bigint; blocks: ReadonlyMap<bigint, Block<bigint, true> | undefined> };

/** Reads what judging receipts in hand needs, all in this tick (one batch with whatever else the caller asks now). */
export async function readReceiptBlocks(client: ChainClient, receipts: Iterable<TransactionReceipt>, confirmations: number): Promise<ReceiptBlocks> {
  const numbers = [...new Set([...receipts].map((receipt) => receipt.blockNumber))];
  const [head, ...blocks] = await Promise.all([
    confirmations > 1 ? getBlockNumber(client, { cacheTime: 0 }) : undefined,
    ...numbers.map((blockNumber) => getBlock(client, { blockNumber, includeTransactions: true }).catch(() => undefined)),
  ]);
  return { head, blocks: new Map(numbers.map((number, i) => [number, blocks[i]])) };
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
