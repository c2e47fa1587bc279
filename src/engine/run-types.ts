/** What a strategy's run is given and what it reports: the types of runner.ts and position-runner.ts. */
import type { RunGate } from '../ledger/ledger.ts';
import type { MarkStore } from '../ledger/marks.ts';
import type { TradeReport } from '../model/trade.ts';
import type { PipelineDeps } from '../trade/pipeline.ts';
import type { MarketView } from './observe.ts';

/**
 * What one run of a strategy did: its trades, and the words for people (`note`). `heldBy`: the run did not look
 * at all, held by a pause, or by a trade of the strategy whose outcome is not known yet (decided here, never read
 * back from the words). `anomaly`: a row of the wallet's history failed its proof as the run read what was done
 * (trade/wallet-history.ts): the strategy and the wallet were paused, the row named here.
 */
export type RunReport = { strategyId: string; slot: string; note: string; trades: TradeReport[]; heldBy?: 'pause' | 'unknown-outcome'; anomaly?: string };

/**
 * `run`: the ledger's run this is (its trades name it), with its gate as read when it started; without one, the
 * gate is read here. `positionMarks`: where a V3 position's run records what it observed, for the status (none:
 * not recorded).
 */
export type RunDeps = {
  executor: PipelineDeps;
  view: MarketView;
  signal?: AbortSignal;
  run?: { id: number; gate: RunGate };
  positionMarks?: Pick<MarkStore, 'recordPosition'>;
  /** How a worked order waits between its slices (engine/worked-order.ts; default: that long, or until stopped). */
  pace?: (ms: number, signal?: AbortSignal) => Promise<void>;
};
