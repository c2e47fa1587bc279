/**
 * The ledger's tables as the query builder sees them: one type per table, column for column. Amounts are
 * decimal strings (exact in both dialects), times are milliseconds, addresses and hashes lower case.
 */
import type { Generated } from 'kysely';
import type { Address, Hex } from 'viem';
import type { RefusalReason } from '../model/refusal-reasons.ts';
import type { TradeKind, TradeState } from '../model/trade.ts';
import type { AttemptPurpose, AttemptStatus } from '../model/attempt.ts';

/** How a run ended (what its trades reached, or why it traded nothing), decided once, with the words for people. */
export const runOutcomes = {
  traded: 'traded',
  nothing: 'nothing to do',
  refused: 'a guard refused its trade',
  failed: 'its trade failed',
  error: 'an error stopped it before it traded',
  unknown: "its trade's outcome is not known yet",
  anomaly: 'its trade is an anomaly: strategy and wallet paused',
  paused: 'paused: it did not look',
  waiting: "waiting on an earlier trade's outcome: it did not look",
  'dry-run': 'checked and simulated, never signed (dry run)',
  skipped: 'its slot already had its trade',
  interrupted: 'stopped midway: resumed at the next start',
  missed: 'its slot passed before it could start',
} as const;

export type RunOutcome = keyof typeof runOutcomes;

export type IntentsTable = {
  /** strategy id + ':' + slot: one run, at most one trade per key */
  id: string;
  strategy_id: string;
  slot: string;
  /** The run that claimed it (none in ledgers written before runs were tied to their trades). */
  run_id: number | null;
  kind: TradeKind;
  wallet: Address;
  chain_id: number;
  token_in: Address;
  token_out: Address;
  amount_in: string;
  slippage_bps: number;
  min_amount_out: string | null;
  status: TradeState;
  target: Address | null;
  spender: Address | null;
  call_data: Hex | null;
  router: Address | null;
  farm: Address | null;
  expected_out: string | null;
  min_out: string | null;
  deadline: string | null;
  simulated_out: string | null;
  reference_out: string | null;
  amount_out: string | null;
  reported_out: string | null;
  partner_fee: string | null;
  tx_hash: Hex | null;
  block_number: number | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  reason: string | null;
  refusal: RefusalReason | null;
  error_class: string | null;
  retryable: number;
  anomaly: string | null;
  created_at: number;
  updated_at: number;
  /** The wallet's authentication tags of the request and of the checked call (null: none yet, or written before tags). */
  request_tag: Hex | null;
  call_tag: Hex | null;
  /** A position trade's position manager and NFT id; an add's or a collect's token1 amount asked. */
  position_manager: Address | null;
  position_id: string | null;
  amount_in_1: string | null;
  /** An add's least token1 (min_out holds its least token0). */
  min_out_1: string | null;
  /** What a position trade moved, as the position manager's event said: token0, token1, an add's liquidity. */
  moved_0: string | null;
  moved_1: string | null;
  moved_liquidity: string | null;
  /** A removal's liquidity taken out, and whether it burns the emptied NFT (1) or keeps it (0). */
  remove_liquidity: string | null;
  burn_position: number | null;
  /** A mint's pool fee tier and range. */
  fee_tier: number | null;
  tick_lower: number | null;
  tick_upper: number | null;
  /** The id of the NFT a mint made, as its receipt said. */
  moved_position_id: string | null;
  /** What a removal's liquidity freed, token0 and token1 (its DecreaseLiquidity event); the rest of its collect is fees. */
  moved_freed_0: string | null;
  moved_freed_1: string | null;
  moved_added_0: string | null;
  moved_added_1: string | null;
  /** A slice of an order worked in slices: the order's whole amount, and the service's one-route quote for it at its start. */
  order_amount: string | null;
  order_one_route_out: string | null;
};

export type AttemptsTable = {
  id: Generated<number>;
  intent_id: string;
  purpose: AttemptPurpose;
  wallet: Address;
  chain_id: number;
  nonce: number;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  gas_limit: string;
  raw_tx: Hex;
  hash: Hex;
  status: AttemptStatus;
  block_number: number | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  /** The daemon that signed it and its lease's epoch (null: signed before leases, or without one). */
  lease_holder: string | null;
  lease_epoch: number | null;
  /** The wallet's tag of it (migration 17; absent on a ledger not yet migrated). */
  tag?: Hex | null;
};

export type EventsTable = { id: Generated<number>; at: number; kind: string; intent_id: string | null; details: string };

export type OwnerLockTable = { id: number; owner: string; pid: number; host: string; heartbeat: number };

export type PausesTable = { scope: 'strategy' | 'wallet'; key: string; reason: string; intent_id: string | null; paused_at: number };

export type ChainTable = { id: number; chain_id: number; genesis_hash: Hex; bound_at: number };

export type RunsTable = {
  id: Generated<number>;
  strategy_id: string;
  slot: string;
  started_at: number;
  finished_at: number | null;
  outcome: RunOutcome | null;
  note: string | null;
};

export type TokensTable = { address: Address; symbol: string; decimals: number };

export type PricesTable = { at: number; block: number; token: string; usd_e18: string; source: string };

export type BalancesTable = { at: number; block: number; wallet: Address; token: Address; balance: string };

/**
 * A V3 position as a run of its strategy observed it: its range, the pool's tick, what it holds at the pool's price
 * (its liquidity's tokens and the fees owed), and the pool's seconds-inside counter for its range (uint32, wrapping;
 * null when the range's ticks are not initialized), at a block and its chain time.
 */
export type PositionMarksTable = {
  at: number;
  block: number;
  block_time: number;
  strategy_id: string;
  position_id: string;
  tick_lower: number;
  tick_upper: number;
  tick: number;
  amount0: string;
  amount1: string;
  seconds_inside: number | null;
  fees0: string | null;
  fees1: string | null;
};

export type StrategiesTable = { id: string; kind: string; wallet_name: string; wallet: Address; definition: string; first_seen: number; last_seen: number };

export type LedgerMetaTable = { key: string; value: string };

export type WalletLeasesTable = { chain_id: number; wallet: Address; holder: string; epoch: number; expires_at: number };

export type DaemonsTable = {
  holder: string;
  host: string;
  pid: number;
  started_at: number;
  renewed_at: number;
  wallets: number;
  ready: number;
  strategy_file: string;
  strategy_digest: string;
};

export type LedgerTables = {
  intents: IntentsTable;
  attempts: AttemptsTable;
  events: EventsTable;
  owner_lock: OwnerLockTable;
  pauses: PausesTable;
  chain: ChainTable;
  runs: RunsTable;
  tokens: TokensTable;
  prices: PricesTable;
  balances: BalancesTable;
  position_marks: PositionMarksTable;
  strategies: StrategiesTable;
  ledger_meta: LedgerMetaTable;
  wallet_leases: WalletLeasesTable;
  daemons: DaemonsTable;
};
