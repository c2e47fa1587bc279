/**
 * Per-file fork of the shared devnet, with clients, reverted to a clean snapshot after every test.
 */
import {
  type Address,
  type Hex,
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { chainFor } from '../../src/chain/chains.ts';
import type { AddressBook } from '../../src/config/address-book.ts';
import { forkDevnet } from '../../src/devnet/devnet.ts';

export type DevnetFork = ReturnType<typeof createForkClients> & { addressBook: AddressBook };

function createForkClients(book: AddressBook) {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const transport = http(book.rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 });
  const testClient = createTestClient({ chain, transport, mode: 'anvil' });
  const wallet = (privateKey: Hex) =>
    createWalletClient({ chain, transport, account: privateKeyToAccount(privateKey), pollingInterval: 50, cacheTime: 0 });
  const token = (symbol: string): Address => {
    const found = book.tokens[symbol];
    if (!found) throw new Error(`no token ${symbol} in the address book`);
    return found.address;
  };
  const balanceOf = (tokenAddress: Address, owner: Address) =>
    publicClient.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  /** Waits for a transaction and fails the test unless it succeeded. */
  const confirm = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  return { chain, publicClient, testClient, wallet, token, balanceOf, confirm };
}

/** Forks the devnet for this test file; every test starts from the same state. */
export function useDevnetFork(): DevnetFork {
  const fork = {} as DevnetFork;
  let stop: (() => Promise<void>) | undefined;
  let snapshot: Hex | undefined;
  beforeAll(async () => {
    const { node, addressBook } = await forkDevnet({ addressBook: inject('devnet') });
    stop = node.stop;
    Object.assign(fork, createForkClients(addressBook), { addressBook });
  });
  beforeEach(async () => {
    snapshot = await fork.testClient.snapshot();
  });
  afterEach(async () => {
    if (snapshot) await fork.testClient.revert({ id: snapshot });
  });
  afterAll(async () => {
    await stop?.();
  });
  return fork;
}
