/** How trades are executed: the user's settings that apply to every trade of a wallet. */
import type { Budget } from '../guard/guards.ts';

export type ApprovalMode = 'exact' | 'unlimited';

export type ExecutionSettings = {
  dryRun: boolean;
  approvals: ApprovalMode;
  /** A quote's deadline must leave at least minSeconds to be mined, and be at most maxSeconds away. */
  deadline: { minSeconds: number; maxSeconds: number };
  feeCap?: bigint;
  /**
   * A trade interrupted before it was signed (a stop, a crash) is resumed at the next start when it was
   * claimed less than this long ago; an older one is closed as failed, and its strategy's next slot decides anew.
   */
  resumeWithinMs: number;
  /** How far below the independent price reference a quote may pay, in basis points (a strategy may say otherwise). */
  maxPriceDeviationBps: number;
};

export const defaultExecutionSettings: ExecutionSettings = {
  dryRun: false,
  approvals: 'exact',
  deadline: { minSeconds: 30, maxSeconds: 30 * 60 },
  resumeWithinMs: 15 * 60_000,
  maxPriceDeviationBps: 100,
};

/** The budgets that apply to a trade: its strategy's, and its wallet's. */
export type TradeBudgets = { strategy?: (strategyId: string) => readonly Budget[]; wallet?: readonly Budget[] };
