/**
 * Trades in words, for people: amounts in human units with symbols ("sold 10 cUSD for 19.94 CELO"). Logs,
 * `once` and `history` use these; the raw amounts stay in the structured fields and the JSON forms. Each kind says
 * what it asked and what it did (src/trade/kinds/); this says how the trade ended.
 */
import { type Settlement, type TradeState, isPositionTrade } from '../model/trade.ts';
import type { Asked } from './kinds/kind.ts';
import { kindOf } from './kinds/registry.ts';
import type { TokenNames } from './token-names.ts';

export { TokenNames } from './token-names.ts';

type Described = {
  trade: Asked;
  status: TradeState | 'skipped';
  reason?: string;
  expectedOut?: bigint;
  minOut?: bigint;
  amountOut?: bigint;
  /** What a position trade moved of each token, as its settlement read it. */
  moved?: Settlement['position'];
};

/** One headline per trade: what it did, or what it would have done and why it did not. */
export function describeTrade(report: Described, names: TokenNames): string {
  const { trade } = report;
  const kind = kindOf(trade);
  const asked = () => kind.asked(trade, names);
  const done = () => kind.done(trade, report.amountOut, names, report.moved);
  // A position trade's minimums are one per token, in its call: no single "at least" of tokenOut to show.
  const minimum = report.minOut === undefined || isPositionTrade(trade) ? '' : ` (at least ${names.amount(report.minOut, trade.tokenOut)})`;
  switch (report.status) {
    case 'confirmed':
      return `filled: ${done()}${minimum}`;
    case 'dry-run':
      return `dry run: would ${asked()}${report.expectedOut === undefined ? '' : `, about ${names.amount(report.expectedOut, trade.tokenOut)}`}${minimum}`;
    case 'refused':
      return `refused: ${asked()}: ${report.reason ?? 'a guard said no'}`;
    case 'anomaly':
      return `anomaly: ${done()}, but ${report.reason ?? 'the outcome cannot be trusted'}`;
    case 'skipped':
      return `skipped: ${report.reason ?? 'the slot already ran'}`;
    default:
      return `${report.status}: ${asked()}${report.reason ? `: ${report.reason}` : ''}`;
  }
}
