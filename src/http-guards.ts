/**
 * What a local HTTP server of routekeeper (the status port, the routing service) checks of every request before
 * anything else: that it names a host the server answers to, and that its client has not asked too much.
 *
 * A web page can point a name of its own at 127.0.0.1 (DNS rebinding) and have a browser on this machine send it
 * requests: the `Host` it sends is the page's name, so only loopback names and those configured are answered. One
 * client (an address) asking without pause gets 429 with a Retry-After, and the others are answered meanwhile.
 */
import { isLoopbackHost } from './loopback.ts';

/** The host name a `Host` header names (its port, and an IPv6 address's brackets, taken off), lower-cased. */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'));
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/**
 * Whether a request's `Host` header is one the server answers to: a loopback name or address (all of 127.0.0.0/8,
 * src/loopback.ts), or one of `allowed` ('*' answers any).
 */
export function servesHost(allowed: readonly string[] = []): (header: string | undefined) => boolean {
  const names = new Set(allowed.map((name) => name.toLowerCase()));
  return (header) => names.has('*') || (header !== undefined && (isLoopbackHost(hostName(header)) || names.has(hostName(header))));
}

export type ClientRate = { requestsPerSecond: number; burst: number };

/** A token bucket per client: `burst` requests at once, refilled at `requestsPerSecond`. */
export class ClientLimit {
  readonly #rate: ClientRate;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(rate: ClientRate) {
    this.#rate = rate;
  }

  /** Takes one request of `client`'s; when it has none left, how long until it has one (ms). */
  take(client: string, now = performance.now()): { ok: true } | { ok: false; retryAfterMs: number } {
    const { requestsPerSecond, burst } = this.#rate;
    const bucket = this.#buckets.get(client) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * requestsPerSecond) / 1000);
    bucket.at = now;
    this.#buckets.set(client, bucket);
    if (this.#buckets.size > 10_000) this.#forgetFull(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) * 1000) / requestsPerSecond) };
  }

  /** Clients whose bucket has refilled are as if never seen: memory stays bounded by the clients asking now. */
  #forgetFull(now: number): void {
    const { requestsPerSecond, burst } = this.#rate;
    for (const [client, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) * requestsPerSecond) / 1000 >= burst) this.#buckets.delete(client);
    }
  }
}
