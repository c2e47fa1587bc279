/**
 * A transaction that anvil left in its pool while it says it mines on arrival (a rare anvil fault) gets the block a
 * chain would have made: from the devnet's wait for its receipt, and from the watch kept on a node's pool, so a
 * daemon following it sees it mined too. With automine off, neither makes a block: somebody holds it on purpose.
 */
import { createPublicClient, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { mineWhatThePoolKeeps } from '../../src/devnet/pool-watch.ts';
import { DevnetReceiptError, devnetReceipt } from '../../src/devnet/receipt.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { answer, startRpcProxy } from '../../support/rpc-proxy.ts';
import { trader } from '../helpers/routing.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork();

describe('the devnet’s wait for a receipt', () => {
  it('gives a transaction left in the pool of an automining node its block; with automine off, it waits to its bound', async () => {
    const { address, wallet } = trader(fork);
    // The fault, made: the transaction waits in the pool (automine off) of a node that answers it mines on arrival.
    const node = await startRpcProxy(fork.addressBook.rpcUrl);
    node.faults.intercept = (call) => (call.method === 'anvil_getAutomine' ? answer(call, true) : undefined);
    const client = createPublicClient({ transport: http(node.url) });
    await fork.testClient.setAutomine(false);
    try {
      const head = await fork.publicClient.getBlockNumber();
      const left = await wallet.sendTransaction({ to: address, value: 1n });
      const receipt = await devnetReceipt(client, left);
      expect([receipt.status, receipt.blockNumber, await fork.publicClient.getBlockNumber()]).toEqual(['success', head + 1n, head + 1n]);
      expect(node.count('evm_mine')).toBe(1);

      // Automine off, told truly: the block is someone else's to make.
      const waiting = await wallet.sendTransaction({ to: address, value: 2n });
      const error = await devnetReceipt(fork.publicClient, waiting, { timeoutMs: 1_500 }).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(DevnetReceiptError);
      expect((error as Error).message).toMatch(
        new RegExp(`^no receipt for ${waiting} within \\d+ ms; the node has it as .*"blockNumber":null.*its pool: .*"pending":"0x1"`),
      );
      expect(await fork.publicClient.getBlockNumber()).toBe(head + 1n);
    } finally {
      await fork.testClient.setAutomine(true);
      await node.close();
    }
  });

  it('the watch on a node’s pool mines a transaction left there by a node that automines; never one held with automine off', async () => {
    const { address, wallet } = trader(fork);
    const node = await startRpcProxy(fork.addressBook.rpcUrl);
    let automineSaid = false;
    node.faults.intercept = (call) => (call.method === 'anvil_getAutomine' && automineSaid ? answer(call, true) : undefined);
    const stopWatch = mineWhatThePoolKeeps(node.url, 100);
    await fork.testClient.setAutomine(false);
    try {
      const head = await fork.publicClient.getBlockNumber();
      const held = await wallet.sendTransaction({ to: address, value: 1n });
      // Told the truth (automine off): several looks, and the transaction stays where its sender holds it.
      const looks = node.count('anvil_getAutomine');
      await waitFor(() => node.count('anvil_getAutomine') >= looks + 5, 'five looks at the node');
      expect(await fork.publicClient.request({ method: 'eth_getTransactionReceipt', params: [held] })).toBeNull();
      expect(node.count('anvil_mine')).toBe(0);
      // Told it automines: the transaction kept in the pool is mined, in one block.
      automineSaid = true;
      await waitFor(
        async () => (await fork.publicClient.request({ method: 'eth_getTransactionReceipt', params: [held] })) !== null,
        'the kept transaction mined',
      );
      expect([node.count('anvil_mine'), await fork.publicClient.getBlockNumber()]).toEqual([1, head + 1n]);
    } finally {
      stopWatch();
      await fork.testClient.setAutomine(true);
      await node.close();
    }
  });
});
