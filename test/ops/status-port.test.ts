/**
 * Whatever reaches the status port is untrusted: a malformed request target, a foreign `Host` (a web page that
 * rebinds its own name to 127.0.0.1), a request larger than any the page sends, a handler that fails. Each gets an
 * answer, and the server goes on answering. Requests are written by hand on a socket: fetch would correct them.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConnectionLimits, hostName } from '../../src/http-guards.ts';
import { startHealthServer } from '../../src/ops/health-server.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { rawGet, rawRequest, statusLine } from '../helpers/raw-http.ts';

const body = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
const get = rawGet;

const token = 'a-token-of-sixteen-chars';
const failures: unknown[] = [];
let server: Awaited<ReturnType<typeof startHealthServer>>;

beforeAll(async () => {
  server = await startHealthServer({
    port: 0,
    metrics: createMetrics(),
    health: () => ({ ok: false, details: { reasons: ['strategy dca: its last 3 runs failed'] } }),
    token,
    allowedHosts: ['routekeeper.internal'],
    onError: (error) => failures.push(error),
  });
  server.serveStatus({
    report: async () => {
      throw new Error('the ledger is gone');
    },
    strategy: async (id) => (id === 'dca' ? { id } : undefined),
  });
});
afterAll(() => server.close());

describe('the status port, given what no page sends', () => {
  it('answers every request target: 404 for //, 400 for an absolute or malformed one, 400 for a broken escape', async () => {
    expect(statusLine(await rawRequest(server.port, get('//')))).toBe('HTTP/1.1 404 Not Found');
    expect(statusLine(await rawRequest(server.port, get('http://[')))).toBe('HTTP/1.1 400 Bad Request');
    expect(statusLine(await rawRequest(server.port, get('*')))).toBe('HTTP/1.1 400 Bad Request');
    const broken = await rawRequest(server.port, get('/api/strategies/%E0%A4%A', '127.0.0.1', `Authorization: Bearer ${token}\r\n`));
    expect(statusLine(broken)).toBe('HTTP/1.1 400 Bad Request');
    expect(body(broken)).toEqual({ error: 'the strategy id in the path is not valid percent-encoding' });
    expect(statusLine(await rawRequest(server.port, get('/api/strategies/dca', '127.0.0.1', `Authorization: Bearer ${token}\r\n`)))).toBe('HTTP/1.1 200 OK');
  });

  it('serves loopback names and the configured ones only: a rebinding page is refused', async () => {
    for (const host of ['127.0.0.1:9464', '127.0.0.2:9464', 'localhost:9464', '[::1]:9464', 'routekeeper.internal:9464', 'LOCALHOST']) {
      expect(statusLine(await rawRequest(server.port, get('/healthz', host))), host).toBe('HTTP/1.1 503 Service Unavailable');
    }
    const foreign = await rawRequest(server.port, get('/api/status', 'attacker.example:9464', `Authorization: Bearer ${token}\r\n`));
    expect(statusLine(foreign)).toBe('HTTP/1.1 403 Forbidden');
    expect(body(foreign)).toEqual({ error: "host 'attacker.example:9464' is not served here (a loopback name, or one of METRICS_ALLOWED_HOSTS)" });
    // No Host at all (HTTP/1.0) is no loopback name either.
    expect(statusLine(await rawRequest(server.port, 'GET /healthz HTTP/1.0\r\n\r\n'))).toBe('HTTP/1.1 403 Forbidden');
  });

  it('refuses a request larger than any the page sends, and goes on answering', async () => {
    const huge = await rawRequest(server.port, get(`/${'a'.repeat(100_000)}`));
    expect(statusLine(huge)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(statusLine(await rawRequest(server.port, get('/healthz')))).toBe('HTTP/1.1 503 Service Unavailable');
  });

  it('says only up or down on /healthz without the token; the reasons with it', async () => {
    expect(body(await rawRequest(server.port, get('/healthz')))).toEqual({ status: 'unhealthy' });
    expect(body(await rawRequest(server.port, get('/healthz', '127.0.0.1', `Authorization: Bearer ${token}\r\n`)))).toEqual({
      status: 'unhealthy',
      reasons: ['strategy dca: its last 3 runs failed'],
    });
  });

  it('answers a handler that fails with a 500 that names nothing, logs it, and goes on', async () => {
    const failed = await rawRequest(server.port, get('/api/status', '127.0.0.1', `Authorization: Bearer ${token}\r\n`));
    expect(statusLine(failed)).toBe('HTTP/1.1 500 Internal Server Error');
    expect(body(failed)).toEqual({ error: 'the request failed inside routekeeper; the log says why' });
    expect(failures.map((error) => (error as Error).message)).toEqual(['the ledger is gone']);
    expect(statusLine(await rawRequest(server.port, get('/')))).toBe('HTTP/1.1 200 OK');
  });
});

describe('the status port, asked too much', () => {
  it('slows a client that asks without pause (429 with Retry-After), and closes a connection whose headers never end', async () => {
    const busy = await startHealthServer({
      port: 0,
      metrics: createMetrics(),
      health: () => ({ ok: true, details: {} }),
      perClient: { requestsPerSecond: 0.001, burst: 3 },
      connections: { ...defaultConnectionLimits, headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await rawRequest(busy.port, get('/healthz')));
      expect(answers.map(statusLine)).toEqual([...Array(3).fill('HTTP/1.1 200 OK'), 'HTTP/1.1 429 Too Many Requests']);
      expect(answers[3]).toMatch(/\r\nretry-after: \d+\r\n/i);
      // Half a request, then nothing: answered 408 and closed, not held.
      const socket = connect(busy.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      await once(socket, 'close');
      expect(statusLine(answer)).toBe('HTTP/1.1 408 Request Timeout');
    } finally {
      await busy.close();
    }
  });
});

describe('hostName', () => {
  it('takes the port and the brackets off, lower-cased', () => {
    expect(['127.0.0.1:9464', 'LocalHost', '[::1]:80', '[::1]', 'example.org:1'].map(hostName)).toEqual([
      '127.0.0.1',
      'localhost',
      '::1',
      '::1',
      'example.org',
    ]);
  });
});
