/**
 * Waiting in tests for something to become true: polled, with a name for the failure when it never does. This is the
 * suite's one poll interval: a test waits for what the process does through `waitFor`, never for a fixed time. (The
 * few pauses left in tests are the stimulus itself, an outage's length or a run's duration, each saying so.)
 */

/**
 * Resolves with the probe's first truthy answer; fails naming `what` after `timeoutMs`, with what `explain` says of
 * the state it gave up in (a log, the ledger). `pollMs`: sooner, for a state that lasts only a moment.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
  { explain, pollMs = 25 }: { explain?: () => string | Promise<string>; pollMs?: number } = {},
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${explain ? `: ${await explain()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
