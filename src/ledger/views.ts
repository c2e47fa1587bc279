/**
 * Slices of the ledger, by what a layer may do with it. The stores hold every read and write; a layer is handed
 * the slice its job needs, so what it cannot write is said by its type: status and the read-only commands get
 * `LedgerView` (reads only), the pipeline `TradeReads` (the reads it makes) beside its one writer, the trade
 * recorder (trade/recorder.ts).
 */
import type { AttemptStore } from './attempts.ts';
import type { DaemonStore } from './daemons.ts';
import type { EventStore } from './events.ts';
import type { LeaseStore } from './leases.ts';
import type { MarkStore } from './marks.ts';
import type { PauseStore } from './pauses.ts';
import type { RunStore } from './runs.ts';
import type { StrategyStore } from './strategies.ts';
import type { TradeStore } from './trades.ts';
import type { ChainIdentity } from '../model/attempt.ts';

/** Everything the ledger can tell, and nothing that changes it: `status`, `history`, `daemons` and the status page. */
export type LedgerView = {
  /** Where this ledger lives, as people read it. */
  readonly location: string;
  readonly trades: Pick<TradeStore, 'get' | 'all' | 'changedSince' | 'history' | 'ofRuns' | 'ofStrategy' | 'unfinished'>;
  readonly attempts: Pick<AttemptStore, 'ofTrade' | 'byHash' | 'gasOf' | 'gasByTrade' | 'signedSince' | 'ofWallet' | 'signedFrom'>;
  readonly runs: Pick<RunStore, 'byIds' | 'existing' | 'list' | 'since'>;
  readonly pauses: Pick<PauseStore, 'all' | 'for'>;
  readonly marks: Pick<MarkStore, 'balanceAt' | 'balances' | 'prices' | 'positionMarks' | 'tokenNames'>;
  readonly strategies: Pick<StrategyStore, 'all' | 'meta' | 'stamp'>;
  readonly leases: Pick<LeaseStore, 'all'>;
  readonly daemons: Pick<DaemonStore, 'all' | 'live'>;
  readonly events: Pick<EventStore, 'list'>;
  chain(): Promise<ChainIdentity | undefined>;
  close(): Promise<void>;
};

/**
 * The reads a strategy's run and its trades' pipeline make: the run's gate (paused, or waiting on a trade), a trade
 * and its attempts read back, the wallet's open trades, the strategy's trades, the pauses.
 */
export type TradeReads = {
  readonly runs: Pick<RunStore, 'gate'>;
  readonly trades: Pick<TradeStore, 'get' | 'unfinished' | 'walletRows'>;
  readonly attempts: Pick<AttemptStore, 'ofTrade' | 'byHash'>;
  readonly pauses: Pick<PauseStore, 'for'>;
};
