/**
 * Scale: N DCA strategies over W wallets, every minute, run by the daemon (`routekeeper run`, a child process of
 * its own) against a devnet this script starts (anvil, and the local routing service in this process, so the
 * daemon's figures are the daemon's alone). The script funds the extra wallets itself. Per slot it prints the
 * runs started, those finished inside the slot, the time from the slot's start to its last finish and the missed
 * slots (all from the daemon's ledger); for the whole run the daemon's peak RSS and CPU (from /proc), and for
 * live runs the median time from signing a transaction to its recorded receipt.
 *
 * Live runs mine a block every `--block-seconds` (1, Celo's block time; 0 mines each transaction at once, as
 * `npm start`'s devnet does) and report how many of our trades each block held. `--one-wallet N` adds a live run of N
 * strategies of one wallet, all starting at the slot itself: how many of one wallet's trades fit in a block.
 *
 * Usage: tsx scripts/bench-scale.ts [--mode dry-run|live|both] [--strategies N] [--wallets W] [--slots S]
 *                                   [--live-strategies N] [--concurrency C] [--block-seconds B] [--one-wallet N]
 *                                   [--remote-service] [--as-command]
 * Defaults: both modes; dry-run N = 10000, live N = 1000, W = 50, 3 measured slots, the file's default
 * maxConcurrency, 1 s blocks, no one-wallet run.
 * The daemon runs with NODE_OPTIONS as `npm start` sets it (--max-old-space-size=256) unless NODE_OPTIONS is set
 * (--as-command runs the bin as the command `npx routekeeper run` runs, through its first line, without NODE_OPTIONS). It runs its own routing service in its process, as on a
 * real chain with no ROUTING_SERVICE_URL; --remote-service gives it the one this script runs instead.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { type Hex, createTestClient, http } from 'viem';
import { mineEvery, startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { reportEvery } from '../src/devnet/oracle.ts';
import { networkLedgerName } from '../src/ledger/files.ts';
import { type Sample, fundWallets, sample, strategyFile, ticksPerSecond } from './scale-fixture.ts';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    strategies: { type: 'string', default: '10000' },
    'live-strategies': { type: 'string', default: '1000' },
    wallets: { type: 'string', default: '50' },
    slots: { type: 'string', default: '3' },
    concurrency: { type: 'string' },
    'block-seconds': { type: 'string', default: '1' },
    'one-wallet': { type: 'string' },
    'remote-service': { type: 'boolean' },
    'as-command': { type: 'boolean' },
  },
});
const wallets = Number(values.wallets);
const measuredSlots = Number(values.slots);
const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
const slotMs = 60_000;
const daemonNodeOptions = process.env.NODE_OPTIONS ?? '--max-old-space-size=256';

const devnet = await startDevnet();
const { service, addressBook: book } = await startDevnetRoutingService(devnet.addressBook);
const blockSeconds = Number(values['block-seconds']);
const testClient = createTestClient({ mode: 'anvil', transport: http(book.rpcUrl) });
let stopMining = mineEvery(book.rpcUrl, 5_000);
/** From here on, a block every `blockSeconds` holding what is pending, as a real chain mines (not one per transaction). */
async function mineOnInterval() {
  if (blockSeconds <= 0) return;
  stopMining();
  stopMining = () => {};
  await testClient.setAutomine(false);
  await testClient.setIntervalMining({ interval: blockSeconds });
}
const stopReporting = reportEvery(book.rpcUrl, book, 60_000);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
};

async function runMode(mode: 'dry-run' | 'live', strategies: number, keys: Hex[], options: { spread?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), `routekeeper-scale-${mode}-`));
  const configFile = join(dir, 'strategies.yaml');
  const bookFile = join(dir, 'address-book.json');
  writeFileSync(configFile, strategyFile(strategies, keys.length, concurrency, options.spread));
  // The daemon runs its own routing service in its process (as on a real chain with no ROUTING_SERVICE_URL), unless
  // --remote-service: then the one this script runs.
  const { routingServiceUrl, ...embedded } = book;
  writeFileSync(bookFile, JSON.stringify(values['remote-service'] ? { ...embedded, routingServiceUrl } : embedded));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    // As `npm start` and the container run it, unless this script is given NODE_OPTIONS of its own.
    ...(values['as-command'] ? {} : { NODE_OPTIONS: daemonNodeOptions }),
    HOME: process.env.HOME,
    RPC_URL: book.rpcUrl,
    ROUTEKEEPER_DATA_DIR: join(dir, 'data'),
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    ...Object.fromEntries(keys.map((key, w) => [`BENCH_KEY_${w}`, key])),
  };
  const args = ['bin/routekeeper.js', 'run', '--config', configFile, '--address-book', bookFile, ...(mode === 'dry-run' ? ['--dry-run'] : [])];
  // BENCH_NODE_ARGS: flags for the daemon's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it).
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // --as-command: the bin run as the command it is (`npx routekeeper run`), through its first line, no NODE_OPTIONS.
  const child = values['as-command']
    ? spawn(args[0] as string, args.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(process.execPath, [...nodeArgs, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4_000)));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

  // The daemon waits for the next minute (a network start): measure that slot and the following ones.
  const firstSlot = Math.ceil((Date.now() + 5_000) / slotMs) * slotMs;
  const endAt = firstSlot + measuredSlots * slotMs;
  const samples: Sample[] = [];
  while (Date.now() < endAt + 2_000) {
    const taken = sample(child.pid as number);
    if (taken) samples.push(taken);
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  child.kill('SIGTERM');
  const code = await exited;
  if (samples.length === 0 || child.exitCode === null) throw new Error(`the daemon did not run: ${stderr}`);

  const ledger = new Database(join(dir, 'data', networkLedgerName), { readonly: true });
  type RunRow = { slot: string; started_at: number; finished_at: number | null; outcome: string | null };
  const runs = ledger.prepare('SELECT slot, started_at, finished_at, outcome FROM runs').all() as RunRow[];
  const perSlot = [];
  for (let s = 0; s < measuredSlots; s++) {
    const slotTime = firstSlot + s * slotMs;
    const slot = new Date(slotTime).toISOString();
    const rows = runs.filter((run) => run.slot === slot);
    const ran = rows.filter((run) => run.outcome !== 'missed');
    const finished = ran.filter((run) => run.finished_at !== null && run.finished_at < slotTime + slotMs);
    const lastFinish = Math.max(...ran.map((run) => run.finished_at ?? Number.POSITIVE_INFINITY));
    const inSlot = samples.filter((x) => x.at >= slotTime && x.at < slotTime + slotMs);
    const cpu =
      inSlot.length > 1
        ? ((inSlot.at(-1) as Sample).cpuTicks - (inSlot[0] as Sample).cpuTicks) /
          ticksPerSecond /
          (((inSlot.at(-1) as Sample).at - (inSlot[0] as Sample).at) / 1000)
        : null;
    perSlot.push({
      slot,
      due: strategies,
      started: ran.length,
      finishedInSlot: finished.length,
      finishedInSlotPct: +((100 * finished.length) / strategies).toFixed(2),
      slotStartToLastFinishMs: Number.isFinite(lastFinish) ? lastFinish - slotTime : null,
      missed: rows.filter((run) => run.outcome === 'missed').length,
      outcomes: Object.fromEntries(
        [...new Set(ran.map((run) => run.outcome ?? 'unfinished'))].map((o) => [o, ran.filter((run) => (run.outcome ?? 'unfinished') === o).length]),
      ),
      daemonCpuCores: cpu === null ? null : +cpu.toFixed(2),
    });
  }
  const attempts = ledger.prepare("SELECT created_at, updated_at, block_number FROM attempts WHERE purpose = 'trade' AND status = 'mined'").all() as {
    created_at: number;
    updated_at: number;
    block_number: number;
  }[];
  // Our trades per block, over the blocks that held any.
  const perBlock = new Map<number, number>();
  for (const attempt of attempts) perBlock.set(attempt.block_number, (perBlock.get(attempt.block_number) ?? 0) + 1);
  const blockCounts = [...perBlock.values()];
  await ledger.close();
  const totalCpu =
    ((samples.at(-1) as Sample).cpuTicks - (samples[0] as Sample).cpuTicks) /
    ticksPerSecond /
    (((samples.at(-1) as Sample).at - (samples[0] as Sample).at) / 1000);
  return {
    mode,
    strategies,
    wallets: keys.length,
    maxConcurrency: concurrency ?? 'default (64)',
    spread: options.spread ?? 'default',
    nodeOptions: values['as-command'] ? 'none: run as a command, its first line caps the heap' : daemonNodeOptions,
    slots: perSlot,
    finishedInSlotPct: +((100 * perSlot.reduce((sum, s) => sum + s.finishedInSlot, 0)) / (strategies * measuredSlots)).toFixed(2),
    missed: perSlot.reduce((sum, s) => sum + s.missed, 0),
    peakRssMB: +Math.max(...samples.map((x) => x.rssMB)).toFixed(1),
    // Start-up (reading and resolving the strategy file) against the measured slots.
    peakRssBeforeFirstSlotMB: +Math.max(0, ...samples.filter((x) => x.at < firstSlot).map((x) => x.rssMB)).toFixed(1),
    peakRssInSlotsMB: +Math.max(0, ...samples.filter((x) => x.at >= firstSlot).map((x) => x.rssMB)).toFixed(1),
    daemonCpuCores: +totalCpu.toFixed(2),
    ...(mode === 'live'
      ? {
          blockSeconds,
          transactions: attempts.length,
          medianTxMs: median(attempts.map((a) => a.updated_at - a.created_at)),
          tradesPerBlock: { blocks: blockCounts.length, median: median(blockCounts), max: Math.max(0, ...blockCounts) },
        }
      : {}),
    exitCode: code,
  };
}

try {
  const keys = await fundWallets(book, wallets);
  const results = [];
  if (values.mode !== 'live') results.push(await runMode('dry-run', Number(values.strategies), keys));
  if (values.mode !== 'dry-run' || values['one-wallet'] !== undefined) await mineOnInterval();
  if (values.mode !== 'dry-run') results.push(await runMode('live', Number(values['live-strategies']), keys));
  // All of one wallet's strategies start at the slot itself: how many of its trades the pipeline puts in a block.
  if (values['one-wallet'] !== undefined) results.push(await runMode('live', Number(values['one-wallet']), keys.slice(0, 1), { spread: '0s' }));
  console.log(JSON.stringify({ cores: (await import('node:os')).availableParallelism(), slotSeconds: slotMs / 1000, results }, null, 2));
} finally {
  stopMining();
  stopReporting();
  await service.close();
  await devnet.stop();
}
