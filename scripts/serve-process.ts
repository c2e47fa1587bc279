/** `routekeeper serve` as a process of its own, for the routing benchmarks: measured from outside, as users run it. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StartDevnetOptions, startDevnet } from '../src/devnet/devnet.ts';
import { startRpcProxy } from '../support/rpc-proxy.ts';

const bin = join(import.meta.dirname, '..', 'bin', 'routekeeper.js');

/** p50, p99 and the largest of some timings, in ms to two decimals. */
export const percentiles = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN) * 100) / 100;
  return { p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
};

/** Starts `routekeeper serve` and resolves once its `{"url"}` line is out, with how long that took. */
export async function startServe(args: string[]) {
  const started = performance.now();
  // BENCH_NODE_ARGS: flags for serve's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it).
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--port', '0', ...args], {
    env: { ...process.env, RPC_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const line = buffered.split('\n')[0];
      if (buffered.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
  /** CPU time the process has used, in ms (user + system, from /proc; clock ticks of 10 ms). */
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const stop = () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')));
  return { url, startMs: performance.now() - started, peakRssMb, cpuMs, stop };
}

/**
 * `concurrency` clients asking `quote` in turn over `questions` for `seconds`: every answer's time and status, and
 * how long it took in all.
 */
export async function quoteLoad<Q>(
  questions: readonly Q[],
  quote: (question: Q) => Promise<{ status: number; ms: number }>,
  concurrency: number,
  seconds: number,
) {
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; performance.now() - started < seconds * 1000; i++) {
        const answer = await quote(questions[i % questions.length] as Q);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        samples.push(answer.ms);
      }
    }),
  );
  return { samples, statuses, tookSeconds: (performance.now() - started) / 1000 };
}

/**
 * A devnet world with `routekeeper serve` over it, the node behind a counting proxy (support/rpc-proxy.ts): the
 * routing benchmarks' set-up. `stop` ends all three.
 */
export async function serveOverDevnet(options: StartDevnetOptions, name: string) {
  const devnet = await startDevnet(options);
  const book = devnet.addressBook;
  const proxy = await startRpcProxy(book.rpcUrl);
  const bookFile = join(mkdtempSync(join(tmpdir(), `routekeeper-bench-${name}-`)), 'book.json');
  writeFileSync(bookFile, JSON.stringify({ ...book, rpcUrl: proxy.url, routingService: undefined }));
  const service = await startServe(['--address-book', bookFile, '--no-cache', '--block-time', '1', '--per-client', '0']);
  return {
    book,
    proxy,
    service,
    async stop() {
      await service.stop();
      await proxy.close();
      await devnet.stop();
    },
  };
}

/**
 * What the node behind `proxy` was asked while `work` ran, per block the chain made meanwhile: JSON-RPC calls (by
 * method) and HTTP requests.
 */
export async function nodeRequestsDuring<T>(proxy: RpcProxy, blockNumber: () => Promise<bigint>, work: () => Promise<T>) {
  const [blockBefore, methodsBefore, requestsBefore] = [await blockNumber(), new Map(proxy.calls()), proxy.requests()];
  const result = await work();
  const blocks = Number((await blockNumber()) - blockBefore);
  const byMethod: Record<string, number> = {};
  for (const [method, count] of proxy.calls()) if (count > (methodsBefore.get(method) ?? 0)) byMethod[method] = count - (methodsBefore.get(method) ?? 0);
  const calls = Object.values(byMethod).reduce((sum, count) => sum + count, 0);
  const httpRequests = proxy.requests() - requestsBefore;
  const perBlock = (count: number) => Math.round((count / Math.max(blocks, 1)) * 100) / 100;
  return { result, requests: { blocks, calls, httpRequests, callsPerBlock: perBlock(calls), httpRequestsPerBlock: perBlock(httpRequests), byMethod } };
}

type RpcProxy = Awaited<ReturnType<typeof startRpcProxy>>;

/**
 * `routekeeper once <strategy>` as a user runs it, with the devnet key and its own data directory, and nothing of the
 * caller's routekeeper environment; asynchronously, so that a proxy in the caller's process keeps answering meanwhile.
 */
export async function runOnce(args: {
  strategy: string;
  config: string;
  bookFile: string;
  dataDir: string;
  privateKey: string | undefined;
  json?: boolean;
  /** Another build's `bin/routekeeper.js` (a comparison with an earlier commit); default this one's. */
  bin?: string;
}) {
  return runCommand(['once', args.strategy, '--config', args.config, '--address-book', args.bookFile, ...(args.json ? ['--json'] : [])], args);
}

/**
 * `routekeeper adopt --nonce N`, as a person runs it for a wallet the benchmark used before the ledger knew it (it
 * opened the positions): the ledger's record of the wallet starts at the chain's count `nonce`.
 */
export async function runAdopt(args: { config: string; bookFile: string; dataDir: string; privateKey: string | undefined; nonce: number }) {
  return runCommand(['adopt', '--nonce', String(args.nonce), '--config', args.config, '--address-book', args.bookFile], args);
}

async function runCommand(argv: string[], args: { dataDir: string; privateKey: string | undefined; bin?: string }) {
  const child = spawn(process.execPath, [args.bin ?? bin, ...argv], {
    env: {
      ...process.env,
      ROUTEKEEPER_PRIVATE_KEY: args.privateKey,
      ROUTEKEEPER_DATA_DIR: args.dataDir,
      RPC_URL: '',
      ROUTING_SERVICE_URL: '',
      ROUTEKEEPER_CONFIG: '',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
