import type { Address } from 'viem';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRoutingClient } from '../../src/routing-client/client.ts';
import { productionServiceUrl } from '../../src/routing-api/endpoints.ts';
import { AdaptiveLimiter, defaultRateLimitFor, rateLimitFor } from '../../src/routing-client/limiter.ts';
import { startFaultServer, validSwapAnswer } from '../helpers/fault-server.ts';
import { waitFor } from '../helpers/wait.ts';

const CELO = '0x471EcE3750Da237f93B8E339c536989b8978a438' as Address;
const CUSD = '0x765DE816845861e75A25fCA122bb6898B8B1282a' as Address;
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('the routing service limit', () => {
  it('is conservative for the hosted service and any remote one, unlimited for a local one, and configurable field by field', () => {
    expect(defaultRateLimitFor(productionServiceUrl)).toEqual({ requestsPerSecond: 10, maxConcurrent: 4 });
    expect(defaultRateLimitFor('https://routing.example.org/v1')).toEqual({ requestsPerSecond: 10, maxConcurrent: 4 });
    expect(defaultRateLimitFor('http://127.0.0.1:4100')).toEqual({});
    expect(defaultRateLimitFor('http://localhost:4100')).toEqual({});
    // Every loopback address is this machine (src/loopback.ts decides 127.0.0.0/8 once).
    expect(defaultRateLimitFor('http://127.0.0.2:4100')).toEqual({});
    expect(defaultRateLimitFor('http://[::1]:4100')).toEqual({});
    // The environment over the strategy file over the default, each field on its own.
    const fromEnv = { requestsPerSecond: 50, maxConcurrent: undefined };
    const fromFile = { requestsPerSecond: 20, maxConcurrent: 8 };
    expect(rateLimitFor(productionServiceUrl, fromEnv, fromFile)).toEqual({ requestsPerSecond: 50, maxConcurrent: 8 });
    expect(rateLimitFor(productionServiceUrl, undefined, { maxConcurrent: 2 })).toEqual({ requestsPerSecond: 10, maxConcurrent: 2 });
    expect(rateLimitFor('http://127.0.0.1:4100', undefined, undefined)).toEqual({ requestsPerSecond: undefined, maxConcurrent: undefined });
  });

  it('holds every request to the service for as long as a 429 says (Retry-After), and halves its rate', async () => {
    const server = await startFaultServer([
      { status: 429, headers: { 'retry-after': '2' }, body: { error: 'slow down' } },
      { status: 200, body: validSwapAnswer() },
    ]);
    servers.push(server);
    const client = createRoutingClient({
      baseUrl: server.url,
      rateLimit: { requestsPerSecond: 40, maxConcurrent: 8 },
      retry: { maxRetries: 2, maxTotalMs: 10_000, baseDelayMs: 10, maxDelayMs: 50 },
    });
    const quote = (amountIn: bigint) => client.getSwapRoute({ tokenIn: CELO, tokenOut: CUSD, amountIn });

    const first = quote(1n);
    // Once the 429 is read, the limiter holds for its Retry-After at half the rate.
    await waitFor(() => client.limiter.rate === 20, 'the 429 to reach the limiter', 10_000, { pollMs: 5 });
    expect(client.limiter.heldUntil).toBeGreaterThan(Date.now() + 1_800);
    expect(client.limiter.rate).toBe(20);
    // Five other strategies quote meanwhile: none of them reaches the service before the 2 s are over.
    const others = [2n, 3n, 4n, 5n, 6n].map(quote);
    const routes = await Promise.all([first, ...others]);

    expect(routes.map((route) => route.expectedOut)).toEqual(Array(6).fill(498500000000000000n));
    expect(server.requests).toHaveLength(7);
    const limitedAt = server.requests[0]?.at as number;
    for (const request of server.requests.slice(1)) expect(request.at - limitedAt).toBeGreaterThanOrEqual(1_990);
    // At half of 40 per second the limiter starts one every 50 ms after the hold: the k-th of the six cannot reach the
    // server before 2 s + k × 50 ms after the 429. A busy machine only delays arrivals, so lower bounds hold under load.
    const starts = server.requests
      .slice(1)
      .map((request) => (request.at as number) - limitedAt)
      .sort((a, b) => a - b);
    starts.forEach((start, k) => expect(start).toBeGreaterThanOrEqual(1_990 + k * 50 - 5));
  });

  describe('on a fake clock', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('gives the rate back in quarters, one each quiet period, up to the configured rate', async () => {
      const limiter = new AdaptiveLimiter({ requestsPerSecond: 40 }, { recoverAfterMs: 60 });
      limiter.rateLimited(0);
      expect(limiter.rate).toBe(20);
      limiter.rateLimited(0);
      expect(limiter.rate).toBe(10);
      const seen = [limiter.rate];
      for (let period = 0; period < 4; period++) {
        await vi.advanceTimersByTimeAsync(60);
        seen.push(limiter.rate);
      }
      expect(seen).toEqual([10, 20, 30, 40, 40]);
    });

    it('slows an unlimited service down on a 429 and lifts the limit again once it is quiet', async () => {
      // Thirty requests as they happen (Bottleneck's own timers), then the 429 on the fake clock; the limiter reads
      // whichever clock is installed.
      vi.useRealTimers();
      const limiter = new AdaptiveLimiter({}, { recoverAfterMs: 40, now: () => Date.now() });
      await Promise.all(Array.from({ length: 30 }, () => limiter.schedule(async () => undefined)));
      vi.useFakeTimers();
      limiter.rateLimited(0);
      // Thirty requests in the last second: now fifteen per second, then doubled each quiet period until past sixty.
      const seen = [limiter.rate];
      for (let period = 0; period < 3; period++) {
        await vi.advanceTimersByTimeAsync(40);
        seen.push(limiter.rate);
      }
      expect(seen).toEqual([15, 30, undefined, undefined]);
    });
  });
});
