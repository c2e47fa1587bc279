import { setMaxListeners } from 'node:events';
import { readEnv } from '../config/env.ts';
import { parseDuration } from '../config/strategy-file.ts';
import { describeTrade } from '../trade/describe.ts';
import { resumeAll, runAndReport } from '../engine/daemon.ts';
import { toJson } from '../json.ts';
import { openExecution, openRuntime } from '../engine/runtime.ts';
import { markOrWarn, markerDepsOf } from '../engine/marker.ts';
import { AbortedError, isAbort } from '../ops/abort.ts';
import { createLogger } from '../ops/logger.ts';
import { stopReason } from '../ops/shutdown.ts';
import { createMetrics } from '../ops/metrics.ts';
import { createNotifier } from '../ops/notifier.ts';
import { openStates } from '../model/trade.ts';
import { type CommandContext, commonOptions, defaultOnceWait, parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { onceRunSlot } from '../model/trade-slot.ts';

/** `--wait 90s`: a duration of at least a second, or a UsageError naming the option. */
function waitOption(value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    throw new UsageError(`once: --wait must be a duration such as 30s, 2m or 1h, got '${value}'`);
  }
  if (ms < 1_000) throw new UsageError(`once: --wait must be at least 1s, got '${value}'`);
  return ms;
}

/** `routekeeper once`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[], { shutdown }: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs('once', argv, { ...commonOptions, json: { type: 'boolean' }, wait: { type: 'string' } }, true);
  const [strategyId, ...extra] = positionals;
  if (!strategyId || extra.length > 0) throw new UsageError("once: give exactly one strategy id. See 'routekeeper once --help'.");
  const wait = values.wait ?? defaultOnceWait;
  const waitMs = waitOption(wait);
  const env = readEnv();
  // Logs go to stderr (pretty on a terminal): stdout carries the result.
  const logger = createLogger({ destination: process.stderr, pretty: process.stderr.isTTY === true });
  // The whole command is bounded: past it, what is in flight stays in the ledger for the daemon to settle.
  const bound = new AbortController();
  const deadline = Date.now() + waitMs;
  const timer = setTimeout(() => bound.abort(new AbortedError(`no answer within --wait ${wait}`)), waitMs).unref();
  const signal = AbortSignal.any([shutdown.signal, bound.signal]);
  // Every wait of the run listens to it, as to the shutdown's: many listeners are the design, not a leak.
  setMaxListeners(0, signal);
  const secondsLeft = () => Math.max(0, Math.round((deadline - Date.now()) / 1000));
  logger.info({ waitMs }, `${strategyId}: running once, for at most ${wait} (--wait)`);
  try {
    const runtime = await openRuntime({
      env,
      configFile: values.config,
      addressBookFile: values['address-book'],
      database: values.database,
      signal,
    });
    try {
      const strategy = runtime.config.strategies.find((s) => s.id === strategyId);
      if (!strategy)
        throw new UsageError(
          `once: no strategy '${strategyId}' in ${runtime.configFile} (strategies: ${runtime.config.strategies.map((s) => s.id).join(', ')})`,
        );
      const execution = await openExecution(runtime, {
        dryRun: values['dry-run'],
        // Says what it waits for, so a slow chain is never silence.
        onStage: (stage, attempt) => {
          const what = attempt.purpose === 'approve' ? 'the approval' : `the ${attempt.purpose}`;
          if (stage === 'broadcast')
            logger.info(
              `${attempt.intentId}: sent ${what} ${attempt.hash}; waiting for the chain to mine it (up to ${secondsLeft()} s more; --wait to change)`,
            );
          if (stage === 'mined') logger.info(`${attempt.intentId}: ${what} ${attempt.hash} is mined`);
        },
      });
      const observers = { logger, metrics: createMetrics(), notifier: createNotifier(runtime.config.webhooks, logger) };
      const open = (await execution.ledger.trades.unfinished()).length;
      if (open > 0) logger.info(`settling ${open} trade${open === 1 ? '' : 's'} a previous run left open first`);
      await resumeAll(execution, observers, signal);
      // Prices and balances before and after, so `status` values a ledger that only `once` wrote.
      const marking = markerDepsOf(runtime, execution, logger);
      if (marking) await markOrWarn(marking);
      logger.info(`${strategy.id}: asking for a route, checking it and simulating it`);
      const report = await runAndReport(strategy, onceRunSlot(Date.now()), runtime, execution, observers, signal);
      if (marking && report?.trades.some((trade) => trade.status === 'confirmed')) await markOrWarn(marking);
      await observers.notifier.flush();
      if (shutdown.signal.aborted) return stoppedBy(shutdown.signal);
      if (!report) {
        if (bound.signal.aborted) console.error(`routekeeper: once: ${strategy.id}: no answer within --wait ${wait} before it traded; nothing was traded`);
        return 1;
      }
      // Held before it looked: the strategy did not run, and says why (exit 1).
      if (report.heldBy) {
        if (values.json) console.log(toJson(report));
        const next = report.heldBy === 'pause' ? 'lift it with `routekeeper resume` once a person has looked' : 'the daemon settles it (routekeeper run)';
        console.error(`routekeeper: once: ${strategy.id} did not run: ${report.note}; ${next}`);
        return 1;
      }
      if (values.json) {
        console.log(toJson(report));
      } else {
        console.log(`${report.strategyId}: ${report.note}`);
        for (const trade of report.trades)
          console.log(`  ${trade.intentId}: ${describeTrade(trade, execution.names)}${trade.txHash ? `, tx ${trade.txHash}` : ''}`);
      }
      const stillOpen = report.trades.filter((trade) => (openStates as readonly string[]).includes(trade.status) || trade.status === 'unknown');
      if (stillOpen.length > 0) {
        console.error(`routekeeper: ${stillOpen.map((trade) => trade.intentId).join(', ')}: outcome not known yet; the daemon settles it (routekeeper run)`);
        return 1;
      }
      const settled = new Set(['confirmed', 'refused', 'dry-run', 'skipped']);
      return report.trades.every((trade) => settled.has(trade.status)) ? 0 : 1;
    } finally {
      await runtime.close();
    }
  } catch (error) {
    // Past the bound (or stopped) before the run began: nothing was traded.
    if (!isAbort(error)) throw error;
    if (shutdown.signal.aborted) return stoppedBy(shutdown.signal);
    console.error(`routekeeper: once: ${(error as Error).message}; nothing was traded`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

function stoppedBy(signal: AbortSignal): number {
  console.error(`routekeeper: once: ${stopReason(signal)}; what is in flight is in the ledger, settled at the next start`);
  return 0;
}
