#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci` runs as its prepare step).
// Loading takes a moment; a Ctrl-C or SIGTERM meanwhile is kept (not the default instant death) and
// honoured by main as soon as it runs: nothing has been started yet, so it stops cleanly.
import { existsSync } from 'node:fs';

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

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error("routekeeper: not built yet: run 'npm run build' (npm ci and npm install run it)");
  process.exit(1);
}
// Imported only now: a static import would load the program before the handlers above exist.
await import(main.href);
