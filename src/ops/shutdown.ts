/**
 * One shutdown controller for a process: the first SIGINT or SIGTERM aborts its AbortSignal, which reaches the
 * scheduler, the routing client, the pipeline and the follower, so every wait ends at once and what is in flight
 * stays recorded in the ledger (to be resumed at the next start). A second signal exits at once (code 130).
 * The handlers stay installed: child-process helpers (execa's signal-exit) re-raise a signal that no other
 * listener handles, which would kill us before the graceful stop finished.
 */
import { setMaxListeners } from 'node:events';
import { AbortedError } from './abort.ts';

export type Shutdown = {
  signal: AbortSignal;
  /** Resolves with the signal's name when a stop is asked for. */
  requested: Promise<NodeJS.Signals>;
};

export function createShutdown(): Shutdown {
  const controller = new AbortController();
  // Every wait of every run in progress listens to it: many listeners are the design, not a leak.
  setMaxListeners(0, controller.signal);
  let resolveRequested: (signal: NodeJS.Signals) => void = () => {};
  const requested = new Promise<NodeJS.Signals>((resolve) => {
    resolveRequested = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      console.error(`routekeeper: ${signal} again, exiting without a graceful stop`);
      process.exit(130);
    }
    controller.abort(new AbortedError(`stopped by ${signal}`));
    resolveRequested(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, requested };
}
