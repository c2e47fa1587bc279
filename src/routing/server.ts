/**
 * Our Token Routing Service: the spec's API (GET /routes, /earn/deposit, /earn/withdraw, /) over the pools of a
 * chain's factories, plus GET /tokens and GET /partners/volume (answer.ts). This file starts its parts and its HTTP
 * server, whose guards come first (a rebinding page's Host, a flooding client). Answers are JSON; errors are JSON
 * `{ error, field?, tokens? }` with a 4xx/5xx status, and no input can crash the server.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Address, type Hex, createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../chains.ts';
import {
  type ClientRate,
  ClientLimit,
  type ConnectionLimits,
  defaultConnectionLimits,
  limitConnections,
  serverOptionsFor,
  servesHost,
} from '../http-guards.ts';
import { timingSafeEqual } from 'node:crypto';
import type { FactorySource, PairAdapter } from '../pools/kind.ts';
import { ChainState } from './chain-state.ts';
import { type AnswerParts, answer } from './answer.ts';
import type { ErrorBody } from './errors.ts';
import { PartnerStore } from './partner-store.ts';
import { type ApiKeyConfig, PartnerRegistry } from './partners.ts';
import { PoolIndex } from './pool-index.ts';
import { type EarnConfig, QuoteEngine } from './quotes.ts';

export type RoutingServiceOptions = {
  chainId: number;
  /** The node it reads the chain from. */
  rpcUrl: string;
  router: Address;
  /** The factories whose pools it finds and routes through. */
  factories: readonly FactorySource[];
  /** Pools that go through another adapter than their factory's. */
  adapterOverride?: (pool: Address) => PairAdapter | undefined;
  /** Deposit and withdraw quotes: the OneClickFarm and farms; none, swaps only. */
  earn?: EarnConfig;
  /** Symbols and decimals of the tokens it knows by name, for `GET /tokens`. */
  tokens?: Readonly<Record<string, { address: Address; decimals: number }>>;
  /** A pool with either reserve below this many raw units is left out of routes (default 1,000,000). */
  minReserve?: bigint;
  /**
   * The tokens (lower-case) the daemon's independent reference has sources for, from the same chain data: a pool with
   * no mean of its own now is routed only between two of them (see ChainStateOptions.pricedTokens). None: every such
   * pool is routed.
   */
  pricedTokens?: ReadonlySet<string>;
  /** The tokens (lower-case) a route may pass through between its ends (see QuoteEngineConfig.through). None: any. */
  through?: ReadonlySet<string>;
  /** See PoolIndexOptions.headMaxAgeMs (default 0: every request reads the head). */
  headMaxAgeMs?: number;
  /** Where the pool index is kept between runs. */
  cacheFile?: string;
  /** The longest one swap's search may take; past it, the best route found so far (default 250 ms). */
  searchBudgetMs?: number;
  /** The token gas is paid in, as it trades in the pools: it prices each hop's gas in the output token. */
  gasToken?: Address;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Host names answered besides the loopback ones (a container's service name, say); '*' answers any. */
  allowedHosts?: readonly string[];
  /** How much one client (an address) may ask; false: no limit (a benchmark's own service). Default 200/s, 400 at once. */
  perClient?: ClientRate | false;
  /**
   * The secret of this service's own daemon (the process that started it): its requests, which send it as
   * `X-Routekeeper-Client`, are never counted with any other client's. A request with an issued API key is counted
   * under that key; the rest under their address, so a flood from another local process or page never slows the
   * daemon's quotes.
   */
  ownClientToken?: string;
  /** See ConnectionLimits (default: defaultConnectionLimits). */
  connections?: ConnectionLimits;
  /** Keys added to the store at start (a file's, the devnet's demo key); the store's own stay valid too. */
  apiKeys?: readonly ApiKeyConfig[];
  /** Where keys and each partner's volume are kept (SQLite); none: in memory, gone at stop. */
  partnerStoreFile?: string;
  /** Signs partner ids; the router's `adminSigner` must be this key's address for partners to be paid. */
  signerPrivateKey?: Hex;
  /** Where unexpected failures are reported (never with request headers). Default: stderr. */
  onError?: (error: unknown) => void;
};

export type RoutingService = { url: string; close(): Promise<void> };

/** One client's default share: far above what a daemon asks (a few requests per trade), far below a flood. */
export const defaultPerClient: ClientRate = { requestsPerSecond: 200, burst: 400 };

/** The default liquidity floor: a pool holding less than a million raw units of either token is dust. */
export const defaultMinReserve = 1_000_000n;

export async function startRoutingService(options: RoutingServiceOptions): Promise<RoutingService> {
  const store = new PartnerStore(options.partnerStoreFile);
  store.addKeys(options.apiKeys ?? []);
  const partners = new PartnerRegistry(store, options.signerPrivateKey ? privateKeyToAccount(options.signerPrivateKey) : undefined);
  const client = createPublicClient({
    chain: chainFor(options.chainId, options.rpcUrl),
    transport: http(options.rpcUrl, { batch: { batchSize: 200 } }),
    cacheTime: 0,
  });
  const index = new PoolIndex(client, {
    factories: options.factories,
    router: options.router,
    adapterOverride: options.adapterOverride,
    headMaxAgeMs: options.headMaxAgeMs,
    cacheFile: options.cacheFile,
    // What the router executed for a partner, as its public source's `Swap` tells (input token and amount).
    onPartnerSwaps: (swaps, head) => {
      for (const swap of swaps) store.recordExecuted(swap.partner, swap.tokenIn, swap.amountIn, swap.txHash, swap.logIndex, Number(head.timestamp) * 1000);
    },
  });
  const chainState = new ChainState(client, index, {
    router: options.router,
    partnerIds: partners.partnerIds,
    minReserve: options.minReserve ?? defaultMinReserve,
    pricedTokens: options.pricedTokens,
  });
  const engine = new QuoteEngine({
    router: options.router,
    earn: options.earn,
    searchBudgetMs: options.searchBudgetMs,
    gasToken: options.gasToken,
    through: options.through,
  });
  const parts: AnswerParts = {
    chainId: options.chainId,
    index,
    chainState,
    engine,
    partners,
    tokens: options.tokens,
    onError: options.onError ?? ((error) => console.error('routing service: unexpected failure', error)),
  };

  // The status port's guards (src/http-guards.ts): a rebinding page's Host is refused, a flooding client slowed down.
  const hostAllowed = servesHost(options.allowedHosts);
  const perClient = options.perClient === false ? undefined : new ClientLimit(options.perClient ?? defaultPerClient);
  const ownToken = options.ownClientToken === undefined ? undefined : Buffer.from(options.ownClientToken);
  const isOwnClient = (request: IncomingMessage) => {
    const given = headerValue(request.headers['x-routekeeper-client']);
    return ownToken !== undefined && given !== undefined && given.length === ownToken.length && timingSafeEqual(Buffer.from(given), ownToken);
  };
  /** A request's bucket: its issued API key's, else its address's. */
  const clientOf = (request: IncomingMessage) => {
    const apiKey = headerValue(request.headers['x-api-key']);
    return apiKey !== undefined && store.keyOf(apiKey) ? `key:${apiKey}` : `address:${request.socket.remoteAddress}`;
  };
  const limits = options.connections ?? defaultConnectionLimits;
  const server = createServer(serverOptionsFor(limits), (request, response) => {
    if (!hostAllowed(request.headers.host)) {
      return send(response, 403, {
        error: `Host '${request.headers.host ?? ''}' is not served here (a loopback name, or one of ROUTING_ALLOWED_HOSTS)`,
      } satisfies ErrorBody);
    }
    // A socket already gone has no address to count it under, and no one to answer.
    if (request.socket.remoteAddress === undefined) return void request.socket.destroy();
    const turn = isOwnClient(request) ? undefined : perClient?.take(clientOf(request));
    if (turn && !turn.ok) {
      return send(response, 429, { error: 'Too many requests from this client; try again after Retry-After' } satisfies ErrorBody, {
        'retry-after': String(Math.ceil(turn.retryAfterMs / 1000)),
      });
    }
    const asked = {
      method: request.method ?? 'GET',
      accept: request.headers.accept,
      url: request.url ?? '/',
      apiKey: headerValue(request.headers['x-api-key']),
    };
    void answer(parts, asked).then(({ status, body }) => send(response, status, body));
  });
  limitConnections(server, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await index.close();
      store.close();
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
