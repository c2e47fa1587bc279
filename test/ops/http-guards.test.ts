/** The guards of routekeeper's local HTTP servers: which Host is answered, and each client's share of requests. */
import { describe, expect, it } from 'vitest';
import { ClientLimit, servesHost } from '../../src/http-guards.ts';

describe('servesHost', () => {
  it('answers loopback names and addresses (all of 127.0.0.0/8), those allowed, and any with *', () => {
    const loopbackOnly = servesHost();
    expect(['localhost:8080', '127.0.0.1', '127.0.0.2:1', '[::1]:80'].map(loopbackOnly)).toEqual([true, true, true, true]);
    expect(['attacker.example', 'routing:8080', undefined].map(loopbackOnly)).toEqual([false, false, false]);
    // A name a page may own that only starts like a loopback address is not one (DNS rebinding).
    expect(['127.0.0.1.attacker.example', '127.attacker.example:80', '128.0.0.1'].map(loopbackOnly)).toEqual([false, false, false]);
    expect(['routing:8080', 'ROUTING', 'other'].map(servesHost(['routing']))).toEqual([true, true, false]);
    expect(servesHost(['*'])('anything.example')).toBe(true);
  });
});

describe('ClientLimit', () => {
  it('lets a client ask its burst at once, then one request per refill, and says how long to wait; others are not held', () => {
    const limit = new ClientLimit({ requestsPerSecond: 2, burst: 3 });
    const at = (ms: number, client = 'a') => limit.take(client, ms);
    expect([at(0), at(0), at(0)].map((turn) => turn.ok)).toEqual([true, true, true]);
    expect(at(0)).toEqual({ ok: false, retryAfterMs: 500 });
    expect(at(0, 'b')).toEqual({ ok: true });
    expect(at(250)).toEqual({ ok: false, retryAfterMs: 250 });
    expect(at(500)).toEqual({ ok: true });
    // A client quiet for long enough has its whole burst again, never more.
    expect([at(10_000), at(10_000), at(10_000), at(10_000)].map((turn) => turn.ok)).toEqual([true, true, true, false]);
  });
});
