/**
 * How the process stops. `bin/routekeeper.js` holds the stop signals from its first line (a signal while Node
 * loads the program ends it at once with exit 0, not by the default action); `takeOverSignals` installs the
 * process's own handlers and only then releases those, so there is no instant without one.
 *
 * A command that stops gracefully (run, once, devnet) gets one AbortSignal: the first SIGINT or SIGTERM aborts it,
 * which reaches the scheduler, the routing client, the pipeline and the follower, so every wait ends at once and
 * what is in flight stays recorded in the ledger (to be resumed at the next start). A second signal exits at once
 * (code 130). Any other command exits 130 at the first signal: it holds nothing that needs finishing, and
 * `process.exit` still runs the exit hooks that stop a node it started (devnet/anvil.ts).
 *
 * SIGHUP (the terminal closed) is a stop like the others. (Node resets an ignored SIGHUP to its default at start,
 * so `nohup` cannot keep it alive anyway; a service manager or the container image is the way to outlive a login.)
 *
 * The handlers stay installed until the command has returned (`release`, in cli/main.ts): child-process helpers
 * (execa's signal-exit) re-raise a signal that no other listener handles, which would kill us before the graceful
 * stop finished.
 */
import { setMaxListeners } from 'node:events';
import { AbortedError } from './abort.ts';
import { scrub } from './secrets.ts';

export type Shutdown = {
  signal: AbortSignal;
  /** Resolves with what asked for the stop: the signal's name, or "an unexpected failure". */
  requested: Promise<string>;
};

/**
 * The process's stop handlers, removed by `release` once the command has finished (or when run in a test);
 * `failed`: an unexpected failure stopped it (the exit code is then 1 however the command ends).
 */
export type SignalHandlers = Shutdown & { release(): void; readonly failed: boolean };

declare global {
  /** Set by bin/routekeeper.js: removes the handlers that end the process on a stop while it loads. */
  var routekeeperSignalsWhileLoading: { release(): void } | undefined;
}

/** What stopped the process, as said to people: "stopped by SIGINT" (the shutdown's reason). */
export const stopReason = (signal: AbortSignal): string => (signal.reason instanceof Error ? signal.reason.message : 'stopped');

/** The signals that stop routekeeper (bin/routekeeper.js keeps the same ones while the program loads). */
export const stopSignals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function takeOverSignals(options: { graceful: boolean }): SignalHandlers {
  const controller = new AbortController();
  // Every wait of every run in progress listens to it: many listeners are the design, not a leak.
  setMaxListeners(0, controller.signal);
  let resolveRequested: (what: string) => void = () => {};
  const requested = new Promise<string>((resolve) => {
    resolveRequested = resolve;
  });
  let failed = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!options.graceful) process.exit(130);
    if (controller.signal.aborted) {
      console.error(`routekeeper: ${signal} again, exiting without a graceful stop`);
      process.exit(130);
    }
    controller.abort(new AbortedError(`stopped by ${signal}`));
    resolveRequested(signal);
  };
  // An error nothing caught (a handler's rejection, a throw in a callback) is a bug: one scrubbed line, then the same
  // graceful stop as a signal's, so what is in flight stays recorded; a second one, or one in a command that holds
  // nothing, ends the process at once. Either way the exit code is 1.
  const onUnexpected = (error: unknown) => {
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    console.error(`routekeeper: unexpected failure: ${scrub(message)}; stopping`);
    if (failed || !options.graceful || controller.signal.aborted) process.exit(1);
    failed = true;
    controller.abort(new AbortedError('stopped by an unexpected failure'));
    resolveRequested('an unexpected failure');
  };
  for (const signal of stopSignals) process.on(signal, onSignal);
  process.on('uncaughtException', onUnexpected);
  process.on('unhandledRejection', onUnexpected);
  // Ours are installed: the loader's can go.
  globalThis.routekeeperSignalsWhileLoading?.release();
  globalThis.routekeeperSignalsWhileLoading = undefined;
  const release = () => {
    for (const signal of stopSignals) process.off(signal, onSignal);
    process.off('uncaughtException', onUnexpected);
    process.off('unhandledRejection', onUnexpected);
  };
  return {
    signal: controller.signal,
    requested,
    release,
    get failed() {
      return failed;
    },
  };
}
