/**
 * The check stage as a declared list: each check has a name, the reads it needs and its verification. The runner
 * starts every check's reads together when the first check that needs one comes (one tick: the batching transport
 * sends them as one request), then verifies in the declared order, so that a refusal is always the first check's
 * that fails, whatever read answered first. A check's name is what `docs/safety.md` cites and the report lists.
 */
import { GuardRefusal } from '../model/guard-refusal.ts';

/** One check over a state `S` that the checks before it filled in. */
export type NamedCheck<S> = {
  readonly name: string;
  /** Reads this check needs, started with every other check's (they read the state as the checks before left it). */
  readonly reads?: (state: S) => void;
  /** Refuses (a GuardRefusal) or fills in what later checks use. */
  readonly verify: (state: S) => void | Promise<void>;
};

/** A refusal, and which check refused. */
export type RefusedBy = GuardRefusal & { check?: string };

/**
 * Runs `checks` in order over `state`; returns the names of those that passed. A refusal carries the name of the
 * check that made it (`check`).
 */
export async function runChecks<S>(checks: readonly NamedCheck<S>[], state: S, signal?: AbortSignal): Promise<string[]> {
  const passed: string[] = [];
  let readsStarted = false;
  for (const [i, check] of checks.entries()) {
    signal?.throwIfAborted();
    if (check.reads && !readsStarted) {
      readsStarted = true;
      for (const later of checks.slice(i)) later.reads?.(state);
    }
    try {
      await check.verify(state);
    } catch (error) {
      if (error instanceof GuardRefusal && (error as RefusedBy).check === undefined) Object.assign(error, { check: check.name });
      throw error;
    }
    passed.push(check.name);
  }
  return passed;
}

/** A value of the state that a check earlier in the list fills in (the list's order guarantees it is there). */
export function filledIn<S, K extends keyof S & string>(state: S, key: K): NonNullable<S[K]> {
  const value = state[key];
  if (value === undefined || value === null) throw new Error(`check: ${key} is read before the check that fills it`);
  return value as NonNullable<S[K]>;
}

/** A read started once and shared by every check that awaits it. */
export class SharedRead<T> {
  #promise: Promise<T> | undefined;
  readonly #read: () => Promise<T>;

  constructor(read: () => Promise<T>) {
    this.#read = read;
  }

  /** Starts it (once); a failure is the awaiting check's, never an unhandled rejection. */
  start(): Promise<T> {
    if (!this.#promise) {
      try {
        this.#promise = this.#read();
      } catch (error) {
        // A read that fails before it is sent fails as its check's, in the list's order, as one that fails later does.
        this.#promise = Promise.reject(error);
      }
      this.#promise.catch(() => undefined);
    }
    return this.#promise;
  }

  /** Its answer, or its failure as a settled result (a check that reports another failure first looks without throwing). */
  async settled(): Promise<PromiseSettledResult<T>> {
    return this.start().then(
      (value) => ({ status: 'fulfilled', value }) as const,
      (reason: unknown) => ({ status: 'rejected', reason }) as const,
    );
  }
}
