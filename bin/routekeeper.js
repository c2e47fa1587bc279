#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx is a runtime dependency, so there is no build step to forget.
// Loading takes a moment; a Ctrl-C or SIGTERM meanwhile is kept (not the default instant death) and
// honoured by main as soon as it runs: nothing has been started yet, so it stops cleanly.
const received = [];
const keep = (signal) => received.push(signal);
process.on('SIGINT', keep);
process.on('SIGTERM', keep);
globalThis.routekeeperSignalsWhileLoading = {
  release() {
    process.off('SIGINT', keep);
    process.off('SIGTERM', keep);
    return received[0];
  },
};

// Imported only now: a static import would load tsx before the handlers above exist.
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli/main.ts');
