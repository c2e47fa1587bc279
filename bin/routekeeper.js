#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci` runs as its prepare step).
// Loading takes a moment; a stop signal meanwhile is kept (not the default instant death) and handed to the
// program, which installs its own handlers before it releases these (src/ops/shutdown.ts): from here on there is
// no instant without one. (Before this line Node itself catches SIGINT and SIGTERM only to die by them: a stop
// that early ends the process with nothing started.)
import { existsSync } from 'node:fs';

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const received = [];
const keep = (signal) => received.push(signal);
for (const signal of signals) process.on(signal, keep);
globalThis.routekeeperSignalsWhileLoading = {
  release() {
    for (const signal of signals) process.off(signal, keep);
    return received[0];
  },
};

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error("routekeeper: not built yet: run 'npm run build' (npm ci and npm install run it)");
  process.exit(1);
}
// Imported only now: a static import would load the program before the handlers above exist.
const { runCommandLine } = await import(main.href);
process.exitCode = await runCommandLine(process.argv.slice(2));
