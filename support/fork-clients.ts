/** Clients of a devnet by its address book: a test file's fork (test/helpers/devnet.ts), or a benchmark's own devnet. */
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, erc20Abi, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { estimateContractGas } from 'viem/actions';
import { chainFor } from '../src/chains.ts';
import type { DeploymentAddressBook } from '../src/config/address-book.ts';
import { devnetReceipt } from '../src/devnet/receipt.ts';

export type DevnetFork = ReturnType<typeof createForkClients> & { addressBook: DeploymentAddressBook };

/** Clients of a devnet by its address book (the per-file fork's, or a benchmark's own devnet). */
export function createForkClients(book: DeploymentAddressBook) {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const transport = http(book.rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 });
  const testClient = createTestClient({ chain, transport, mode: 'anvil' });
  const wallet = (privateKey: Hex) => {
    const client = createWalletClient({ chain, transport, account: privateKeyToAccount(privateKey), pollingInterval: 50, cacheTime: 0 });
    const send = client.writeContract;
    // A bare estimate falls short when the next block's timestamp moves on: each Uniswap V2 pair on the route
    // then also writes its two price accumulators (about 22k gas each the first time). Test set-up pays generously.
    client.writeContract = (async (args: Parameters<typeof send>[0]) => {
      const gas = args.gas ?? ((await estimateContractGas(client, args as never)) * 3n) / 2n + 100_000n;
      return send({ ...args, gas } as never);
    }) as typeof send;
    return client;
  };
  const token = (symbol: string): Address => {
    const found = book.tokens[symbol];
    if (!found) throw new Error(`no token ${symbol} in the address book`);
    return found.address;
  };
  const balanceOf = (tokenAddress: Address, owner: Address) =>
    publicClient.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  /**
   * Waits for a transaction and fails the test unless it succeeded, with the revert reason when there is one. The
   * wait is the devnet's own (devnet/receipt.ts): bounded, not held by a wait a timed-out test left open across the
   * revert, and a transaction anvil left in its pool gets its block.
   */
  const confirm = async (hash: Hex) => {
    const receipt = await devnetReceipt(publicClient, hash, { timeoutMs: 40_000 });
    if (receipt.status !== 'success') {
      const tx = await publicClient.getTransaction({ hash });
      const reason = await publicClient.call({ account: tx.from, to: tx.to, data: tx.input, gas: tx.gas, blockNumber: receipt.blockNumber - 1n }).then(
        () => 'no revert when replayed on the parent block',
        (error: Error) => error.message,
      );
      throw new Error(`transaction ${hash} reverted (gas used ${receipt.gasUsed} of ${tx.gas}): ${reason}`);
    }
    return receipt;
  };
  return { chain, publicClient, testClient, wallet, token, balanceOf, confirm };
}
