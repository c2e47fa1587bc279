/**
 * Per-file copy of the shared devnet, with clients, reverted to a clean snapshot after every test.
 */
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, erc20Abi, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { estimateContractGas } from 'viem/actions';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { chainFor } from '../../src/chains.ts';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import type { SwapEventVersion } from '../../src/devnet/deploy.ts';
import { startDevnet, startDevnetRoutingService } from '../../src/devnet/devnet.ts';
import { mineWhatThePoolKeeps } from '../../src/devnet/pool-watch.ts';
import { devnetReceipt } from '../../src/devnet/receipt.ts';
import { provided } from './provided.ts';

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

/** anvil's `anvil_dropAllTransactions`, which viem's test actions do not name. */
const dropAllTransactions = (client: DevnetFork['testClient']) =>
  (client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method: 'anvil_dropAllTransactions', params: [] });

/**
 * A chain for this test file: `start` brings it up once (before all tests) and says how to stop it;
 * every test starts from the same state (an evm_snapshot taken before it, reverted after it).
 */
function useChain(start: () => Promise<{ addressBook: DeploymentAddressBook; stop(): Promise<void> }>, startTimeoutMs?: number): DevnetFork {
  const chain = {} as DevnetFork;
  let stop: (() => Promise<void>) | undefined;
  let snapshot: Hex | undefined;
  beforeAll(async () => {
    const started = await start();
    const stopWatch = mineWhatThePoolKeeps(started.addressBook.rpcUrl);
    stop = async () => {
      stopWatch();
      await started.stop();
    };
    Object.assign(chain, createForkClients(started.addressBook), { addressBook: started.addressBook });
  }, startTimeoutMs);
  beforeEach(async () => {
    snapshot = await chain.testClient.snapshot();
  });
  afterEach(async () => {
    // A test that stopped mining leaves its transactions in the node's pool, which a revert keeps: dropped first, or
    // they would mine in the next test and count in its wallet's nonce.
    await dropAllTransactions(chain.testClient);
    if (snapshot) await chain.testClient.revert({ id: snapshot });
  });
  afterAll(async () => {
    await stop?.();
  });
  return chain;
}

/**
 * A devnet of this test file's own, loaded from the shared devnet's state; every test starts from the same state.
 * With `routing: true` a local routing service quotes over it (`addressBook.routingServiceUrl`); with `uniswapV3: true`
 * the world has Uniswap V3 (its factory, our adapter and its pools) too; with `mento: true` Uniswap V3 and Mento v2.
 *
 * A copy, not an anvil fork of the shared node: a fork reads what it lacks from the shared node while it executes,
 * and under many concurrent calls on a busy machine that path has stalled a fork for longer than a request's
 * timeout. A loaded copy has no upstream; the files stay apart just the same.
 */
export function useDevnetFork(options: { routing?: boolean; uniswapV3?: boolean; mento?: boolean } = {}): DevnetFork {
  return useChain(async () => {
    const snapshot = options.mento
      ? {
          stateFile: provided('devnetWithMentoStateFile', 'useDevnetFork({ mento: true })'),
          addressBook: provided('devnetWithMento', 'useDevnetFork({ mento: true })'),
        }
      : options.uniswapV3
        ? {
            stateFile: provided('devnetWithUniswapV3StateFile', 'useDevnetFork({ uniswapV3: true })'),
            addressBook: provided('devnetWithUniswapV3', 'useDevnetFork({ uniswapV3: true })'),
          }
        : { stateFile: provided('devnetStateFile', 'useDevnetFork()'), addressBook: provided('devnet', 'useDevnetFork()') };
    const { node, addressBook } = await startDevnet({ snapshot });
    if (!options.routing) return { addressBook, stop: node.stop };
    const routing = await startDevnetRoutingService(addressBook);
    return {
      addressBook: routing.addressBook,
      stop: async () => {
        await routing.service.close();
        await node.stop();
      },
    };
  });
}

/**
 * A devnet of this test file's own, deployed with options the shared one does not have (the router's other
 * `Swap` event version), with a routing service over it; every test starts from the same state.
 */
export function useOwnDevnet(options: { swapEvent: SwapEventVersion }): DevnetFork {
  // A whole world deployed, not a saved one loaded: about 12 s alone, and past the 60 s hook limit once beside
  // a second suite. Sized to the work, as the chaos test's time is.
  return useChain(async () => {
    const devnet = await startDevnet({ swapEvent: options.swapEvent });
    const routing = await startDevnetRoutingService(devnet.addressBook);
    return {
      addressBook: routing.addressBook,
      stop: async () => {
        await routing.service.close();
        await devnet.stop();
      },
    };
  }, 180_000);
}
