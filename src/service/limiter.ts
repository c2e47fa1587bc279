/**
 * One bottleneck limiter per (base URL, API key), shared by every client in the process, so the configured
 * rate holds however many strategies quote at once.
 */
import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';

export type RateLimit = { requestsPerSecond: number; maxConcurrent: number };

export const defaultRateLimit: RateLimit = { requestsPerSecond: 10, maxConcurrent: 4 };

const limiters = new Map<string, Bottleneck>();

export function limiterFor(baseUrl: string, apiKey: string | undefined, limit: RateLimit): Bottleneck {
  // The key is hashed so that no map key, dump or log line can ever show it.
  const keyId = apiKey ? createHash('sha256').update(apiKey).digest('hex').slice(0, 16) : 'no-key';
  const id = `${new URL(baseUrl).origin}|${keyId}|${limit.requestsPerSecond}|${limit.maxConcurrent}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    limiter = new Bottleneck({ maxConcurrent: limit.maxConcurrent, minTime: Math.ceil(1000 / limit.requestsPerSecond) });
    limiters.set(id, limiter);
  }
  return limiter;
}
