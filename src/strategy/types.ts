/** Strategies as the engine runs them: tokens resolved to addresses and decimals, amounts in raw units. */
import type { Address } from 'viem';
import type { TokenInfo } from '../units.ts';
import type { PositionManagerOf } from '../pools/uniswap-v3/position.ts';

export type Schedule = {
  everyMs?: number;
  cron?: string;
  jitterMs: number;
  catchUp: 'once' | 'skip';
  /** On a fresh ledger: run the current slot at start (`now`), or wait for the next one (`slot`). */
  firstRun: 'now' | 'slot';
  startMs?: number;
  endMs?: number;
  /** Starts are spread over this much of each slot, by strategy id (0 or absent: at the slot itself). */
  spreadMs?: number;
  /** A run that cannot start this long after its planned start is reported missed (absent: never). */
  latenessMs?: number;
};

/**
 * An order worked in slices over time (engine/worked-order.ts): each slice as large as the best route takes within
 * `maxImpactBps` of the reference, `everyMs` apart, the whole within `withinMs` of its first slice.
 */
export type SplitOrders = { maxImpactBps: number; withinMs: number; everyMs: number };

type Common = {
  id: string;
  wallet: string;
  schedule: Schedule;
  slippageBps: number;
  /** The strategy's own price tolerance (else the file's default). */
  maxPriceDeviationBps?: number;
};

export type DcaStrategy = Common & {
  kind: 'dca';
  sell: TokenInfo;
  amount: bigint;
  buy: TokenInfo;
  minPrice?: string;
  budget?: { perDay?: bigint; total?: bigint };
  split?: SplitOrders;
};

export type RebalanceStrategy = Common & {
  kind: 'rebalance';
  targets: { token: TokenInfo; weight: number }[];
  quote: TokenInfo;
  driftBps: number;
  /** In the quote token's raw units. */
  minTrade: bigint;
  split?: SplitOrders;
};

export type LimitStrategy = Common & {
  kind: 'limit';
  sell: TokenInfo;
  amount: bigint;
  buy: TokenInfo;
  takeProfit?: string;
  stopLoss?: string;
  repeat: boolean;
  expiresMs?: number;
  split?: SplitOrders;
};

export type CompoundStrategy = Common & {
  kind: 'compound';
  gauge: { address: Address; pool: Address; rewardToken: TokenInfo };
  valueToken: TokenInfo;
  /** In the value token's raw units. */
  minRewardValue: bigint;
  exit?: { to: TokenInfo; atMs?: number };
};

/**
 * A Uniswap V3 position of the wallet's, kept by the daemon (strategy/v3-position.ts decides on it). The file offers
 * compounding; the decision also knows keeping the range and leaving, which the file offers once their steps run.
 */
export type V3PositionStrategy = Common & {
  kind: 'uniswap-v3-position';
  /** The chain data's position manager, with the factory whose pools it makes and their init code hash. */
  positionManager: PositionManagerOf;
  /** The file's position; none when the strategy opens its own (`open`). */
  positionId?: bigint;
  /**
   * A position to open once, when the wallet holds none of liquidity in the pool: its range (ticks, or basis points
   * below and above the reference price when it opens), and at most these amounts (raw).
   */
  open?: {
    range: { tickLower: number; tickUpper: number } | { belowBps: number; aboveBps: number };
    amounts: { amount0: bigint; amount1: bigint };
    /** The positions the file's other strategies name in the same position manager: theirs, not an opening of this one. */
    beside?: readonly bigint[];
  };
  /** The position's pool, as the chain says (its tokens in the pool's order). */
  pool: { address: Address; token0: TokenInfo; token1: TokenInfo; fee: number; tickSpacing: number };
  /** Fees and gas are valued in this token. */
  valueToken: TokenInfo;
  compound?: { minFeesToGas: number };
  keepInRange?: { outsideMs: number; oldPosition: 'burn' | 'keep' };
  /** At a time, or once one raw unit of token0 is worth at most `below` / at least `above` raw units of token1 (as √price × 2⁹⁶). */
  exit?: { atMs?: number; belowSqrtPriceX96?: bigint; aboveSqrtPriceX96?: bigint; to?: TokenInfo };
};

export type Strategy = DcaStrategy | RebalanceStrategy | LimitStrategy | CompoundStrategy | V3PositionStrategy;

/**
 * One trade a strategy wants, before it becomes a ledger intent. `amountIn: 'previous-output'` is what the
 * run's previous trade paid (a compound deposits exactly what its claim paid, never other funds).
 */
export type PlannedTrade = {
  /** Distinguishes several trades of one run; part of the intent id. */
  key: string;
  kind: 'swap' | 'deposit' | 'withdraw' | 'claim';
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint | 'previous-output';
  /** The strategy's floor in raw tokenOut (a price limit, a take-profit level), for swaps. */
  minAmountOut?: bigint;
};

export type Decision = { trades: PlannedTrade[]; note: string };
