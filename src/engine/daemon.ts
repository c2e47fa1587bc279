/**
 * The daemon: reconcile every wallet's unfinished intents with the chain, then run the strategies on their
 * schedules until stopped, telling the logs, the metrics and the webhooks what each run did and why.
 */
import { erc20Abi, formatEther, formatUnits } from 'viem';
import type { Ledger } from '../ledger/ledger.ts';
import type { Logger } from '../ops/logger.ts';
import type { HealthMonitor } from '../ops/health.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Notifier } from '../ops/notifier.ts';
import type { Strategy } from '../strategy/types.ts';
import { resumeOpenTrades } from '../trade/pipeline.ts';
import { openStates, type TradeReport, type TradeState } from '../trade/types.ts';
import { type RunReport, runStrategy } from './runner.ts';
import type { Execution, Runtime } from './runtime.ts';
import { Scheduler } from './scheduler.ts';
import { startSettler } from './settler.ts';

export type Observers = { logger: Logger; metrics: Metrics; notifier: Notifier; health?: HealthMonitor };

/**
 * Continues what a previous process left open, wallet by wallet, before anything new runs: signed trades are
 * followed to their fate, trades interrupted before signing are resumed (see the pipeline).
 */
export async function resumeAll(execution: Execution, observers: Observers, signal?: AbortSignal): Promise<TradeReport[]> {
  const reports: TradeReport[] = [];
  for (const [wallet, executor] of execution.executors) {
    for (const report of await resumeOpenTrades(executor, signal)) {
      observers.logger.info({ wallet, intent: report.intentId, status: report.status, reason: report.reason, amountOut: report.amountOut?.toString() }, 'resumed an unfinished trade');
      reports.push(report);
    }
  }
  return reports;
}

/** Runs one strategy for one slot and reports it; never throws (a failed run is reported, the daemon goes on). */
export async function runAndReport(
  strategy: Strategy,
  slot: string,
  runtime: Pick<Runtime, 'client' | 'routing' | 'nativeToken'>,
  execution: Execution,
  observers: Observers,
  signal?: AbortSignal,
): Promise<RunReport | undefined> {
  const { logger, metrics } = observers;
  const executor = execution.executors.get(strategy.wallet);
  if (!executor) throw new Error(`no executor for wallet ${strategy.wallet}`);
  const wallet = executor.wallet.address;
  metrics.ticks.inc({ strategy: strategy.id });
  const stopTimer = metrics.runSeconds.startTimer({ strategy: strategy.id });
  let report: RunReport;
  try {
    report = await runStrategy(strategy, slot, {
      executor,
      signal,
      view: { client: runtime.client, prices: executor.prices, wallet, nativeToken: runtime.nativeToken, now: Date.now, signal },
    });
  } catch (error) {
    metrics.quotes.inc({ outcome: 'error' });
    const reason = error instanceof Error ? error.message : String(error);
    logger.error({ strategy: strategy.id, slot, error: reason }, 'run failed before trading');
    observers.notifier.notify('failed', { strategy: strategy.id, slot, reason });
    observers.health?.ran(strategy.id, 'failed before trading', reason);
    return undefined;
  } finally {
    stopTimer();
  }
  recordRun(report, observers);
  const failed = report.trades.find((trade) => trade.status === 'failed' || trade.status === 'unknown');
  observers.health?.ran(strategy.id, report.trades.at(-1)?.status ?? 'no trade', failed && `${failed.status}: ${failed.reason}`);
  // The run is reported; a failing balance read for the metrics is only a warning, never a second verdict.
  await recordBalances(strategy, runtime, wallet, metrics).catch((error: unknown) =>
    logger.warn({ strategy: strategy.id, error: error instanceof Error ? error.message : String(error) }, 'could not read balances for the metrics'),
  );
  return report;
}

const stillOpen = (status: TradeState | 'skipped') => (openStates as readonly string[]).includes(status);

function recordRun(report: RunReport, { logger, metrics, notifier }: Observers): void {
  if (report.trades.length === 0) logger.info({ strategy: report.strategyId, slot: report.slot }, `no trade: ${report.note}`);
  for (const trade of report.trades) {
    for (const stage of trade.stages) metrics.stepSeconds.observe({ step: stage.stage }, stage.ms / 1000);
    const quoted = trade.stages.find((stage) => stage.stage === 'quote');
    if (quoted) metrics.quotes.inc({ outcome: quoted.ok ? 'ok' : 'failed' });
    metrics.transactions.inc({ status: trade.status });
    if (trade.gasCostWei !== undefined) metrics.gasSpent.inc(Number(trade.gasCostWei));
    const fields = {
      strategy: report.strategyId,
      intent: trade.intentId,
      status: trade.status,
      expectedOut: trade.expectedOut?.toString(),
      minOut: trade.minOut?.toString(),
      amountOut: trade.amountOut?.toString(),
      txHash: trade.txHash,
      reason: trade.reason,
    };
    if (trade.status === 'confirmed') {
      logger.info(fields, `filled: ${report.note}`);
      notifier.notify('filled', fields);
    } else if (trade.status === 'refused') {
      metrics.refusals.inc({ reason: trade.refusal ?? 'unknown' });
      logger.warn(fields, `refused by a guard: ${trade.reason}`);
      notifier.notify('refused', fields);
    } else if (trade.status === 'anomaly') {
      metrics.anomalies.inc({ strategy: report.strategyId });
      logger.error(fields, `traded, but the outcome cannot be trusted: ${trade.reason}; the strategy and the wallet are paused until \`routekeeper resume\``);
      notifier.notify('anomaly', fields);
    } else if (trade.errorClass === 'KeyUsedElsewhereError') {
      metrics.anomalies.inc({ strategy: report.strategyId });
      logger.error(fields, `${trade.reason}; the wallet is paused until \`routekeeper resume --wallet\``);
      notifier.notify('anomaly', fields);
    } else if (trade.status === 'unknown') {
      logger.error(fields, `${trade.reason}; it counts as traded, and its strategy waits until the chain settles it`);
      notifier.notify('failed', fields);
    } else if (stillOpen(trade.status) && trade.reason?.startsWith('interrupted')) {
      logger.warn(fields, `${trade.reason}; it resumes at the next start`);
    } else if (trade.status === 'failed' || stillOpen(trade.status)) {
      logger.error(fields, `not filled: ${trade.reason}`);
      notifier.notify('failed', fields);
    } else {
      logger.info(fields, `${trade.status}: ${report.note}`);
    }
  }
}

/** Wallet balances of the tokens a strategy touched, and gas paid, for the metrics. */
async function recordBalances(strategy: Strategy, runtime: Pick<Runtime, 'client'>, wallet: `0x${string}`, metrics: Metrics): Promise<void> {
  const tokens =
    strategy.kind === 'rebalance' ? strategy.targets.map((t) => t.token) : strategy.kind === 'compound' ? [strategy.gauge.rewardToken, strategy.valueToken] : [strategy.sell, strategy.buy];
  const balances = await Promise.all(tokens.map((token) => runtime.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })));
  tokens.forEach((token, i) => metrics.balance.set({ wallet, token: token.symbol }, Number(formatUnits(balances[i] as bigint, token.decimals))));
  metrics.balance.set({ wallet, token: 'native' }, Number(formatEther(await runtime.client.getBalance({ address: wallet }))));
}

/** The time of the newest scheduled slot a strategy ran: `once` runs (slot "once-<time>") are not on its schedule. */
export function lastScheduledSlot(ledger: Ledger, strategyId: string): number | undefined {
  for (const intent of ledger.history({ strategyId, limit: 100 })) {
    const time = Date.parse(intent.slot.split('#')[0] as string);
    if (!intent.slot.startsWith('once-') && !Number.isNaN(time)) return time;
  }
  return undefined;
}

export type Daemon = { scheduler: Scheduler; stop(): Promise<string[]> };

/** A trade the settler followed again: logged, counted and notified as any run's trade. */
function reportSettled(observers: Observers) {
  return (strategyId: string, trade: TradeReport) => {
    if (trade.status === 'unknown') {
      observers.logger.warn({ strategy: strategyId, intent: trade.intentId, reason: trade.reason }, 'outcome still not known; following it again later');
      return;
    }
    recordRun({ strategyId, slot: trade.intentId, note: `settled ${trade.intentId}`, trades: [trade] }, observers);
  };
}

export function startDaemon(runtime: Runtime, execution: Execution, observers: Observers, signal?: AbortSignal): Daemon {
  const scheduler = new Scheduler({
    strategies: runtime.config.strategies,
    maxConcurrency: runtime.config.defaults.maxConcurrency,
    lastSlot: (strategyId) => lastScheduledSlot(execution.ledger, strategyId),
    run: async (strategy, slot) => {
      await runAndReport(strategy, slot, runtime, execution, observers, signal);
    },
    onSkip: (strategy, slot, why) => observers.logger.info({ strategy: strategy.id, slot }, `slot skipped: ${why}`),
    onError: (strategy, slot, error) =>
      observers.logger.error({ strategy: strategy.id, slot, error: error instanceof Error ? error.message : String(error) }, 'run failed unexpectedly'),
  });
  scheduler.start();
  const settler = startSettler(execution, reportSettled(observers), signal);
  return {
    scheduler,
    async stop() {
      // Runs see the shutdown signal and stop at their next step; 4 s bounds the wait so a stop takes under 5 s.
      const [unfinished] = await Promise.all([scheduler.stop(4_000), settler.stop()]);
      await observers.notifier.flush();
      return unfinished;
    },
  };
}
