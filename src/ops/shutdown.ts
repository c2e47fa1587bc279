/**
 * Resolves with the signal's name on the first SIGINT or SIGTERM. A second signal forces exit 130.
 * The handlers stay installed: child-process helpers (execa's signal-exit) re-raise a signal
 * that no other listener handles, which would kill us before the graceful stop finished.
 */
export function waitForShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        console.error(`routekeeper: ${signal} again, exiting without a graceful stop`);
        process.exit(130);
      }
      received = true;
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
