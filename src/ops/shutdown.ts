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

export type Shutdown = {
  signal: AbortSignal;
  /** Resolves with the signal's name when a stop is asked for. */
  requested: Promise<NodeJS.Signals>;
};

/** The process's stop handlers, removed by `release` once the command has finished (or when run in a test). */
export type SignalHandlers = Shutdown & { release(): void };

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
  let resolveRequested: (signal: NodeJS.Signals) => void = () => {};
  const requested = new Promise<NodeJS.Signals>((resolve) => {
    resolveRequested = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (!options.graceful) process.exit(130);
    if (controller.signal.aborted) {
      console.error(`routekeeper: ${signal} again, exiting without a graceful stop`);
      process.exit(130);
    }
    controller.abort(new AbortedError(`stopped by ${signal}`));
    resolveRequested(signal);
  };
  for (const signal of stopSignals) process.on(signal, onSignal);
  // Ours are installed: the loader's can go.
  globalThis.routekeeperSignalsWhileLoading?.release();
  globalThis.routekeeperSignalsWhileLoading = undefined;
  const release = () => {
    for (const signal of stopSignals) process.off(signal, onSignal);
  };
  return { signal: controller.signal, requested, release };
}
