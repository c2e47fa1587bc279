/**
 * How hard the daemon presses a routing service: one limiter per (origin, API key), shared by every client in the
 * process, so the configured rate holds however many strategies quote at once.
 *
 * A 429 answer holds every request to that service until its Retry-After has passed (1 s when it names none) and
 * halves the rate; each quiet `recoverAfterMs` then gives back a quarter of the configured rate, up to it.
 */
import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { productionServiceUrl } from '../routing-api/endpoints.ts';
import { isLoopbackHost } from '../loopback.ts';

/** Requests per second and in flight; absent means unlimited. */
export type RateLimit = { requestsPerSecond?: number; maxConcurrent?: number };

/** The hosted service's published free tier is not ours to exhaust: a polite default for it and any remote one. */
export const remoteServiceRateLimit: RateLimit = { requestsPerSecond: 10, maxConcurrent: 4 };
/** A service on this machine (the devnet's, or one run beside the daemon) is not limited unless told. */
export const localServiceRateLimit: RateLimit = {};

/** The limit a service gets when neither the strategy file nor the environment sets one. */
export function defaultRateLimitFor(baseUrl: string): RateLimit {
  const { hostname, origin } = new URL(baseUrl);
  if (origin === new URL(productionServiceUrl).origin) return remoteServiceRateLimit;
  return isLoopbackHost(hostname) ? localServiceRateLimit : remoteServiceRateLimit;
}

/** The configured limit, field by field: the environment over the strategy file over the service's default. */
export function rateLimitFor(baseUrl: string, ...configured: (RateLimit | undefined)[]): RateLimit {
  const fallback = defaultRateLimitFor(baseUrl);
  const pick = <K extends keyof RateLimit>(key: K) => configured.find((limit) => limit?.[key] !== undefined)?.[key] ?? fallback[key];
  return { requestsPerSecond: pick('requestsPerSecond'), maxConcurrent: pick('maxConcurrent') };
}

export const describeRateLimit = (limit: RateLimit) =>
  `${limit.requestsPerSecond === undefined ? 'unlimited' : `${limit.requestsPerSecond}`} requests/s, ${limit.maxConcurrent === undefined ? 'unlimited' : limit.maxConcurrent} at once`;

export type AdaptiveLimiterOptions = { recoverAfterMs?: number; now?: () => number };

export class AdaptiveLimiter {
  readonly limit: RateLimit;
  readonly #bottleneck: Bottleneck;
  readonly #recoverAfterMs: number;
  readonly #now: () => number;
  /** The rate in force now (requests per second); undefined while unlimited. */
  #rate: number | undefined;
  #heldUntil = 0;
  #lastLimited = 0;
  #release: NodeJS.Timeout | undefined;
  #recovery: NodeJS.Timeout | undefined;
  /** While an unlimited service recovers from a 429: the rate past which it is unlimited again. */
  #unlimitedAgainAt = Number.POSITIVE_INFINITY;
  /** Start times of the last second's requests: what "half the rate" means while unlimited. */
  readonly #recent: number[] = [];
  /** How many daemons share the configured limit (each takes its part). */
  #daemons = 1;

  constructor(limit: RateLimit, options: AdaptiveLimiterOptions = {}) {
    this.limit = limit;
    this.#rate = limit.requestsPerSecond;
    this.#recoverAfterMs = options.recoverAfterMs ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#bottleneck = new Bottleneck({ maxConcurrent: limit.maxConcurrent ?? null, minTime: minTimeOf(this.#rate) });
  }

  /** The rate in force now, in requests per second (undefined: unlimited). */
  get rate(): number | undefined {
    return this.#rate;
  }

  /** The rate this process may reach: its part of the configured one (undefined: unlimited). */
  #target(): number | undefined {
    return this.limit.requestsPerSecond === undefined ? undefined : this.limit.requestsPerSecond / this.#daemons;
  }

  /**
   * The configured limit is a budget for every daemon of a group together: each of `daemons` takes its part of the
   * rate and of the requests at once. A rate lowered by a 429 moves in proportion, and recovers toward the new part.
   */
  shareAmong(daemons: number): void {
    const count = Math.max(1, Math.floor(daemons));
    if (count === this.#daemons) return;
    const before = this.#target();
    this.#daemons = count;
    const target = this.#target();
    if (target !== undefined && before !== undefined) this.#rate = Math.min(target, ((this.#rate ?? before) * target) / before);
    const maxConcurrent = this.limit.maxConcurrent === undefined ? null : Math.max(1, Math.floor(this.limit.maxConcurrent / count));
    void this.#bottleneck.updateSettings({ minTime: minTimeOf(this.#rate), maxConcurrent });
  }

  /** Until when (ms) every request is held after a 429; 0 when none is. */
  get heldUntil(): number {
    return this.#heldUntil > this.#now() ? this.#heldUntil : 0;
  }

  schedule<T>(work: () => Promise<T>): Promise<T> {
    return this.#bottleneck.schedule(() => {
      const now = this.#now();
      this.#recent.push(now);
      while ((this.#recent[0] as number) < now - 1_000) this.#recent.shift();
      return work();
    });
  }

  /** The service said 429: hold everything until `retryAfterMs` has passed and halve the rate. */
  rateLimited(retryAfterMs: number | undefined): void {
    const now = this.#now();
    this.#lastLimited = now;
    const until = now + Math.max(retryAfterMs ?? 1_000, 0);
    const current = this.#rate ?? Math.max(this.#recent.length, 2);
    if (this.#rate === undefined) this.#unlimitedAgainAt = current * 2;
    this.#rate = Math.max(current / 2, 0.1);
    if (until > this.#heldUntil) {
      this.#heldUntil = until;
      clearTimeout(this.#release);
      // A reservoir of 0 starts nothing more; in-flight requests finish. It reopens when the wait is over.
      void this.#bottleneck.updateSettings({ reservoir: 0, minTime: minTimeOf(this.#rate) });
      this.#release = setTimeout(() => void this.#bottleneck.updateSettings({ reservoir: null }), until - now);
      this.#release.unref();
    } else {
      void this.#bottleneck.updateSettings({ minTime: minTimeOf(this.#rate) });
    }
    this.#scheduleRecovery();
  }

  #scheduleRecovery(): void {
    clearTimeout(this.#recovery);
    this.#recovery = setTimeout(() => {
      if (this.#now() - this.#lastLimited < this.#recoverAfterMs) return this.#scheduleRecovery();
      const rate = this.#rate as number;
      const target = this.#target();
      // Back up in quarters of the configured rate; an unlimited one doubles until it is past where the 429 came.
      if (target !== undefined) this.#rate = Math.min(target, rate + target / 4);
      else this.#rate = rate * 2 >= this.#unlimitedAgainAt ? undefined : rate * 2;
      void this.#bottleneck.updateSettings({ minTime: minTimeOf(this.#rate) });
      if (this.#rate !== target) this.#scheduleRecovery();
    }, this.#recoverAfterMs);
    this.#recovery.unref();
  }
}

const minTimeOf = (rate: number | undefined) => (rate === undefined ? 0 : Math.ceil(1000 / rate));

/**
 * Shared state, not a cache: one limiter per service and key for the whole process, so every client that asks the same
 * service with the same key (one per wallet) keeps to one rate between them.
 */
const limiters = new Map<string, AdaptiveLimiter>();

export function limiterFor(baseUrl: string, apiKey: string | undefined, limit: RateLimit): AdaptiveLimiter {
  // The key is hashed so that no map key, dump or log line can ever show it.
  const keyId = apiKey ? createHash('sha256').update(apiKey).digest('hex').slice(0, 16) : 'no-key';
  const id = `${new URL(baseUrl).origin}|${keyId}|${limit.requestsPerSecond ?? '-'}|${limit.maxConcurrent ?? '-'}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    limiter = new AdaptiveLimiter(limit);
    limiters.set(id, limiter);
  }
  return limiter;
}
