/**
 * What a local HTTP server of routekeeper (the status port, the routing service) checks of every request before
 * anything else: that it names a host the server answers to, and that its client has not asked too much.
 *
 * A web page can point a name of its own at 127.0.0.1 (DNS rebinding) and have a browser on this machine send it
 * requests: the `Host` it sends is the page's name, so only loopback names and those configured are answered. One
 * client (an address) asking without pause gets 429 with a Retry-After, and the others are answered meanwhile; every
 * connection is held to a time and a size (ConnectionLimits).
 */
import type { Server, ServerOptions } from 'node:http';
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

/**
 * How long and how much one connection may hold a server: a client that opens many sockets, or sends its headers a
 * byte at a time (slowloris), is cut off instead of holding the port.
 */
export type ConnectionLimits = {
  maxConnections: number;
  /** All the request's headers within this (ms), else 408 and the socket closed. */
  headersTimeoutMs: number;
  /** The whole request within this (ms). */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** A socket silent this long (ms) is closed. */
  idleTimeoutMs: number;
  maxHeaderSize: number;
  maxHeadersCount: number;
};

/** Far above what the daemon, a page and a few scripts use; far below what exhausts a process. */
export const defaultConnectionLimits: ConnectionLimits = {
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxHeaderSize: 16 * 1024,
  maxHeadersCount: 64,
};

/** The options `http.createServer` takes for `limits` (the header size, and how often timeouts are looked at). */
export function serverOptionsFor(limits: ConnectionLimits): ServerOptions {
  return { maxHeaderSize: limits.maxHeaderSize, connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))) };
}

/** Applies `limits` to a server made with `serverOptionsFor(limits)`. */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxHeadersCount = limits.maxHeadersCount;
  server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
}
