import { toJson } from '../json.ts';
import { Ledger, type LedgerView, type RunRecord, runOutcomeOf } from '../ledger/ledger.ts';
import type { Attempt } from '../model/attempt.ts';
import { TokenNames, describeTrade } from '../trade/describe.ts';
import type { TradeRecord } from '../model/trade.ts';
import { parseCommandArgs, parseIntegerOption } from './command.ts';
import { ledgerLocationFor, ledgerOptions } from './ledger-file.ts';
import { parseTradeSlot } from '../model/trade-slot.ts';

type TradeWithAttempts = TradeRecord & { attempts: Attempt[] };
/** A run and its trades; trades recorded without a run (by an older version, or by hand) stand as their own row. */
type HistoryRow = Omit<RunRecord, 'id'> & { trades: TradeWithAttempts[] };

/** `routekeeper history`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('history', argv, {
    json: { type: 'boolean' },
    limit: { type: 'string' },
    strategy: { type: 'string' },
    ...ledgerOptions,
  });
  const limit = parseIntegerOption('limit', values.limit, { min: 1, max: 100_000 }) ?? 50;
  const ledger = await Ledger.openReadOnly(await ledgerLocationFor(values));
  const file = ledger.location;
  try {
    const rows = await historyRows(ledger, { limit, strategyId: values.strategy });
    if (values.json) {
      console.log(toJson(rows));
      return 0;
    }
    const names = new TokenNames(await ledger.marks.tokenNames());
    if (rows.length === 0) {
      console.log(`no runs recorded in ${file}${values.strategy ? ` for ${values.strategy}` : ''}`);
      return 0;
    }
    console.log(`${file}: the last ${rows.length} runs${values.strategy ? ` of ${values.strategy}` : ''}, newest first (times in UTC)`);
    const width = Math.max(8, ...rows.map((row) => row.strategyId.length));
    console.log(`${'started'.padEnd(24)}  ${'strategy'.padEnd(width)}  ${'slot'.padEnd(24)}  ${'outcome'.padEnd(11)}  what happened`);
    for (const row of rows) {
      const note = row.note ?? (row.finishedAt === undefined && row.trades.length === 0 ? 'the process stopped during the run' : '');
      console.log(
        `${new Date(row.startedAt).toISOString()}  ${row.strategyId.padEnd(width)}  ${row.slot.padEnd(24)}  ${(row.outcome ?? 'interrupted').padEnd(11)}  ${note}`,
      );
      for (const trade of row.trades) {
        const why = trade.anomaly ?? trade.failure?.reason;
        const amountOut = trade.settlement?.amountOut;
        const described = describeTrade(
          {
            trade,
            status: trade.status,
            reason: why,
            expectedOut: trade.call?.expectedOut,
            minOut: trade.call?.minOut,
            amountOut,
            moved: trade.settlement?.position,
          },
          names,
        );
        console.log(`    ${trade.id}  ${described}${trade.settlement ? `  tx ${trade.settlement.txHash}` : ''}`);
        for (const attempt of trade.attempts) console.log(`        ${attempt.purpose} nonce ${attempt.nonce} ${attempt.status} ${attempt.hash}`);
      }
    }
    return 0;
  } finally {
    await ledger.close();
  }
}

/** The newest runs with their trades, and trades that belong to no recorded run, newest first. */
export async function historyRows(ledger: LedgerView, options: { limit: number; strategyId?: string }): Promise<HistoryRow[]> {
  const withAttempts = async (trade: TradeRecord): Promise<TradeWithAttempts> => ({ ...trade, attempts: await ledger.attempts.ofTrade(trade.id) });
  const runs = await ledger.runs.list(options);
  const tradesByRun = await ledger.trades.ofRuns(runs);
  const rows: HistoryRow[] = [];
  for (const { id, ...run } of runs) rows.push({ ...run, trades: await Promise.all((tradesByRun.get(id) ?? []).map(withAttempts)) });
  const inRuns = new Set(rows.flatMap((row) => row.trades.map((trade) => trade.id)));
  const runSlotOf = (trade: TradeRecord) => ({ strategyId: trade.strategyId, slot: parseTradeSlot(trade.slot).runSlot });
  const loose = (await ledger.trades.history(options)).filter((trade) => !inRuns.has(trade.id));
  // A trade of a run older than the rows shown is left out with its run, not shown on its own.
  const withRun = await ledger.runs.existing(loose.map(runSlotOf));
  for (const trade of loose) {
    const { strategyId, slot } = runSlotOf(trade);
    if (withRun.has(`${strategyId}\n${slot}`)) continue;
    rows.push({
      strategyId: trade.strategyId,
      slot: trade.slot,
      startedAt: trade.createdAt,
      finishedAt: trade.updatedAt,
      outcome: runOutcomeOf(trade.status),
      trades: [await withAttempts(trade)],
    });
  }
  return rows.sort((a, b) => b.startedAt - a.startedAt).slice(0, options.limit);
}
