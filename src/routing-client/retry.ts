/**
 * Retries for errors that say they may pass (`retryable`), with exponential backoff and jitter, honouring a
 * server's Retry-After, and bounded both in attempts and in total time.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { RoutekeeperError } from '../errors.ts';

export type RetryPolicy = {
  /** Attempts after the first. */
  maxRetries: number;
  /** No retry starts once this much time has passed since the first attempt (nor one whose wait would pass it). */
  maxTotalMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
};

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, maxTotalMs: 15_000, baseDelayMs: 250, maxDelayMs: 5_000 };

export type RetryContext = { attempt: number; error: RoutekeeperError; delayMs: number };

export async function withRetries<T>(
  work: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  hooks: { onRetry?: (context: RetryContext) => void; signal?: AbortSignal; random?: () => number } = {},
): Promise<T> {
  const started = Date.now();
  const random = hooks.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (!(error instanceof RoutekeeperError) || !error.retryable || attempt >= policy.maxRetries) throw error;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      // "Equal jitter": at least half the backoff, so retries from many clients spread out but never bunch at 0.
      const jittered = backoff / 2 + random() * (backoff / 2);
      const retryAfter = 'retryAfterMs' in error && typeof error.retryAfterMs === 'number' ? error.retryAfterMs : 0;
      const delayMs = Math.ceil(Math.max(jittered, retryAfter));
      if (Date.now() - started + delayMs > policy.maxTotalMs) throw error;
      hooks.onRetry?.({ attempt: attempt + 1, error, delayMs });
      await delay(delayMs, undefined, { signal: hooks.signal });
    }
  }
}
