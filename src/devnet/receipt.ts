/**
 * Waiting for a devnet transaction's receipt. Anvil mines each transaction as it arrives (automine), but on rare
 * occasions it leaves a ready one in its pool, and no block ever comes for it: foundry-rs/foundry#10122 ("block
 * mining misses ready transactions"); AztecProtocol/aztec-packages#20594 met it 34 times in 100,000 runs. A chain
 * makes the next block anyway; the devnet does not, so a wait for such a transaction would last forever. Here a
 * transaction still in the pool after a moment, with automine on, gets the block a chain would have made.
 *
 * Not viem's `waitForTransactionReceipt`: it shares one block-number watcher among a client's waits, which emits
 * only heights above the highest it has seen, so one wait left open across an `evm_revert` holds every later one
 * (and a node that never mines holds it until its 180 s timeout, then rejects where nobody may be listening).
 */
import { type Client, type Hash, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem';
import { getTransactionReceipt } from 'viem/actions';

export class DevnetReceiptError extends Error {
  override name = 'DevnetReceiptError';
}

/** How long a transaction may sit in the pool, automine on, before it is given a block. */
const nudgeAfterMs = 1_000;

/**
 * The receipt of `hash`, mined (reverted or not). A node that answers with an error fails this at once (a node that
 * is gone, stopped by Ctrl-C, holds nothing up); no receipt within `timeoutMs` fails it with what the node says of
 * the transaction.
 */
export async function devnetReceipt(client: Client, hash: Hash, options: { timeoutMs?: number } = {}): Promise<TransactionReceipt> {
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? 60_000);
  let nudgedAt = started;
  for (;;) {
    const receipt = await getTransactionReceipt(client, { hash }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    });
    if (receipt) return receipt;
    const now = Date.now();
    if (now > deadline)
      throw new DevnetReceiptError(`no receipt for ${hash} within ${now - started} ms; the node has it as ${await whatNodeHas(client, hash)}`);
    if (now - nudgedAt >= nudgeAfterMs) {
      nudgedAt = now;
      if (await stuckInPool(client, hash)) await client.request({ method: 'evm_mine' as never });
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether the transaction waits in the pool of a node that mines on arrival: only then is a block missing. */
async function stuckInPool(client: Client, hash: Hash): Promise<boolean> {
  const tx = await client.request<{ Method: 'eth_getTransactionByHash'; Parameters: [Hash]; ReturnType: { blockNumber: string | null } | null }>({
    method: 'eth_getTransactionByHash',
    params: [hash],
  });
  if (!tx || tx.blockNumber !== null) return false;
  return client.request<{ Method: 'anvil_getAutomine'; Parameters: []; ReturnType: boolean }>({ method: 'anvil_getAutomine', params: [] });
}

async function whatNodeHas(client: Client, hash: Hash): Promise<string> {
  const tx = await client.request({ method: 'eth_getTransactionByHash', params: [hash] }).catch((error: Error) => error.message);
  const pool = await client.request({ method: 'txpool_status' as never }).catch((error: Error) => error.message);
  return `${JSON.stringify(tx)}; its pool: ${JSON.stringify(pool)}`;
}
