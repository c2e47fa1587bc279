/** Cancellation helpers: every wait of a run ends as soon as the daemon is told to stop. */

/** Thrown when a run stops because the daemon is stopping; what it did so far is in the ledger. */
export class AbortedError extends Error {
  override name = 'AbortedError';
  constructor(message = 'stopped: the daemon is shutting down') {
    super(message);
  }
}

export const isAbort = (error: unknown): boolean => error instanceof AbortedError || (error instanceof Error && error.name === 'AbortError');

/** The error a wait ends with when `signal` fires: the signal's own reason when it is one ("stopped by SIGINT"). */
function abortedBy(signal: AbortSignal): AbortedError {
  return signal.reason instanceof AbortedError ? new AbortedError(signal.reason.message) : new AbortedError();
}

/** Throws AbortedError when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedBy(signal);
}

/** `promise`, or an AbortedError as soon as `signal` fires (the work itself is left to finish or fail alone). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortedBy(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedBy(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or rejects with AbortedError when `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortable(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal);
}

/** A cache: the graced signal made for a signal and a grace, made once (a signal collected takes its entries with it). */
const graced = new WeakMap<AbortSignal, Map<number, AbortSignal>>();

/**
 * A signal that fires `graceMs` after `signal` does: work that has already sent transactions (following them
 * to a receipt) gets a moment to record the outcome before the stop, still well within it. One per signal
 * and grace, so every trade of a long-running daemon shares it (no listener per trade).
 */
export function afterGrace(signal: AbortSignal | undefined, graceMs: number): AbortSignal | undefined {
  if (!signal) return undefined;
  const bySignal = graced.get(signal) ?? new Map<number, AbortSignal>();
  graced.set(signal, bySignal);
  const known = bySignal.get(graceMs);
  if (known) return known;
  const controller = new AbortController();
  const fire = () => setTimeout(() => controller.abort(signal.reason), graceMs).unref();
  if (signal.aborted) fire();
  else signal.addEventListener('abort', fire, { once: true });
  bySignal.set(graceMs, controller.signal);
  return controller.signal;
}

/** How long work that has sent transactions goes on after a stop is asked for. */
export const stopGraceMs = 2_000;
