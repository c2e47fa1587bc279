import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startRoutingService } from '../../src/routing/server.ts';
import { routingSetupFor } from '../../src/routing/setup.ts';
import { createRoutingClient } from '../../src/routing-client/client.ts';
import { defaultConnectionLimits } from '../../src/http-guards.ts';
import { errorBodySchema } from '../../src/routing-api/schemas.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { getJson } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true });

const valid = () => ({ tokenIn: fork.token('CELO'), tokenOut: fork.token('cUSD'), amountIn: '1000000000000000000' });

describe('the routing service refuses bad requests with 400 and names the field', () => {
  // Every bad parameter, one by one, is test/routing/query.test.ts (no service needed); over HTTP, one of them shows
  // the 400 and its field reach the client, and the deadline needs the chain's time.
  const cases: [string, () => Record<string, string>, string, RegExp][] = [
    ['a malformed address', () => ({ ...valid(), tokenIn: '0x1234' }), 'tokenIn', /20-byte hex address/],
    ['a deadline in the past', () => ({ ...valid(), deadlineMs: '1000000000' }), 'deadlineMs', /is not after the latest block's time/],
  ];
  for (const [what, params, field, message] of cases) {
    it(`GET /routes with ${what}`, async () => {
      const { status, body } = await getJson(fork, '/routes', params());
      expect(status).toBe(400);
      expect(errorBodySchema.parse(body).field).toBe(field);
      expect(body.error).toMatch(message);
    });
  }

  it('an unknown token: the real service\'s "Unsupported tokens" body, naming the token', async () => {
    const stranger = '0x000000000000000000000000000000000000dEaD';
    const { status, body } = await getJson(fork, '/routes', { ...valid(), tokenOut: stranger });
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'Unsupported tokens', field: 'tokenOut', tokens: [stranger] });
  });

  it('a parameter given twice', async () => {
    const url = new URL('/routes', fork.addressBook.routingServiceUrl);
    for (const [name, value] of Object.entries(valid())) url.searchParams.set(name, value);
    url.searchParams.append('amountIn', '2');
    const response = await fetch(url);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'Invalid amountIn: is given more than once', field: 'amountIn' });
  });

  it('deposit into a token that is not an LP or gauge, and withdraw more than exists', async () => {
    const deposit = await getJson(fork, '/earn/deposit', { tokenIn: fork.token('CELO'), tokenOut: fork.token('cUSD'), inputAmount: '1000' });
    expect(deposit.status).toBe(400);
    expect(deposit.body.field).toBe('tokenOut');
    expect(deposit.body.error).toMatch(/is not an LP or gauge token/);
    const pool = fork.addressBook.pools[0];
    if (!pool) throw new Error('no pool');
    const withdraw = await getJson(fork, '/earn/withdraw', { tokenIn: pool.address, tokenOut: fork.token('cUSD'), inputAmount: (10n ** 30n).toString() });
    expect(withdraw.status).toBe(400);
    expect(withdraw.body.field).toBe('inputAmount');
  });
});

describe('no route, auth and protocol errors', () => {
  it('no route: 400 with the message the real service uses', async () => {
    const { status, body } = await getJson(fork, '/routes', { ...valid(), exclude: 'uniswap-v2' });
    expect({ status, body }).toEqual({ status: 400, body: { error: 'No routes found' } });
  });

  it('an unknown API key: 401 with a clear message', async () => {
    const { status, body } = await getJson(fork, '/routes', valid(), { 'x-api-key': 'not-a-key' });
    expect(status).toBe(401);
    expect(body.error).toMatch(/Unknown API key/);
    expect(JSON.stringify(body)).not.toContain('not-a-key');
  });

  it('an unknown path is 404, a POST is 405, an Accept it cannot meet is 406', async () => {
    const base = fork.addressBook.routingServiceUrl;
    expect((await fetch(new URL('/swap', base))).status).toBe(404);
    expect((await fetch(new URL('/routes', base), { method: 'POST', body: '{}' })).status).toBe(405);
    expect((await fetch(new URL('/routes', base), { headers: { accept: 'text/html' } })).status).toBe(406);
  });

  it('health says ready', async () => {
    expect(await getJson(fork, '/')).toEqual({ status: 200, body: { alive: true, state: 'ready' } });
  });

  it('survives garbage and keeps answering', async () => {
    const base = fork.addressBook.routingServiceUrl as string;
    const garbage = [
      '/routes?%E0%A4%A',
      '/routes?tokenIn=%00%00&tokenOut=\u{1F4A9}&amountIn=1e18',
      `/routes?amountIn=${'9'.repeat(5000)}`,
      '/earn/deposit?inputAmount=[object Object]',
      '/routes?deadlineMs=99999999999999999999999',
      '//..//..//etc/passwd',
    ];
    for (const path of garbage) {
      const response = await fetch(base + path);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(errorBodySchema.safeParse(await response.json()).success, path).toBe(true);
    }
    expect((await getJson(fork, '/')).status).toBe(200);
  });
});

describe('the routing service guards its port as the status port does', () => {
  /** GET `path` with this `Host` header (fetch will not send one of our choosing). */
  const getWithHost = (url: string, host: string) =>
    new Promise<{ status: number; body: unknown; retryAfter?: string }>((resolve, reject) => {
      const request = httpGet(url, { headers: { host } }, (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), retryAfter: response.headers['retry-after'] }));
      });
      request.on('error', reject);
    });

  it("answers a loopback Host, and refuses a rebinding page's own name with 403", async () => {
    const url = `${fork.addressBook.routingServiceUrl}/`;
    expect((await getWithHost(url, `127.0.0.1:${new URL(url).port}`)).status).toBe(200);
    expect((await getWithHost(url, 'localhost')).status).toBe(200);
    expect(await getWithHost(url, 'attacker.example:8546')).toEqual({
      status: 403,
      body: { error: "Host 'attacker.example:8546' is not served here (a loopback name, or one of ROUTING_ALLOWED_HOSTS)" },
      retryAfter: undefined,
    });
  });

  it('answers a named host when told to, and a client past its share gets 429 with Retry-After', async () => {
    const book = fork.addressBook;
    const service = await startRoutingService({
      ...routingSetupFor(book.chainId, book.rpcUrl, book),
      allowedHosts: ['routing'],
      perClient: { requestsPerSecond: 1, burst: 2 },
    });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await getWithHost(`${service.url}/`, 'routing:8080'));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
      expect(answers[2]).toEqual({ status: 429, body: { error: 'Too many requests from this client; try again after Retry-After' }, retryAfter: '1' });
    } finally {
      await service.close();
    }
  });

  it("keeps the daemon's own quotes coming while another local client floods it: the daemon's bucket is its own", async () => {
    const book = fork.addressBook;
    const ownClientToken = randomBytes(32).toString('hex');
    const service = await startRoutingService({
      ...routingSetupFor(book.chainId, book.rpcUrl, book),
      perClient: { requestsPerSecond: 0.001, burst: 0 },
      ownClientToken,
    });
    try {
      // A stranger on this machine (the same address as the daemon) whose share is spent asks 400 times, 200 at once (the
      // port takes 256 connections): every one is refused.
      const wave = () => Promise.all(Array.from({ length: 200 }, () => fetch(`${service.url}/`).then((response) => response.status)));
      const flood = [...(await wave()), ...(await wave())];
      expect(flood.filter((status) => status !== 429)).toEqual([]);
      // The daemon, through its own client, still gets every quote it asks for.
      const daemon = createRoutingClient({
        baseUrl: service.url,
        chainId: book.chainId,
        clientToken: ownClientToken,
        retry: { maxRetries: 0, maxTotalMs: 1, baseDelayMs: 1, maxDelayMs: 1 },
      });
      const quotes = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          daemon.getSwapRoute({ tokenIn: fork.token('CELO'), tokenOut: fork.token('cUSD'), amountIn: 10n ** 18n + BigInt(i) }),
        ),
      );
      expect(quotes.every((quote) => quote.expectedOut > 0n)).toBe(true);
      // A wrong secret is a stranger like any other.
      const guessed = await fetch(`${service.url}/`, { headers: { 'x-routekeeper-client': 'f'.repeat(64) } });
      expect(guessed.status).toBe(429);
    } finally {
      await service.close();
    }
  });

  it('closes a connection whose headers do not arrive in time (a slow client cannot hold the port)', async () => {
    const book = fork.addressBook;
    const service = await startRoutingService({
      ...routingSetupFor(book.chainId, book.rpcUrl, book),
      connections: { ...defaultConnectionLimits, headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    try {
      const { port } = new URL(service.url);
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      // Half a request, then nothing: the server answers 408 and closes the socket.
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      await once(socket, 'close');
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await service.close();
    }
  });
});
