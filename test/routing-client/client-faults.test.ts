import { afterEach, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { RoutekeeperError } from '../../src/errors.ts';
import { type RoutingClientConfig, createRoutingClient } from '../../src/routing-client/client.ts';
import {
  BadRequestError,
  InvalidQuoteError,
  NoRouteError,
  RateLimitedError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
} from '../../src/routing-client/errors.ts';
import { type PlannedAnswer, startFaultServer, validSwapAnswer } from '../helpers/fault-server.ts';
import { waitFor } from '../helpers/wait.ts';

const CELO = '0x471EcE3750Da237f93B8E339c536989b8978a438' as Address;
const CUSD = '0x765DE816845861e75A25fCA122bb6898B8B1282a' as Address;
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function clientAgainst(plan: PlannedAnswer[], config: RoutingClientConfig = {}) {
  const server = await startFaultServer(plan);
  servers.push(server);
  const client = createRoutingClient({
    baseUrl: server.url,
    timeoutMs: 2_000,
    rateLimit: { requestsPerSecond: 1000, maxConcurrent: 10 },
    retry: { maxRetries: 2, maxTotalMs: 10_000, baseDelayMs: 10, maxDelayMs: 50 },
    ...config,
  });
  return { server, client, quote: (amountIn = 10n ** 18n) => client.getSwapRoute({ tokenIn: CELO, tokenOut: CUSD, amountIn }) };
}

const ok = { status: 200, body: validSwapAnswer() };

describe('retryable failures are retried, within bounds', () => {
  it('429 with Retry-After: waits that long, then succeeds', async () => {
    const delays: number[] = [];
    const { server, quote } = await clientAgainst([{ status: 429, headers: { 'retry-after': '1' }, body: { error: 'slow down' } }, ok], {
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });
    const route = await quote();
    expect(route.expectedOut).toBe(498500000000000000n);
    expect(server.requests).toHaveLength(2);
    expect(delays).toEqual([1000]);
    expect((server.requests[1]?.at ?? 0) - (server.requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('429 every time: RateLimitedError carrying Retry-After, after maxRetries + 1 requests', async () => {
    const { server, quote } = await clientAgainst([{ status: 429, headers: { 'retry-after': '0' }, body: { error: 'slow down' } }]);
    const error = await quote().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(0);
    expect((error as RateLimitedError).retryable).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it('500 twice, then an answer', async () => {
    const { server, quote } = await clientAgainst([{ status: 500, body: { error: 'boom' } }, { status: 500, raw: 'oops' }, ok]);
    expect((await quote()).details.path).toEqual([CELO, CUSD]);
    expect(server.requests).toHaveLength(3);
  });

  it('503 every time: ServiceUnavailableError after exactly maxRetries + 1 requests', async () => {
    const { server, quote } = await clientAgainst([{ status: 503, body: { error: 'restarting' } }]);
    const error = await quote().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('a hung request: TimeoutError after the per-request timeout, retried, and bounded', async () => {
    const started = performance.now();
    const { server, quote } = await clientAgainst([{ hang: true }], {
      timeoutMs: 150,
      retry: { maxRetries: 1, maxTotalMs: 5_000, baseDelayMs: 10, maxDelayMs: 10 },
    });
    const error = await quote().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(2);
    // Two 150 ms timeouts and a 10 ms pause; a request left to hang would never end. The bound is loose: a busy
    // machine runs late, and what it holds the client to is an end, which the two requests already show.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('stops retrying when the total time bound would be passed, whatever maxRetries says', async () => {
    const started = performance.now();
    const { server, quote } = await clientAgainst([{ status: 503, body: { error: 'down' } }], {
      retry: { maxRetries: 50, maxTotalMs: 300, baseDelayMs: 100, maxDelayMs: 100 },
    });
    await expect(quote()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.length).toBeLessThanOrEqual(5);
    // maxRetries alone would take 50 × 100 ms: well under that, with room for a busy machine.
    expect(performance.now() - started).toBeLessThan(2_500);
  });

  it('an unreachable service is ServiceUnavailableError', async () => {
    const { server, quote } = await clientAgainst([ok]);
    await server.close();
    await expect(quote()).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('failures that would not pass are not retried', () => {
  const cases: [string, PlannedAnswer, new (...args: never[]) => Error, Record<string, unknown>][] = [
    ['no route', { status: 400, body: { error: 'No routes found' } }, NoRouteError, { retryable: false }],
    [
      'a refused parameter',
      { status: 400, body: { error: 'Invalid amountIn: must be greater than zero', field: 'amountIn' } },
      BadRequestError,
      { field: 'amountIn' },
    ],
    ['an unsupported token', { status: 400, body: { error: 'Unsupported tokens', tokens: [CUSD], field: 'tokenOut' } }, BadRequestError, { field: 'tokenOut' }],
    ['a refused key', { status: 401, body: { error: 'Unknown API key' } }, UnauthorizedError, { status: 401 }],
    ['truncated JSON', { status: 200, raw: '{"expectedOut":"49850' }, InvalidQuoteError, { status: 200 }],
  ];
  for (const [what, answer, type, fields] of cases) {
    it(`${what}: ${type.name}, one request`, async () => {
      const { server, quote } = await clientAgainst([answer, ok]);
      const error = await quote().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(RoutekeeperError);
      expect(error).toMatchObject(fields);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe('schema-violating answers become InvalidQuoteError naming the field', () => {
  const broken: [string, (answer: ReturnType<typeof validSwapAnswer>) => unknown, string][] = [
    ['path one longer than pairs + 1', (a) => ({ ...a, details: { ...a.details, path: [...a.details.path, CELO] } }), 'details.path'],
    ['extras shorter than pairs', (a) => ({ ...a, details: { ...a.details, extras: [] } }), 'details.extras'],
    ['a negative amount', (a) => ({ ...a, expectedOut: '-5' }), 'expectedOut'],
    ['a non-numeric amount', (a) => ({ ...a, details: { ...a.details, inputAmount: '1e18' } }), 'details.inputAmount'],
    ['an amount over uint256', (a) => ({ ...a, expectedOut: (2n ** 256n).toString() }), 'expectedOut'],
    ['a bad router address', (a) => ({ ...a, routerAddress: '0xnotanaddress' }), 'routerAddress'],
    ['a bad address inside the path', (a) => ({ ...a, details: { ...a.details, path: [CELO, '0x12'] } }), 'details.path.1'],
    ['a missing details object', (a) => ({ expectedOut: a.expectedOut, routerAddress: a.routerAddress }), 'details'],
    ['a sig that is not hex', (a) => ({ ...a, details: { ...a.details, sig: 'signed!' } }), 'details.sig'],
    ['a deadline that is not a number', (a) => ({ ...a, details: { ...a.details, deadline: 'soon' } }), 'details.deadline'],
    ['a swap with no pairs', (a) => ({ ...a, details: { ...a.details, path: [CELO], pairs: [], extras: [] } }), 'details.pairs'],
    [
      'a route of nine hops',
      (a) => ({ ...a, details: { ...a.details, path: Array(10).fill(CELO), pairs: Array(9).fill(CUSD), extras: Array(9).fill('0x') } }),
      'details.path',
    ],
    ['extras of 2 KiB', (a) => ({ ...a, details: { ...a.details, extras: [`0x${'ab'.repeat(2048)}`] } }), 'details.extras.0'],
    ['not an object at all', () => [1, 2, 3], '(answer)'],
  ];
  for (const [what, mutate, field] of broken) {
    it(what, async () => {
      const { server, quote } = await clientAgainst([{ status: 200, body: mutate(validSwapAnswer()) }]);
      const error = await quote().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidQuoteError);
      expect((error as InvalidQuoteError).field).toBe(field);
      expect((error as InvalidQuoteError).shortMessage).toContain(field);
      expect(server.requests).toHaveLength(1);
    });
  }

  it('tolerates unknown extra fields and types the known optional ones', async () => {
    const answer = {
      ...validSwapAnswer(),
      somethingNew: { a: 1 },
      minimumExpectedOut: '498000000000000000',
      priceImpact: { numerator: '3', denominator: '1000' },
    };
    const { quote } = await clientAgainst([{ status: 200, body: answer }]);
    const route = await quote();
    expect(route.minimumExpectedOut).toBe(498000000000000000n);
    expect(route.priceImpact).toEqual({ numerator: 3n, denominator: 1000n });
  });
});

describe('answers are bounded, and never followed elsewhere', () => {
  it('an answer larger than 256 KiB is refused unread, once, with or without Content-Length', async () => {
    for (const headers of [{}, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
      const { server, quote } = await clientAgainst([{ status: 200, raw: JSON.stringify({ ...validSwapAnswer(), padding: 'x'.repeat(300 * 1024) }), headers }]);
      const error = await quote().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidQuoteError);
      expect((error as InvalidQuoteError).shortMessage).toBe("the routing service's answer is larger than 262144 bytes; it is not read");
      expect(server.requests).toHaveLength(1);
    }
  });

  it('a redirect is not followed: the API key never reaches where it points', async () => {
    const elsewhere = await startFaultServer([ok]);
    servers.push(elsewhere);
    const apiKey = 'secret-key-1234567890';
    const { server, quote } = await clientAgainst([{ status: 307, headers: { location: `${elsewhere.url}/routes` } }], { apiKey });
    const error = await quote().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidQuoteError);
    expect((error as InvalidQuoteError).shortMessage).toMatch(
      /^the routing service answered http:\/\/127\.0\.0\.1:\d+\/routes with a redirect \(HTTP 307\), which is not followed$/,
    );
    expect(server.requests).toHaveLength(1);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('rate limit, coalescing, the API key', () => {
  it('holds the configured request rate (server-side timestamps)', async () => {
    const { server, client } = await clientAgainst([ok], { rateLimit: { requestsPerSecond: 20, maxConcurrent: 5 } });
    const asked = performance.now();
    await Promise.all(Array.from({ length: 8 }, (_, i) => client.getSwapRoute({ tokenIn: CELO, tokenOut: CUSD, amountIn: BigInt(i + 1) })));
    const times = server.requests.map((request) => request.at).sort((a, b) => a - b);
    expect(times).toHaveLength(8);
    // 20 per second is one start every 50 ms: the k-th request reaches the server no sooner than (k - 1) × 50 ms after
    // the eight were asked. A busy machine only makes requests later, never sooner, so this holds however loaded it
    // is, and a limiter that let two go at once breaks it (1 ms: the limiter's clock counts whole milliseconds).
    times.forEach((at, k) => expect(at - asked, `request ${k + 1} of 8`).toBeGreaterThanOrEqual(k * 50 - 1));
  });

  it('sends one HTTP request for identical concurrent calls, and separate ones for different calls', async () => {
    const { server, client } = await clientAgainst([{ ...ok, delayMs: 100 }]);
    const same = () => client.getSwapRoute({ tokenIn: CELO, tokenOut: CUSD, amountIn: 5n });
    const results = await Promise.all([same(), same(), same(), same(), same()]);
    expect(server.requests).toHaveLength(1);
    expect(new Set(results).size).toBe(1);
    await Promise.all([same(), client.getSwapRoute({ tokenIn: CELO, tokenOut: CUSD, amountIn: 6n })]);
    expect(server.requests).toHaveLength(3);
  });

  it('sends the API key as X-API-KEY and never puts it in an error', async () => {
    const apiKey = 'secret-key-1234567890';
    const { server, quote } = await clientAgainst([{ status: 401, body: { error: 'Unknown API key' } }], { apiKey });
    const error = (await quote().catch((e: unknown) => e)) as UnauthorizedError;
    expect(server.requests[0]?.headers['x-api-key']).toBe(apiKey);
    expect(server.requests[0]?.url).not.toContain(apiKey);
    for (const text of [error.message, error.shortMessage, error.details ?? '', JSON.stringify(error), String(error.stack)]) expect(text).not.toContain(apiKey);
  });

  it('passes every parameter of the spec and the known extras', async () => {
    const { server, client } = await clientAgainst([ok]);
    await client.getSwapRoute({
      tokenIn: CELO,
      tokenOut: CUSD,
      amountIn: 123n,
      from: CUSD,
      to: CELO,
      slippageBps: 30,
      deadlineMs: 60_000,
      maxHops: 2,
      exclude: ['mento', 'uniswap-v3'],
      includeTxn: true,
      priceImpact: true,
    });
    const query = Object.fromEntries(new URL(server.requests[0]?.url ?? '', 'http://x').searchParams);
    expect(query).toEqual({
      tokenIn: CELO,
      tokenOut: CUSD,
      amountIn: '123',
      from: CUSD,
      to: CELO,
      slippage: '30',
      deadlineMs: '60000',
      chainId: '42220',
      maxHops: '2',
      exclude: 'mento,uniswap-v3',
      includeTxn: 'true',
      priceImpact: 'true',
    });
  });

  it("stops at once when the caller's signal aborts, without retrying", async () => {
    const { server, client } = await clientAgainst([{ hang: true }]);
    const controller = new AbortController();
    const pending = client.getSwapRoute({ tokenIn: CELO, tokenOut: CUSD, amountIn: 1n, signal: controller.signal });
    // The stop comes while the service holds the request.
    await waitFor(() => server.requests.length > 0, 'the request to reach the service');
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
    expect(server.requests).toHaveLength(1);
  });
});
