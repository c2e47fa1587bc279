#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (built by `npm run build`, which `npm ci` runs as its prepare step).
// Loading takes a moment; a stop signal meanwhile is kept (not the default instant death) and handed to the
// program, which installs its own handlers before it releases these (src/ops/shutdown.ts): there is no instant
// without one. SIGHUP counts unless the process started with it ignored (nohup).
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';

const ignored = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
const hupIgnored = ignored !== undefined && ((BigInt(`0x${ignored}`) >> BigInt(constants.signals.SIGHUP - 1)) & 1n) === 1n;
const signals = hupIgnored ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
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
await import(main.href);
