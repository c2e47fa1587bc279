/**
 * The daemon: reconcile every wallet's unfinished intents with the chain, then run the strategies on their
 * schedules until stopped, telling the logs, the metrics and the webhooks what each run did and why.
 */
import { type Address, formatEther, formatUnits, isAddressEqual } from 'viem';
import { type RunOutcome, runOutcomeOf } from '../ledger/ledger.ts';
import { isAbort } from '../ops/abort.ts';
import { type TokenNames, describeTrade } from '../trade/describe.ts';
import type { Logger } from '../ops/logger.ts';
import type { HealthMonitor } from '../ops/health.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Notifier } from '../ops/notifier.ts';
import type { Strategy } from '../strategy/types.ts';
import { resumeOpenTrades } from '../trade/pipeline.ts';
import { openStates, type TradeReport, type TradeState, type WalletBalances } from '../model/trade.ts';
import { type RunReport, runStrategy } from './runner.ts';
import { worksInSlices } from './worked-order.ts';
import { parseSliceKey, parseTradeSlot, scheduledSlotTime } from '../model/trade-slot.ts';
import type { Execution, Runtime } from './runtime.ts';
import { Scheduler } from './scheduler.ts';
import { startSettler } from './settler.ts';
import { type Marker, type WalletReadings, markerDepsOf, startMarker } from './marker.ts';
import { tokensTraded } from '../strategy/plan.ts';

export type Observers = {
  logger: Logger;
  metrics: Metrics;
  notifier: Notifier;
  health?: HealthMonitor;
  /** The last "nothing to do" note per strategy: the same note again is logged at debug level only. */
  notes?: Map<string, string>;
  /** Records prices and balances soon after a run traded (the status page's valuations, the balance metrics). */
  marker?: Pick<Marker, 'soon'>;
};

/**
 * Continues what a previous process left open, wallet by wallet, before anything new runs: signed trades are
 * followed to their fate, trades interrupted before signing are resumed (see the pipeline).
 */
export async function resumeAll(execution: Execution, observers: Observers, signal?: AbortSignal): Promise<TradeReport[]> {
  const reports: TradeReport[] = [];
  for (const [wallet, executor] of execution.executors) {
    // Another daemon's wallet is that daemon's to resume.
    if (execution.leases && !execution.leases.holds(executor.wallet.address)) continue;
    for (const report of await resumeOpenTrades(executor, signal)) {
      observers.logger.info(
        { wallet, intent: report.intentId, status: report.status, reason: report.reason, amountOut: report.amountOut?.toString() },
        `resumed ${report.intentId}: ${describeTrade(report, execution.names)}`,
      );
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
  // The run is in the ledger before it looks at anything: `history` shows every run, even one a crash cut short.
  const { runId, gate } = await execution.ledger.runs.start(strategy.id, wallet, slot);
  let report: RunReport;
  try {
    report = await runStrategy(strategy, slot, {
      executor,
      signal,
      run: { id: runId, gate },
      positionMarks: execution.ledger.marks,
      view: { client: runtime.client, prices: executor.prices, wallet, nativeToken: runtime.nativeToken, now: Date.now, signal },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (isAbort(error)) {
      await execution.ledger.runs.finish(runId, 'interrupted', `stopped before trading: ${reason}`);
      logger.info({ strategy: strategy.id, slot }, 'run stopped before trading');
      return undefined;
    }
    metrics.quotes.inc({ outcome: 'error' });
    metrics.runs.inc({ strategy: strategy.id, outcome: 'error' });
    metrics.failures.inc({ strategy: strategy.id });
    await execution.ledger.runs.finish(runId, 'error', `failed before trading: ${reason}`);
    logger.error({ strategy: strategy.id, slot, error: reason }, `${strategy.id}: failed before trading: ${reason}`);
    observers.notifier.notify('failed', { strategy: strategy.id, slot, reason });
    observers.health?.ran(strategy.id, 'failed before trading', reason);
    return undefined;
  } finally {
    stopTimer();
  }
  recordRun(report, observers, execution.names);
  if (report.trades.some((trade) => trade.status === 'confirmed')) observers.marker?.soon();
  const outcome = outcomeOf(report);
  await execution.ledger.runs.finish(runId, outcome, report.note);
  metrics.runs.inc({ strategy: strategy.id, outcome });
  const failed = report.trades.find((trade) => trade.status === 'failed' || trade.status === 'unknown');
  if (failed) metrics.failures.inc({ strategy: strategy.id });
  observers.health?.ran(strategy.id, report.trades.at(-1)?.status ?? 'no trade', failed && `${failed.status}: ${failed.reason}`);
  // The balance metrics cost a run no read: the check after a trade read the wallet's balances at the trade's block,
  // and they are shown at once; the marker reads every held wallet's in one batch per mark (at start, every
  // valuation interval, and soon after a run traded) and shows the rest.
  const known = report.trades.findLast((trade) => trade.balancesAfter !== undefined)?.balancesAfter;
  if (known) showCheckedBalances(strategy, metrics, known);
  return report;
}

/** A run's outcome for the ledger: what its last trade reached, or why it traded nothing. */
export function outcomeOf(report: RunReport): RunOutcome {
  const last = report.trades.at(-1);
  if (last) return runOutcomeOf(last.status);
  return report.heldBy === 'pause' ? 'paused' : report.heldBy === 'unknown-outcome' ? 'waiting' : 'nothing';
}

const stillOpen = (status: TradeState | 'skipped') => (openStates as readonly string[]).includes(status);

function recordRun(report: RunReport, { logger, metrics, notifier, notes }: Observers, names: TokenNames): void {
  if (report.anomaly !== undefined) {
    metrics.anomalies.inc({ strategy: report.strategyId });
    logger.error({ strategy: report.strategyId, slot: report.slot }, `${report.strategyId}: ${report.note} until \`routekeeper resume\``);
    notifier.notify('anomaly', { strategy: report.strategyId, reason: report.anomaly, summary: report.note });
    return;
  }
  if (report.trades.length === 0) {
    // A note the strategy keeps repeating ("already filled once", "waiting: worth …") is news once.
    const repeated = notes?.get(report.strategyId) === report.note;
    notes?.set(report.strategyId, report.note);
    logger[repeated ? 'debug' : 'info']({ strategy: report.strategyId, slot: report.slot }, `${report.strategyId}: no trade: ${report.note}`);
    return;
  }
  notes?.delete(report.strategyId);
  // The run's reasoning once; then one headline per trade, saying what that trade did.
  if (report.trades.length > 1) logger.info({ strategy: report.strategyId, slot: report.slot }, `${report.strategyId}: ${report.note}`);
  for (const trade of report.trades) {
    for (const stage of trade.stages) metrics.stepSeconds.observe({ step: stage.stage }, stage.ms / 1000);
    const quoted = trade.stages.find((stage) => stage.stage === 'quote');
    if (quoted) metrics.quotes.inc({ outcome: quoted.ok ? 'ok' : 'failed' });
    metrics.transactions.inc({ status: trade.status });
    if (trade.gasCostWei !== undefined) metrics.gasSpent.inc({ strategy: report.strategyId }, Number(formatEther(trade.gasCostWei)));
    if (trade.status === 'confirmed') recordVolume(metrics, report.strategyId, trade, names);
    const raw = {
      amountIn: trade.trade.amountIn.toString(),
      expectedOut: trade.expectedOut?.toString(),
      minOut: trade.minOut?.toString(),
      amountOut: trade.amountOut?.toString(),
    };
    const fields = {
      strategy: report.strategyId,
      intent: trade.intentId,
      status: trade.status,
      amountIn: names.amount(trade.trade.amountIn, trade.trade.tokenIn),
      amountOut: trade.amountOut === undefined ? undefined : names.amount(trade.amountOut, trade.trade.tokenOut),
      minOut: trade.minOut === undefined ? undefined : names.amount(trade.minOut, trade.trade.tokenOut),
      raw,
      txHash: trade.txHash,
      reason: trade.reason,
    };
    // Webhooks are read by programs: raw amounts as strings, and the headline for people.
    const hook = {
      strategy: report.strategyId,
      intent: trade.intentId,
      status: trade.status,
      ...raw,
      txHash: trade.txHash,
      reason: trade.reason,
      summary: describeTrade(trade, names),
    };
    const headline = `${report.strategyId}: ${describeTrade(trade, names)}${report.trades.length === 1 && trade.status === 'confirmed' ? ` (${report.note})` : ''}`;
    if (trade.status === 'confirmed') {
      logger.info(fields, headline);
      notifier.notify('filled', hook);
    } else if (trade.status === 'refused') {
      metrics.refusals.inc({ reason: trade.refusal ?? 'unknown' });
      logger.warn(fields, headline);
      notifier.notify('refused', hook);
    } else if (trade.status === 'anomaly') {
      metrics.anomalies.inc({ strategy: report.strategyId });
      logger.error(fields, `${headline}; the strategy and the wallet are paused until \`routekeeper resume\``);
      notifier.notify('anomaly', hook);
    } else if (trade.errorClass === 'key-used-elsewhere') {
      metrics.anomalies.inc({ strategy: report.strategyId });
      logger.error(fields, `${headline}; the wallet is paused until \`routekeeper resume --wallet\``);
      notifier.notify('anomaly', hook);
    } else if (trade.status === 'unknown') {
      logger.error(fields, `${headline}; it counts as traded, and its strategy waits until the chain settles it`);
      notifier.notify('failed', hook);
    } else if (stillOpen(trade.status) && (trade.errorClass === 'interrupted' || trade.errorClass === 'lease-lost')) {
      // Stopped, or its wallet's lease gone: it stays as it was, for the next start or the daemon that holds the wallet.
      logger.warn(fields, `${headline}; it resumes at the next start`);
    } else if (trade.status === 'failed' || stillOpen(trade.status)) {
      logger.error(fields, headline);
      notifier.notify('failed', hook);
    } else {
      logger.info(fields, headline);
    }
  }
}

/** What a confirmed trade sold and bought, in whole tokens (tokens whose decimals are not known are left out). */
function recordVolume(metrics: Metrics, strategyId: string, trade: TradeReport, names: TokenNames): void {
  const sold = names.get(trade.trade.tokenIn);
  const bought = names.get(trade.trade.tokenOut);
  if (sold) metrics.volume.inc({ strategy: strategyId, token: sold.symbol, side: 'sold' }, Number(formatUnits(trade.trade.amountIn, sold.decimals)));
  if (bought && trade.amountOut !== undefined)
    metrics.volume.inc({ strategy: strategyId, token: bought.symbol, side: 'bought' }, Number(formatUnits(trade.amountOut, bought.decimals)));
}

/** The wallet's balances the check after a trade read, of the tokens the strategy touched, in the metrics. */
function showCheckedBalances(strategy: Strategy, metrics: Metrics, known: WalletBalances): void {
  for (const token of tokensTraded(strategy)) {
    const balance = known.tokens.find((entry) => isAddressEqual(entry.token, token.address))?.balance;
    if (balance !== undefined) metrics.balance.set({ wallet: strategy.wallet, token: token.symbol }, Number(formatUnits(balance, token.decimals)));
  }
  metrics.balance.set({ wallet: strategy.wallet, token: 'native' }, Number(formatEther(known.native)));
}

/** A mark's readings in the balance metrics: every held wallet's tokens whose symbol is known, and its native coin. */
export function showMarkedBalances(readings: WalletReadings, metrics: Metrics, walletNames: ReadonlyMap<string, string>, names: TokenNames): void {
  for (const { wallet, token, balance } of readings.tokens) {
    const name = walletNames.get(wallet.toLowerCase());
    const info = names.get(token);
    if (name && info) metrics.balance.set({ wallet: name, token: info.symbol }, Number(formatUnits(balance, info.decimals)));
  }
  for (const { wallet, balance } of readings.native) {
    const name = walletNames.get(wallet.toLowerCase());
    if (name) metrics.balance.set({ wallet: name, token: 'native' }, Number(formatEther(balance)));
  }
}

export type Daemon = { scheduler: Scheduler; stop(): Promise<string[]> };

/** A trade the settler followed again: logged, counted and notified as any run's trade. */
function reportSettled(observers: Observers, names: TokenNames) {
  return (strategyId: string, trade: TradeReport) => {
    if (trade.status === 'unknown') {
      observers.logger.warn({ strategy: strategyId, intent: trade.intentId, reason: trade.reason }, 'outcome still not known; following it again later');
      return;
    }
    recordRun({ strategyId, slot: trade.intentId, note: `settled ${trade.intentId}`, trades: [trade] }, observers, names);
  };
}

/**
 * The latest slot each strategy (of `strategyIds`, else every one) ran, or traded in a ledger from before runs were
 * recorded, in ms.
 */
async function lastSlotsOf(execution: Execution, strategyIds?: readonly string[]): Promise<Map<string, number>> {
  const [traded, ran] = await Promise.all([execution.ledger.trades.lastScheduledSlots(strategyIds), execution.ledger.runs.lastSlots(strategyIds)]);
  for (const [id, time] of ran) if (time > (traded.get(id) ?? Number.NEGATIVE_INFINITY)) traded.set(id, time);
  return traded;
}

/**
 * The slot each strategy that works orders in slices was working at its last run, while the order's `within` has not
 * passed since its first slice. The rows only decide that the slot runs again; what is left of its order is decided
 * by the run, from the wallet's proven history (a row that lies here can only make a slot run again, which sells no
 * slice twice).
 */
async function workingSlotsOf(strategies: readonly Strategy[], execution: Execution): Promise<Map<string, number>> {
  const working = new Map<string, number>();
  for (const strategy of strategies.filter(worksInSlices)) {
    const slices = (await execution.ledger.trades.all(strategy.id)).filter((row) => parseSliceKey(parseTradeSlot(row.slot).key ?? '') !== undefined);
    const latest = slices.reduce<string | undefined>((last, row) => {
      const { runSlot } = parseTradeSlot(row.slot);
      return last === undefined || runSlot > last ? runSlot : last;
    }, undefined);
    const time = latest === undefined ? undefined : scheduledSlotTime(latest);
    if (latest === undefined || time === undefined) continue;
    const firstAt = Math.min(...slices.filter((row) => parseTradeSlot(row.slot).runSlot === latest).map((row) => row.createdAt));
    if (Date.now() < firstAt + strategy.split.withinMs) working.set(strategy.id, time);
  }
  return working;
}

export async function startDaemon(runtime: Runtime, execution: Execution, observersIn: Observers, signal?: AbortSignal): Promise<Daemon> {
  const lastSlots = await lastSlotsOf(execution);
  const workingSlots = await workingSlotsOf(runtime.config.strategies, execution);
  const { names, leases, group } = execution;
  const addressOf = (strategy: Strategy) => execution.executors.get(strategy.wallet)?.wallet.address;
  // Runs in progress per wallet: a wallet is handed to another daemon only when it has none.
  const inFlight = new Map<string, number>();
  const count = (wallet: Address | undefined, by: number) => {
    if (wallet) inFlight.set(wallet.toLowerCase(), (inFlight.get(wallet.toLowerCase()) ?? 0) + by);
  };
  const walletNames = new Map([...execution.executors].map(([name, executor]) => [executor.wallet.address.toLowerCase(), name]));
  const markerDeps = markerDepsOf(runtime, execution, observersIn.logger, (readings) => showMarkedBalances(readings, observersIn.metrics, walletNames, names));
  const marker = markerDeps && startMarker(markerDeps, runtime.config.defaults.valuation.everySeconds * 1000);
  const observers = { ...observersIn, marker };
  let stopping = false;
  // Missed slots being written: a stop waits for them, so none is lost to the ledger's close.
  const recordingMissed = new Set<Promise<void>>();
  const scheduler = new Scheduler({
    strategies: runtime.config.strategies,
    maxConcurrency: runtime.config.defaults.maxConcurrency,
    lastSlot: (strategyId) => lastSlots.get(strategyId),
    workingSlot: (strategyId) => workingSlots.get(strategyId),
    run: async (strategy, slot) => {
      const wallet = addressOf(strategy);
      count(wallet, 1);
      try {
        await runAndReport(strategy, slot, runtime, execution, observers, signal);
      } finally {
        count(wallet, -1);
      }
    },
    // Sharing, a strategy runs where its wallet is held. Alone, every strategy is this daemon's, and a wallet whose
    // lease could not be renewed (the database away) signs nothing, which its trades say.
    holds: (strategy) => {
      const wallet = addressOf(strategy);
      return !leases || !group?.shares || (wallet !== undefined && leases.holds(wallet));
    },
    onMissed: (strategy, slot, why) => {
      const recorded = execution.ledger.runs
        .missed(strategy.id, slot, why)
        .catch((error: unknown) => observers.logger.error({ strategy: strategy.id, slot, error: String(error) }, 'could not record a missed slot'))
        .finally(() => recordingMissed.delete(recorded));
      recordingMissed.add(recorded);
      observers.metrics.slotsMissed.inc({ strategy: strategy.id });
      observers.logger.warn({ strategy: strategy.id, slot }, `${strategy.id}: slot ${slot} missed: ${why}`);
    },
    onError: (strategy, slot, error) =>
      observers.logger.error({ strategy: strategy.id, slot, error: error instanceof Error ? error.message : String(error) }, 'run failed unexpectedly'),
  });
  /**
   * A wallet taken from another daemon: its open trades are continued from the ledger (stored bytes sent again,
   * never signed anew), then its strategies' missed slots follow `catchUp`.
   */
  const adopt = async (wallet: Address) => {
    try {
      const executor = [...execution.executors.values()].find((candidate) => candidate.wallet.address.toLowerCase() === wallet.toLowerCase());
      if (!executor || stopping) return;
      observers.metrics.leasesHeld.set(leases?.held ?? 0);
      observers.logger.info({ wallet }, `wallet ${wallet} taken: ${group?.live ?? 1} daemons share ${execution.executors.size} wallets`);
      // What this daemon knew in flight when it last held the wallet may have been settled by another since: the
      // open trades resumed now are what is in flight.
      executor.wallet.forgetInFlight();
      for (const report of await resumeOpenTrades(executor, signal)) {
        observers.logger.info({ wallet, intent: report.intentId, status: report.status }, `resumed ${report.intentId}: ${describeTrade(report, names)}`);
      }
      const strategies = runtime.config.strategies.filter((strategy) => addressOf(strategy)?.toLowerCase() === wallet.toLowerCase());
      // Only this wallet's strategies: a daemon taking many wallets at once does not read the whole ledger for each.
      const last = await lastSlotsOf(
        execution,
        strategies.map((strategy) => strategy.id),
      );
      if (!stopping) scheduler.adopt(strategies, (id) => last.get(id));
    } catch (error) {
      if (!isAbort(error))
        observers.logger.error({ wallet, error: error instanceof Error ? error.message : String(error) }, `wallet ${wallet}: could not take over its work`);
    }
  };
  // Holdings are recorded before the first run trades (a rebalance is measured against them).
  void (marker?.first ?? Promise.resolve()).then(() => {
    if (signal?.aborted || stopping) return;
    scheduler.start();
    // From now on this daemon takes its share of the wallets (on a ledger several daemons share), and any it lost.
    void group?.run({ isBusy: (wallet) => (inFlight.get(wallet.toLowerCase()) ?? 0) > 0, onGained: (wallet) => void adopt(wallet) });
  });
  const settler = startSettler(execution, reportSettled(observers, names), signal);
  return {
    scheduler,
    async stop() {
      stopping = true;
      // Runs see the shutdown signal and stop at their next step; 4 s bounds the wait so a stop takes under 5 s.
      const [unfinished] = await Promise.all([scheduler.stop(4_000), settler.stop(), marker?.stop()]);
      await Promise.all(recordingMissed);
      await observers.notifier.flush();
      return unfinished;
    },
  };
}
