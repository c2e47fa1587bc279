#!/bin/sh
':'; //; case " $NODE_OPTIONS " in *--max-old-space-size*) exec node "$0" "$@";; *) exec node --max-old-space-size=256 "$0" "$@";; esac
// The line above is for the shell that runs this file as a command (`npx routekeeper`, a global install): it starts
// Node with its old space capped at 256 MB, as `npm start` and the image do (left to its default sizing, V8 lets
// garbage take a daemon of 10,000 strategies past 500 MB), unless NODE_OPTIONS sets a cap of its own. `exec` keeps
// the one process: signals reach Node as they would. To Node the line is a string and a comment.
// Runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci` runs as its prepare step).
// Loading takes a moment, seconds on a busy machine: a stop signal meanwhile ends the process at once with exit 0
// and one line (nothing has been started yet), not by Node's default death. The program installs its own handlers
// before it releases these (src/ops/shutdown.ts): from here on there is no instant without one. (Before this line
// Node itself catches SIGINT and SIGTERM only to die by them: a stop that early ends the process with nothing
// started.)
import { existsSync } from 'node:fs';

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const stopNow = (signal) => {
  console.error(`routekeeper: stopped by ${signal} before starting; nothing was started`);
  process.exit(0);
};
for (const signal of signals) process.on(signal, stopNow);
globalThis.routekeeperSignalsWhileLoading = {
  release() {
    for (const signal of signals) process.off(signal, stopNow);
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
