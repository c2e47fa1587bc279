/**
 * The embedded devnet: an anvil node holding the deployed world, and forks of it.
 * A fork (`forkUrl` = the base node) sees the base state and writes only to itself, as a user's Celo fork does.
 */
import { writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { type Hex, type TestClient, createTestClient, hexToBytes, http } from 'viem';
import type { DeploymentAddressBook } from '../config/address-book.ts';
import { AbortedError, throwIfAborted } from '../ops/abort.ts';
import { type AnvilNode, startAnvil } from './anvil.ts';
import { hasSecretPart, startForwarder } from './fork-forwarder.ts';
import { type SwapEventVersion, deployWorld } from './deploy.ts';
import { reportWorldPrices } from './oracle.ts';
import { type RoutingService, startRoutingService } from '../routing/server.ts';
import { routingSetupFor } from '../routing/setup.ts';
import { devnetChainId, devnetMnemonic, worldAgeSeconds } from './world-spec.ts';

export type Devnet = {
  node: AnvilNode;
  addressBook: DeploymentAddressBook;
  /**
   * Writes the whole chain, the state at every block included, to `file` (anvil's state JSON);
   * `startDevnet({ snapshot })` starts a node of its own from it.
   */
  saveState(file: string): Promise<void>;
  stop(): Promise<void>;
};

export type StartDevnetOptions = {
  port?: number;
  /** The address its node listens on (default 127.0.0.1). */
  host?: string;
  /** 42220 (Celo mainnet's id) unless told otherwise, so the daemon's chain handling is the real one. */
  chainId?: number;
  /** The router's `Swap` event version (default: the published ABI's). */
  swapEvent?: SwapEventVersion;
  /** Deploy Uniswap V3 (factory, adapter, pools) too. */
  uniswapV3?: boolean;
  /** Deploy Mento v2 (Broker, exchanges, Reserve, breaker) too. */
  mento?: boolean;
  /** A file from `saveState()` together with the address book it was deployed with: skips deployment. */
  snapshot?: { stateFile: string; addressBook: DeploymentAddressBook };
  /** A stop asked for while it starts: the node is stopped at once and the start rejects with AbortedError. */
  signal?: AbortSignal;
};

export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const { signal } = options;
  throwIfAborted(signal);
  const node = await startAnvil({
    port: options.port ?? 0,
    host: options.host,
    chainId: options.snapshot?.addressBook.chainId ?? options.chainId ?? devnetChainId,
    mnemonic: devnetMnemonic,
    accounts: 10,
    // The world is deployed a while back in chain time, then the clock jumps to now: every pool has a history
    // longer than the price-average window, at its seeded price, as pools on a real network have.
    ...(options.snapshot ? { loadState: options.snapshot.stateFile } : { timestamp: BigInt(Math.floor(Date.now() / 1000) - worldAgeSeconds) }),
  });
  // Deploying takes a second or more: a stop meanwhile ends it at once (its requests then fail, which is the stop).
  const stopNode = () => void node.stop().catch(() => {});
  signal?.addEventListener('abort', stopNode, { once: true });
  try {
    throwIfAborted(signal);
    // The saved chain (gzipped, every block's state) is past viem's default 10 MB answer limit with Uniswap V3 in it.
    const testClient = createTestClient({ mode: 'anvil', transport: http(node.rpcUrl, { maxResponseBodySize: 256 * 1024 * 1024 }) });
    let addressBook: DeploymentAddressBook;
    if (options.snapshot) {
      // A loaded node's clock starts at the wall clock, past its head block's time: a block mined now puts the head
      // there too, so "the next block, one second after the latest" is a time it accepts, as on the deployed devnet.
      await testClient.mine({ blocks: 1 });
      addressBook = { ...options.snapshot.addressBook, rpcUrl: node.rpcUrl };
    } else {
      addressBook = await deployWorld(node.rpcUrl, {
        chainId: options.chainId ?? devnetChainId,
        swapEvent: options.swapEvent,
        uniswapV3: options.uniswapV3,
        mento: options.mento,
      });
      await testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(Date.now() / 1000)) });
      await testClient.mine({ blocks: 1 });
    }
    // Mento's exchanges price only against a median reported within their reset frequency (minutes), as Celo's
    // oracles keep theirs: the world's rates are reported again at the chain's "now".
    if (addressBook.mento) await reportWorldPrices(node.rpcUrl, addressBook);
    throwIfAborted(signal);
    return { node, addressBook, saveState: (file) => saveState(testClient, file), stop: () => node.stop() };
  } catch (error) {
    await node.stop();
    throw signal?.aborted ? new AbortedError() : error;
  } finally {
    signal?.removeEventListener('abort', stopNode);
  }
}

/**
 * The chain with its state at every block (anvil_dumpState's `preserve_historical_states`), so a node loaded from it
 * answers calls at past blocks (a price average over a window) as this one does. Written as the JSON anvil's
 * `--load-state` reads: the dump is tens of MB, past the size anvil takes in one request.
 */
async function saveState(testClient: TestClient, file: string): Promise<void> {
  const gzipped = await testClient.request<{ Method: 'anvil_dumpState'; Parameters: [preserveHistoricalStates: boolean]; ReturnType: Hex }>({
    method: 'anvil_dumpState',
    params: [true],
  });
  await writeFile(file, gunzipSync(hexToBytes(gzipped)));
}

/**
 * Mines an empty block every `intervalMs` (Celo makes one every 5 s), so that chain time moves and gauge
 * rewards accrue even when nobody trades. Transactions are still mined at once. Returns a stop function.
 */
export function mineEvery(rpcUrl: string, intervalMs: number): () => void {
  const testClient = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  const timer = setInterval(() => {
    testClient.mine({ blocks: 1 }).catch(() => {});
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Starts an anvil node forking `baseRpcUrl` (the devnet, or any chain: a Celo RPC for paper trading). */
export async function forkChain(baseRpcUrl: string, options: { port?: number } = {}): Promise<AnvilNode> {
  // A URL that may carry a key reaches anvil as a loopback address of ours: never on its command line.
  const forwarder = hasSecretPart(baseRpcUrl) ? await startForwarder(baseRpcUrl) : undefined;
  try {
    const node = await startAnvil({ port: options.port ?? 0, forkUrl: forwarder?.url ?? baseRpcUrl, mnemonic: devnetMnemonic, accounts: 10 });
    return forwarder ? { ...node, stop: () => node.stop().finally(() => forwarder.close()) } : node;
  } catch (error) {
    await forwarder?.close();
    throw error;
  }
}

/** A fork of a running devnet, with the address book pointing at the fork. */
export async function forkDevnet(base: Pick<Devnet, 'addressBook'>): Promise<{ node: AnvilNode; addressBook: DeploymentAddressBook }> {
  const node = await forkChain(base.addressBook.rpcUrl);
  return { node, addressBook: { ...base.addressBook, rpcUrl: node.rpcUrl } };
}

/**
 * Starts the local routing service over a devnet (or a fork of it), trusting the devnet's partner keys and
 * signing with its service signer, and returns the address book with `routingServiceUrl` set.
 */
export async function startDevnetRoutingService(
  addressBook: DeploymentAddressBook,
  options: { port?: number; host?: string; allowedHosts?: readonly string[]; ownClientToken?: string } = {},
): Promise<{ service: RoutingService; addressBook: DeploymentAddressBook }> {
  const service = await startRoutingService({
    ...routingSetupFor(addressBook.chainId, addressBook.rpcUrl, addressBook),
    ownClientToken: options.ownClientToken,
    port: options.port ?? 0,
    host: options.host,
    allowedHosts: options.allowedHosts,
    apiKeys: (addressBook.partners ?? []).flatMap((partner) => (partner.apiKey ? [{ key: partner.apiKey, partner: partner.id }] : [])),
    signerPrivateKey: addressBook.serviceSigner?.privateKey,
  });
  return { service, addressBook: { ...addressBook, routingServiceUrl: service.url } };
}
