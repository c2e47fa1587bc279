import { readEnv } from '../config/env.ts';
import { describeTrade } from '../trade/describe.ts';
import { resumeAll, runAndReport } from '../engine/daemon.ts';
import { toJson } from '../ledger/ledger.ts';
import { openExecution, openRuntime } from '../engine/runtime.ts';
import { markOrWarn, markerDepsOf } from '../engine/marker.ts';
import { createLogger } from '../ops/logger.ts';
import { createMetrics } from '../ops/metrics.ts';
import { createNotifier } from '../ops/notifier.ts';
import { commonOptions, parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';

/** `routekeeper once`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('once', argv, { ...commonOptions, json: { type: 'boolean' } }, true);
  const [strategyId, ...extra] = positionals;
  if (!strategyId || extra.length > 0) throw new UsageError("once: give exactly one strategy id. See 'routekeeper once --help'.");
  const env = readEnv();
  // Logs go to stderr (pretty on a terminal): stdout carries the result.
  const logger = createLogger({ destination: process.stderr, pretty: process.stderr.isTTY === true });
  const runtime = await openRuntime({ env, configFile: values.config, addressBookFile: values['address-book'] });
  try {
    const strategy = runtime.config.strategies.find((s) => s.id === strategyId);
    if (!strategy) throw new UsageError(`once: no strategy '${strategyId}' in ${runtime.configFile} (strategies: ${runtime.config.strategies.map((s) => s.id).join(', ')})`);
    const execution = openExecution(runtime, { dryRun: values['dry-run'] });
    const observers = { logger, metrics: createMetrics(), notifier: createNotifier(runtime.config.webhooks, logger) };
    await resumeAll(execution, observers);
    // Prices and balances before and after, so `status` values a ledger that only `once` wrote.
    const marking = markerDepsOf(runtime, execution, logger);
    if (marking) await markOrWarn(marking);
    const report = await runAndReport(strategy, `once-${new Date().toISOString()}`, runtime, execution, observers);
    if (marking && report?.trades.some((trade) => trade.status === 'confirmed')) await markOrWarn(marking);
    await observers.notifier.flush();
    if (!report) return 1;
    if (values.json) {
      console.log(toJson(report));
    } else {
      console.log(`${report.strategyId}: ${report.note}`);
      for (const trade of report.trades) console.log(`  ${trade.intentId}: ${describeTrade(trade, execution.names)}${trade.txHash ? `, tx ${trade.txHash}` : ''}`);
    }
    const settled = new Set(['confirmed', 'refused', 'dry-run', 'skipped']);
    return report.trades.every((trade) => settled.has(trade.status)) ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
