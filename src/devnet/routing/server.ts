/**
 * A local Token Routing Service: the spec's API (GET /routes, /earn/deposit, /earn/withdraw, /) over the
 * Uniswap V2 pools of an address book, plus GET /partners/volume. Answers are JSON; errors are JSON
 * `{ error, field?, tokens? }` with a 4xx/5xx status, and no input can crash the server.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Hex, createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { z } from 'zod';
import { chainFor } from '../../chain/chains.ts';
import { encodeGaugeFarmData, encodePoolExtras } from '../../contracts/encoding.ts';
import type { AddressBook } from '../../config/address-book.ts';
import { earnRouteQuerySchema, swapRouteQuerySchema } from '../../service/schemas.ts';
import { ChainState } from './chain-state.ts';
import { type ErrorBody, RoutingRequestError, badRequest } from './errors.ts';
import type { PoolInfo } from './market.ts';
import { type ApiKeyConfig, PartnerRegistry } from './partners.ts';
import { type Position, QuoteEngine } from './quotes.ts';

export const uniswapV2Protocol = 'uniswap-v2';
/** Uniswap V2 pools the service routes through its second adapter (fee in basis points), which no list names. */
export const uniswapV2BipsProtocol = 'uniswap-v2-bips';

export type RoutingServiceOptions = {
  addressBook: AddressBook;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  apiKeys?: readonly ApiKeyConfig[];
  /** Signs partner ids; the router's `adminSigner` must be this key's address for partners to be paid. */
  signerPrivateKey?: Hex;
  /** Where unexpected failures are reported (never with request headers). Default: stderr. */
  onError?: (error: unknown) => void;
};

export type RoutingService = { url: string; close(): Promise<void> };

export async function startRoutingService(options: RoutingServiceOptions): Promise<RoutingService> {
  const book = options.addressBook;
  const pools = poolsOf(book);
  const partners = new PartnerRegistry(options.apiKeys ?? [], options.signerPrivateKey ? privateKeyToAccount(options.signerPrivateKey) : undefined);
  const client = createPublicClient({ chain: chainFor(book.chainId, book.rpcUrl), transport: http(book.rpcUrl, { batch: true }), cacheTime: 0 });
  const chainState = new ChainState(client, pools, book.contracts.router, partners.partnerIds);
  const engine = new QuoteEngine({
    router: book.contracts.router,
    oneClickFarm: book.contracts.oneClickFarm,
    adapters: {
      [uniswapV2Protocol]: { address: requireAddress(book.contracts.adapters.uniswapV2, 'contracts.adapters.uniswapV2'), extras: (pool) => encodePoolExtras(pool.address, pool.feePerMille) },
      ...(book.routingService
        ? { [uniswapV2BipsProtocol]: { address: book.routingService.bipsAdapter, extras: (pool: PoolInfo) => encodePoolExtras(pool.address, pool.feePerMille * 10) } }
        : {}),
    },
    positions: positionsOf(book, pools),
  });
  const onError = options.onError ?? ((error) => console.error('routing service: unexpected failure', error));

  const snapshot = async () => {
    try {
      return await chainState.current();
    } catch (error) {
      throw new RoutingRequestError(503, { error: `Chain unavailable: ${(error as Error).message.split('\n')[0]}` });
    }
  };

  async function handle(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    if (request.method !== 'GET') throw new RoutingRequestError(405, { error: `Method ${request.method} not allowed; use GET` });
    if (!acceptsJson(request.headers.accept)) throw new RoutingRequestError(406, { error: 'This service answers application/json only' });
    const url = new URL(request.url ?? '/', 'http://localhost');
    const apiKey = headerValue(request.headers['x-api-key']);

    switch (url.pathname) {
      case '/': {
        try {
          await client.getBlockNumber();
          return { status: 200, body: { alive: true, state: 'ready' } };
        } catch {
          return { status: 503, body: { alive: true, state: 'restarting' } };
        }
      }
      case '/routes': {
        const query = parseQuery(swapRouteQuerySchema, url, book.chainId);
        const partner = partners.resolve(apiKey);
        const answer = await engine.swap(await snapshot(), query, partner);
        if (apiKey) partners.record(apiKey, query.tokenIn, query.amountIn);
        return { status: 200, body: answer };
      }
      case '/earn/deposit':
      case '/earn/withdraw': {
        const query = parseQuery(earnRouteQuerySchema, url, book.chainId);
        const partner = partners.resolve(apiKey);
        const answer =
          url.pathname === '/earn/deposit'
            ? await engine.deposit(await snapshot(), query, partner)
            : await engine.withdraw(await snapshot(), query, partner);
        if (apiKey) partners.record(apiKey, query.tokenIn, query.inputAmount);
        return { status: 200, body: answer };
      }
      case '/partners/volume': {
        if (!apiKey) throw new RoutingRequestError(401, { error: 'Send your X-API-KEY to see its volume' });
        return { status: 200, body: partners.usage(apiKey) };
      }
      default:
        throw new RoutingRequestError(404, { error: `No endpoint ${url.pathname}; try /routes, /earn/deposit, /earn/withdraw or /` });
    }
  }

  const server = createServer((request, response) => {
    handle(request).then(
      ({ status, body }) => send(response, status, body),
      (error: unknown) => {
        if (error instanceof RoutingRequestError) return send(response, error.status, error.body);
        onError(error);
        send(response, 500, { error: 'Internal error' } satisfies ErrorBody);
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function send(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]?.trim().toLowerCase();
    return type === 'application/json' || type === 'application/*' || type === '*/*';
  });
}

/** Validates the query string; the error names the first parameter that is wrong. */
function parseQuery<S extends z.ZodType>(schema: S, url: URL, chainId: number): z.output<S> {
  const raw: Record<string, string> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) throw badRequest(name, 'is given more than once');
    raw[name] = values[0] as string;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const field = issue?.path.join('.') || 'query';
    const missing = issue?.code === 'invalid_type' && raw[field] === undefined;
    throw badRequest(field, missing ? 'is required' : (issue?.message ?? 'is invalid'));
  }
  const query = parsed.data as z.output<S> & { chainId: number };
  if (query.chainId !== chainId) throw badRequest('chainId', `${query.chainId} is not supported; this service quotes chain ${chainId}`);
  return query;
}

function requireAddress<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the address book has no ${what}`);
  return value;
}

function poolsOf(book: AddressBook): PoolInfo[] {
  return book.pools.map((pool) => ({
    address: pool.address,
    token0: requireAddress(book.tokens[pool.token0], `token ${pool.token0}`).address,
    token1: requireAddress(book.tokens[pool.token1], `token ${pool.token1}`).address,
    feePerMille: pool.feePerMille,
    protocol: book.routingService?.bipsPools.includes(pool.name) ? uniswapV2BipsProtocol : uniswapV2Protocol,
  }));
}

/** Every pool's LP (through the Uniswap V2 farm) and every gauge token (through the gauge farm). */
function positionsOf(book: AddressBook, pools: PoolInfo[]): Position[] {
  const { uniswapV2: v2Farm, gauge: gaugeFarm } = book.contracts.farms;
  const positions: Position[] = [];
  if (v2Farm) {
    for (const pool of pools) positions.push({ token: pool.address, pool, farm: v2Farm, farmData: encodePoolExtras(pool.address, pool.feePerMille) });
  }
  if (gaugeFarm) {
    for (const gauge of Object.values(book.contracts.gauges)) {
      const pool = pools.find((candidate) => candidate.address === gauge.pool);
      if (pool) positions.push({ token: gauge.address, pool, farm: gaugeFarm, farmData: encodeGaugeFarmData(pool.address, gauge.address) });
    }
  }
  return positions;
}
