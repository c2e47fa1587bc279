/**
 * Webhook notifications: a JSON POST per fill, failure or refusal, to each configured URL that wants that
 * event. Rate-limited (bottleneck) and retried with backoff; a webhook that stays down is logged, never fatal.
 */
import Bottleneck from 'bottleneck';
import type { Logger } from './logger.ts';
import { scrubDeep } from './secrets.ts';
import { toJson } from '../json.ts';

export type NotificationEvent = 'filled' | 'failed' | 'refused' | 'anomaly';
export type Webhook = { url: string; events?: NotificationEvent[] };

export function createNotifier(webhooks: readonly Webhook[], logger: Logger, options: { attempts?: number; perSecond?: number } = {}) {
  const attempts = options.attempts ?? 4;
  const limiter = new Bottleneck({ maxConcurrent: 2, minTime: Math.ceil(1000 / (options.perSecond ?? 5)) });
  const pending = new Set<Promise<void>>();

  async function post(url: string, body: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await limiter.schedule(() =>
          fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5_000) }),
        );
        if (response.ok) return;
        throw new Error(`HTTP ${response.status}`);
      } catch (error) {
        if (attempt >= attempts) {
          logger.warn({ webhook: new URL(url).origin, error: (error as Error).message }, 'webhook not delivered');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (attempt - 1)));
      }
    }
  }

  return {
    notify(event: NotificationEvent, payload: Record<string, unknown>): void {
      const body = toJson(scrubDeep({ event, at: new Date().toISOString(), ...payload }));
      for (const hook of webhooks) {
        if (hook.events && !hook.events.includes(event)) continue;
        const delivery = post(hook.url, body).finally(() => pending.delete(delivery));
        pending.add(delivery);
      }
    },
    /** Waits for deliveries in progress (at shutdown). */
    async flush(): Promise<void> {
      await Promise.allSettled([...pending]);
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
