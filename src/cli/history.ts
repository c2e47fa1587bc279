import { type Attempt, Ledger, type RunRecord, runOutcomeOf, toJson } from '../ledger/ledger.ts';
import { TokenNames, describeTrade } from '../trade/describe.ts';
import type { TradeRecord } from '../trade/types.ts';
import { parseCommandArgs, parseIntegerOption } from './command.ts';
import { ledgerFileFor } from './ledger-file.ts';

type TradeWithAttempts = TradeRecord & { attempts: Attempt[] };
/** A run and its trades; trades recorded without a run (by an older version, or by hand) stand as their own row. */
type HistoryRow = Omit<RunRecord, 'id'> & { trades: TradeWithAttempts[] };

/** `routekeeper history`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('history', argv, {
    json: { type: 'boolean' },
    limit: { type: 'string' },
    strategy: { type: 'string' },
    ledger: { type: 'string' },
  });
  const limit = parseIntegerOption('limit', values.limit, { min: 1, max: 100_000 }) ?? 50;
  const file = ledgerFileFor(values.ledger);
  const ledger = Ledger.openReadOnly(file);
  try {
    const rows = historyRows(ledger, { limit, strategyId: values.strategy });
    if (values.json) {
      console.log(toJson(rows));
      return 0;
    }
    const names = new TokenNames(ledger.tokenNames());
    if (rows.length === 0) {
      console.log(`no runs recorded in ${file}${values.strategy ? ` for ${values.strategy}` : ''}`);
      return 0;
    }
    console.log(`${file}: the last ${rows.length} runs${values.strategy ? ` of ${values.strategy}` : ''}, newest first (times in UTC)`);
    const width = Math.max(8, ...rows.map((row) => row.strategyId.length));
    console.log(`${'started'.padEnd(24)}  ${'strategy'.padEnd(width)}  ${'slot'.padEnd(24)}  ${'outcome'.padEnd(11)}  what happened`);
    for (const row of rows) {
      const note = row.note ?? (row.finishedAt === undefined && row.trades.length === 0 ? 'the process stopped during the run' : '');
      console.log(`${new Date(row.startedAt).toISOString()}  ${row.strategyId.padEnd(width)}  ${row.slot.padEnd(24)}  ${(row.outcome ?? 'interrupted').padEnd(11)}  ${note}`);
      for (const trade of row.trades) {
        const why = trade.anomaly ?? trade.failure?.reason;
        const amountOut = trade.settlement?.amountOut;
        const described = describeTrade(
          { trade, status: trade.status, reason: why, expectedOut: trade.call?.expectedOut, minOut: trade.call?.minOut, amountOut },
          names,
        );
        console.log(`    ${trade.id}  ${described}${trade.settlement ? `  tx ${trade.settlement.txHash}` : ''}`);
        for (const attempt of trade.attempts) console.log(`        ${attempt.purpose} nonce ${attempt.nonce} ${attempt.status} ${attempt.hash}`);
      }
    }
    return 0;
  } finally {
    ledger.close();
  }
}

/** The newest runs with their trades, and trades that belong to no recorded run, newest first. */
export function historyRows(ledger: Ledger, options: { limit: number; strategyId?: string }): HistoryRow[] {
  const withAttempts = (trade: TradeRecord): TradeWithAttempts => ({ ...trade, attempts: ledger.attemptsOf(trade.id) });
  const rows: HistoryRow[] = ledger.runs(options).map(({ id: _id, ...run }) => ({ ...run, trades: ledger.tradesOfRun(run.strategyId, run.slot).map(withAttempts) }));
  const inRuns = new Set(rows.flatMap((row) => row.trades.map((trade) => trade.id)));
  const runKeys = new Set(rows.map((row) => `${row.strategyId}\n${row.slot}`));
  for (const trade of ledger.history(options)) {
    if (inRuns.has(trade.id)) continue;
    const slot = trade.slot.split('#')[0] as string;
    // A trade of a run older than the rows shown is left out with its run, not shown on its own.
    if (runKeys.has(`${trade.strategyId}\n${slot}`) || ledger.hasRun(trade.strategyId, slot)) continue;
    rows.push({ strategyId: trade.strategyId, slot: trade.slot, startedAt: trade.createdAt, finishedAt: trade.updatedAt, outcome: runOutcomeOf(trade.status), trades: [withAttempts(trade)] });
  }
  return rows.sort((a, b) => b.startedAt - a.startedAt).slice(0, options.limit);
}
