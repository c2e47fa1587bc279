/**
 * Per-file copy of the shared devnet, with clients, reverted to a clean snapshot after every test.
 */
import type { Hex } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import type { SwapEventVersion } from '../../src/devnet/deploy.ts';
import { startDevnet, startDevnetRoutingService } from '../../src/devnet/devnet.ts';
import { mineWhatThePoolKeeps } from '../../src/devnet/pool-watch.ts';
import { provided } from './provided.ts';

export { type DevnetFork, createForkClients } from '../../support/fork-clients.ts';
import { type DevnetFork, createForkClients } from '../../support/fork-clients.ts';

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
