import { redactUrl } from '../ops/secrets.ts';
import { readEnv } from '../config/env.ts';
import { resumeAll, startDaemon } from '../engine/daemon.ts';
import { openExecution, openRuntime, type Runtime } from '../engine/runtime.ts';
import { HealthMonitor, probeEvery } from '../ops/health.ts';
import { startHealthServer } from '../ops/health-server.ts';
import { createLogger } from '../ops/logger.ts';
import { createMetrics } from '../ops/metrics.ts';
import { createNotifier } from '../ops/notifier.ts';
import { isAbort } from '../ops/abort.ts';
import { createShutdown } from '../ops/shutdown.ts';
import { commonOptions, parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';

function banner(runtime: Runtime, wallets: string[], dryRun: boolean): string {
  const lines = [
    runtime.mode === 'embedded devnet'
      ? '*** routekeeper on its EMBEDDED DEVNET: a local chain with test tokens. No real funds are used. ***'
      : runtime.mode === 'fork'
        ? '*** routekeeper PAPER TRADING on a local fork of RPC_URL: real state, nothing reaches the real chain. ***'
        : `*** routekeeper trading for real on chain ${runtime.chainId}. ***`,
    `  chain ${runtime.chainId} at ${runtime.rpcUrls.map(redactUrl).join(', ')}`,
    `  routing service ${redactUrl(runtime.serviceUrl)}`,
    `  strategies ${runtime.config.strategies.map((s) => `${s.id} (${s.kind})`).join(', ')} from ${runtime.configFile}`,
    `  wallets ${wallets.join(', ')}`,
    `  ledger ${runtime.ledgerFile} (chain ${runtime.chain.chainId}, genesis ${runtime.chain.genesisHash.slice(0, 10)}…)`,
  ];
  if (dryRun) lines.push('  DRY RUN: nothing will be signed.');
  return lines.join('\n');
}

/** `routekeeper run`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('run', argv, { ...commonOptions, fork: { type: 'boolean' } });
  const env = readEnv();
  if (values.fork && !env.RPC_URL) throw new UsageError('--fork needs RPC_URL: the chain to fork');
  const logger = createLogger();
  const shutdown = createShutdown();
  const { signal } = shutdown;
  let runtime: Runtime;
  try {
    runtime = await openRuntime({ env, configFile: values.config, addressBookFile: values['address-book'], fork: values.fork, signal });
  } catch (error) {
    if (!isAbort(error)) throw error;
    logger.info('stopped during start-up');
    return 0;
  }
  try {
    const metrics = createMetrics();
    const execution = openExecution(runtime, {
      dryRun: values['dry-run'],
      onStage: (stage) => {
        if (stage === 'replaced' || stage === 'cancelled') metrics.replacements.inc({ kind: stage });
      },
    });
    const wallets = [...execution.executors].map(([name, executor]) => `${name} ${executor.wallet.address}`);
    for (const line of banner(runtime, wallets, values['dry-run'] ?? false).split('\n')) logger.info(line);
    const { probeSeconds, staleSeconds, failedRuns } = runtime.config.defaults.health;
    const monitor = new HealthMonitor(
      runtime.config.strategies.map((strategy) => strategy.id),
      { staleAfterMs: staleSeconds * 1000, failedRunsLimit: failedRuns },
      metrics.registry,
    );
    const probes = { chain: () => runtime.client.getBlockNumber({ cacheTime: 0 }), routing: () => runtime.routing.health({ signal }) };
    runtime.onClose(probeEvery(monitor, probes, probeSeconds * 1000));
    const observers = { logger, metrics, notifier: createNotifier(runtime.config.webhooks, logger), health: monitor };
    const health = await startHealthServer({
      port: env.METRICS_PORT ?? 9464,
      host: env.METRICS_HOST ?? '127.0.0.1',
      metrics,
      health: () => {
        const report = monitor.report();
        const reasons = signal.aborted ? ['stopping', ...report.reasons] : report.reasons;
        return { ok: reasons.length === 0, details: { mode: runtime.mode, chainId: runtime.chainId, ...report, reasons } };
      },
    });
    runtime.onClose(() => health.close());
    logger.info({ port: health.port }, `health and metrics on http://${env.METRICS_HOST ?? '127.0.0.1'}:${health.port}/healthz and /metrics`);

    // Open trades of a previous process first; a stop during this is a stop like any other.
    const resumed = resumeAll(execution, observers, signal).catch((error: unknown) => {
      if (!isAbort(error)) throw error;
    });
    const daemon = await resumed.then(() => (signal.aborted ? undefined : startDaemon(runtime, execution, observers, signal)));
    const received = await shutdown.requested;
    logger.info({ signal: received }, 'stopping: no new runs; runs in progress stop at their next step');
    const unfinished = (await daemon?.stop()) ?? [];
    if (unfinished.length > 0) logger.warn({ strategies: unfinished }, 'runs still in progress at exit: their trades are in the ledger and resume at the next start');
    logger.info('stopped');
    return 0;
  } finally {
    await runtime.close();
  }
}

