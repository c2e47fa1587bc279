import { redactUrl, scrub } from '../ops/secrets.ts';
import { readEnv } from '../config/env.ts';
import { resumeAll, startDaemon } from '../engine/daemon.ts';
import { openExecution, openRuntime, type Runtime } from '../engine/runtime.ts';
import { nodeFindings } from '../doctor/chain.ts';
import { HealthMonitor, probeEvery } from '../ops/health.ts';
import { isLoopbackHost } from '../loopback.ts';
import { startHealthServer } from '../ops/health-server.ts';
import { createLogger } from '../ops/logger.ts';
import { createMetrics } from '../ops/metrics.ts';
import { createNotifier } from '../ops/notifier.ts';
import { isAbort } from '../ops/abort.ts';
import { stopReason } from '../ops/shutdown.ts';
import { type CommandContext, commonOptions, parseCommandArgs } from './command.ts';
import { ConfigError } from '../errors.ts';
import { StatusBook } from '../status/book.ts';
import { statusReport, strategyDetail } from '../status/report.ts';
import type { TradeRecord } from '../model/trade.ts';
import { describeRateLimit } from '../routing-client/limiter.ts';
import { describeLocation } from '../ledger/ledger.ts';

/** A list for one line of the banner: a daemon may run thousands of strategies. */
function listed(items: string[], most = 8): string {
  return items.length <= most ? items.join(', ') : `${items.length}: ${items.slice(0, most).join(', ')}, …`;
}

/** The banner's word on whose routing service answers. */
const serviceOrigin: Record<Runtime['serviceKind'], string> = {
  devnet: "the devnet's own",
  embedded: 'embedded: run in this process over the chain node',
  remote: 'remote: ROUTING_SERVICE_URL or the address book',
};

function banner(runtime: Runtime, wallets: string[], dryRun: boolean, page: string): string {
  const lines = [
    runtime.mode === 'embedded devnet'
      ? '*** routekeeper on its EMBEDDED DEVNET: a local chain with test tokens. No real funds are used. ***'
      : runtime.mode === 'fork'
        ? '*** routekeeper PAPER TRADING on a local fork of RPC_URL: real state, nothing reaches the real chain. ***'
        : `*** routekeeper trading for real on chain ${runtime.chainId}. ***`,
    `  chain ${runtime.chainId} at ${runtime.rpcUrls.map(redactUrl).join(', ')}`,
    `  routing service ${redactUrl(runtime.serviceUrl)} (${serviceOrigin[runtime.serviceKind]}; ${describeRateLimit(runtime.routing.limiter.limit)})`,
    `  strategies ${listed(runtime.config.strategies.map((s) => `${s.id} (${s.kind})`))} from ${runtime.configFile}`,
    `  wallets ${listed(wallets)}`,
    `  ledger ${describeLocation(runtime.ledger)} (chain ${runtime.chain.chainId}, genesis ${runtime.chain.genesisHash.slice(0, 10)}…)`,
    `  status page ${page}  (health ${page}healthz, metrics ${page}metrics)`,
  ];
  if (dryRun) lines.push('  DRY RUN: nothing will be signed.');
  return lines.join('\n');
}

/** A port that cannot be listened on, as the setting to change. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new ConfigError(`METRICS_PORT ${port} on ${host} is in use (another routekeeper?): set METRICS_PORT to a free port, or 0 for any`);
  if (code === 'EACCES') return new ConfigError(`METRICS_PORT ${port} on ${host} needs privileges: use a port above 1023, or 0 for any`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ConfigError(`METRICS_HOST ${host} is not an address of this machine`);
  return error;
}

/** The stop's last line: what the next start picks up (trades still open in the ledger, runs cut short). */
function leftForNextStart(open: TradeRecord[], unfinishedRuns: string[]): string {
  if (open.length === 0 && unfinishedRuns.length === 0) return 'nothing is left open';
  const trades = open.map((trade) => `${trade.id} (${trade.status})`);
  const runs = unfinishedRuns.length > 0 ? `; runs cut short: ${listed(unfinishedRuns)}` : '';
  return `${open.length} trade${open.length === 1 ? '' : 's'} left open, settled at the next start: ${listed(trades)}${runs}`;
}

/** `routekeeper run`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[], { shutdown }: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('run', argv, { ...commonOptions, fork: { type: 'boolean' } });
  const env = readEnv();
  const logger = createLogger();
  const metrics = createMetrics();
  // The port is taken before anything starts: a port in use stops start-up before a devnet or fork exists.
  let monitor: HealthMonitor | undefined;
  let started: Pick<Runtime, 'mode' | 'chainId'> | undefined;
  const { signal } = shutdown;
  const host = env.METRICS_HOST ?? '127.0.0.1';
  const health = await startHealthServer({
    port: env.METRICS_PORT ?? 9464,
    host,
    metrics,
    token: env.ROUTEKEEPER_STATUS_TOKEN,
    allowedHosts: env.METRICS_ALLOWED_HOSTS,
    open: env.ROUTEKEEPER_STATUS_OPEN,
    onError: (error) => logger.error(`status port: a request failed: ${scrub(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error))}`),
    health: () => {
      if (!monitor || !started) return { ok: false, details: { reasons: ['starting'] } };
      const report = monitor.report();
      const reasons = signal.aborted ? ['stopping', ...report.reasons] : report.reasons;
      return { ok: reasons.length === 0, details: { mode: started.mode, chainId: started.chainId, ...report, reasons } };
    },
  }).catch((error: unknown) => {
    throw listenError(error, host, env.METRICS_PORT ?? 9464);
  });
  let runtime: Runtime;
  try {
    runtime = await openRuntime({
      env,
      configFile: values.config,
      addressBookFile: values['address-book'],
      fork: values.fork,
      devnet: values.devnet,
      database: values.database,
      signal,
    });
  } catch (error) {
    await health.close();
    // Once a stop is asked for, a failure is its consequence (a request cut short), not news.
    if (!isAbort(error) && !signal.aborted) throw error;
    logger.info(`${stopReason(signal)} during start-up: nothing was started, nothing is left for the next start`);
    return 0;
  }
  runtime.onClose(() => health.close());
  started = { mode: runtime.mode, chainId: runtime.chainId };
  try {
    const execution = await openExecution(runtime, {
      daemon: true,
      dryRun: values['dry-run'],
      onStage: (stage) => {
        if (stage === 'replaced' || stage === 'cancelled') metrics.replacements.inc({ kind: stage });
      },
    });
    const wallets = [...execution.executors].map(([name, executor]) => `${name} ${executor.wallet.address}`);
    const page = `http://${host.includes(':') ? `[${host}]` : host}:${health.port}/`;
    // The page's line carries the port as a field, for programs that start the daemon on port 0.
    for (const line of banner(runtime, wallets, values['dry-run'] ?? false, page).split('\n'))
      logger.info(line.includes(page) ? { port: health.port } : {}, line);
    // A node without eth_simulateV1 cannot show a route's token flows: the list-based checks are then all there is.
    for (const finding of await nodeFindings(runtime.client)) if (finding.level !== 'ok') logger.warn(finding.message);
    const { probeSeconds, staleSeconds, failedRuns } = runtime.config.defaults.health;
    monitor = new HealthMonitor(
      runtime.config.strategies.map((strategy) => strategy.id),
      { staleAfterMs: staleSeconds * 1000, failedRunsLimit: failedRuns },
      metrics.registry,
      ['chain', 'routing', 'database'],
    );
    // We just used the database: it answered. From here on its probe and every renewal of the leases report it.
    monitor.reached('database');
    const probes = {
      chain: () => runtime.client.getBlockNumber({ cacheTime: 0 }),
      routing: () => runtime.routing.health({ signal }),
      database: () => execution.ledger.ping(),
    };
    runtime.onClose(probeEvery(monitor, probes, probeSeconds * 1000));
    const observers = { logger, metrics, notifier: createNotifier(runtime.config.webhooks, logger), health: monitor, notes: new Map<string, string>() };
    const { leases, group } = execution;
    if (leases) {
      metrics.leasesHeld.set(leases.held);
      leases.onLost = (wallet, why) => {
        metrics.leasesLost.inc();
        metrics.leasesHeld.set(leases.held);
        logger.error({ wallet }, `wallet ${wallet}: ${why}; nothing more is signed for it`);
      };
      const takenOver = (wallet: string, from: string) => {
        metrics.leasesTakenOver.inc();
        logger.warn({ wallet, from }, `wallet ${wallet}: its lease was taken from ${from}, whose process is gone`);
      };
      for (const { wallet, from } of leases.takenOver) takenOver(wallet, from);
      leases.onTakenOver = takenOver;
    }
    if (group && leases) {
      const reportDatabase = monitor;
      group.onDatabase = (error) => (error === undefined ? reportDatabase.reached('database') : reportDatabase.unreachable('database', error));
      group.onGivenBack = (wallet, why) => {
        metrics.leasesHeld.set(leases.held);
        logger.info({ wallet }, `wallet ${wallet} handed back to the group (${why})`);
      };
    }
    // One book for the page, kept up to date from what changed since the last request (never the whole ledger again).
    const book = new StatusBook(execution.ledger);
    health.serveStatus({
      report: () => statusReport(book),
      strategy: (id) => strategyDetail(book, id),
    });
    if (!isLoopbackHost(host) && env.ROUTEKEEPER_STATUS_TOKEN === undefined) {
      logger.warn(`the status page and /metrics on ${host} are open to anyone who reaches that address (ROUTEKEEPER_STATUS_OPEN=true)`);
    }

    // Open trades of a previous process first; a stop during this is a stop like any other.
    const resumed = resumeAll(execution, observers, signal).catch((error: unknown) => {
      if (!isAbort(error)) throw error;
    });
    const daemon = await resumed.then(() => (signal.aborted ? undefined : startDaemon(runtime, execution, observers, signal)));
    const received = await shutdown.requested;
    logger.info({ signal: received }, `stopping (${received}): no new runs; runs in progress stop at their next step`);
    const unfinishedRuns = (await daemon?.stop()) ?? [];
    const open = await execution.ledger.trades.unfinished();
    logger.info(
      { signal: received, openTrades: open.map((trade) => trade.id), unfinishedRuns },
      `${stopReason(signal)}: ${leftForNextStart(open, unfinishedRuns)}`,
    );
    return 0;
  } finally {
    await runtime.close();
  }
}
