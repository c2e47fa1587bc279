/** What the checks are given, and what a trade that passed them carries to its signature: the types of check.ts and kinds/position/check.ts. */
import type { Preflight } from '../chain/preflight.ts';
import type { Fees } from '../chain/fees.ts';
import type { Wallet } from '../chain/wallet.ts';
import type { RouteVerifier } from '../guard/route.ts';
import type { PriceReference } from '../price/reference.ts';
import type { NeededApproval } from './approvals.ts';
import type { BuiltCall } from './call-types.ts';
import type { Reference } from './reference.ts';
import type { ExecutionSettings, TradeBudgets } from './settings.ts';

export type CheckContext = {
  wallet: Wallet;
  /** The chain's known contracts and tokens, and the on-chain facts that tie a route to them. */
  routes: RouteVerifier;
  /** The independent price reference. */
  prices: PriceReference;
  settings: ExecutionSettings;
  budgets: TradeBudgets;
  /** How far below the reference a quote may pay (basis points), for this trade's strategy. */
  priceToleranceBps: number;
  signal?: AbortSignal;
};

/** A trade that passed every check: the call, the approvals it needs, and the chain as the checks read it. */
export type Checked = {
  call: BuiltCall;
  /** What the trade should pay at the independent reference (claims have none). */
  reference?: Reference;
  /** Set when the spender's allowance is short: approve first, on the nonce before the trade. */
  approvals: NeededApproval[];
  reads: Preflight;
  fees: Fees;
  /** The trade's gas, from the simulation (undefined: simulate again once its approvals are mined). */
  gas: { trade?: bigint };
  simulatedOut?: bigint;
  /** The names of the checks it passed, in the order they ran (check-runner.ts). */
  passed: string[];
};
