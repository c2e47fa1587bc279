/**
 * One trade, from the strategy's decision to its settlement: one kind-discriminated value the ledger stores
 * in typed columns, and the state it has reached. Every stage of the pipeline (src/trade/pipeline.ts)
 * advances the state; a run that stopped midway is a stored state that the same pipeline resumes.
 */
import type { Address, Hex } from 'viem';
import type { RefusalReason } from './refusal-reasons.ts';
import type { FailureClass } from './failure-classes.ts';

export type TradeKind = 'swap' | 'deposit' | 'withdraw' | 'claim' | 'collect' | 'add-liquidity' | 'remove-liquidity' | 'mint' | 'move-position';

/** The kinds that act on a Uniswap V3 position (an NFT of a position manager) rather than swap through a router. */
export const positionKinds = ['collect', 'add-liquidity', 'remove-liquidity', 'mint', 'move-position'] as const satisfies readonly TradeKind[];

type TradeBase = {
  /** `<strategy id>:<slot>`: one trade per slot, ever. */
  id: string;
  strategyId: string;
  slot: string;
  wallet: Address;
  chainId: number;
  amountIn: bigint;
  slippageBps: number;
};

/** Sell `amountIn` of tokenIn for tokenOut through the router. */
export type SwapTrade = TradeBase & {
  kind: 'swap';
  tokenIn: Address;
  tokenOut: Address;
  /** The strategy's own floor (a price limit or take-profit level) in raw tokenOut. */
  minAmountOut?: bigint;
  /** A slice of an order worked in slices (engine/worked-order.ts): the order, as it started. */
  order?: OrderStart;
};

/**
 * An order worked in slices as it started: its whole amount, and what the routing service quoted for all of it on one
 * route then, what splitting is measured against in `status`. The service's word, stored for that figure alone: it
 * decides nothing, and the request's tag does not cover it.
 */
export type OrderStart = { amountIn: bigint; oneRouteOut: bigint };

/** Turn `amountIn` of tokenIn into the position token `tokenOut` (an LP or gauge token) through OneClickFarm. */
export type DepositTrade = TradeBase & { kind: 'deposit'; tokenIn: Address; tokenOut: Address };

/** Leave `amountIn` of the position token `tokenIn` for tokenOut, in one OneClickFarm transaction. */
export type WithdrawTrade = TradeBase & { kind: 'withdraw'; tokenIn: Address; tokenOut: Address };

/** Claim a gauge's rewards: `tokenIn` is the gauge, `tokenOut` its reward token, `amountIn` the rewards observed. */
export type ClaimTrade = TradeBase & { kind: 'claim'; tokenIn: Address; tokenOut: Address };

/** A Uniswap V3 position: the chain data's position manager, and its NFT's id. */
export type PositionRef = { positionManager: Address; positionId: bigint };

/** What every trade on a V3 position names: the position, its pool's token0 (`tokenIn`) and token1 (`tokenOut`), and the token1 amount beside `amountIn`. */
type OnPosition = TradeBase & { position: PositionRef; tokenIn: Address; tokenOut: Address; amountIn1: bigint };

/**
 * Collect everything a V3 position owes to the wallet (its fees, and what a removal freed): `tokenIn` is the
 * position's token0, `tokenOut` its token1. Nothing leaves the wallet: `amountIn` and `amountIn1` are 0 (budgets and
 * the balance check count what a trade spends); what it collected is its settlement's `position`.
 */
export type CollectTrade = OnPosition & { kind: 'collect' };

/** Add up to `amountIn` of the position's token0 (`tokenIn`) and `amountIn1` of its token1 (`tokenOut`) to a V3 position. */
export type AddLiquidityTrade = OnPosition & { kind: 'add-liquidity' };

/**
 * Take `liquidity` out of a V3 position and collect everything it then owes to the wallet, in one transaction (the
 * manager's multicall: nothing is left removed but uncollected), then burn the emptied NFT when `burn`. Nothing
 * leaves the wallet: `amountIn` and `amountIn1` are 0; what it paid is its settlement's `position`.
 */
export type RemoveLiquidityTrade = OnPosition & {
  kind: 'remove-liquidity';
  liquidity: bigint;
  burn: boolean;
};

/** A tick range of a V3 pool: [tickLower, tickUpper). */
export type PositionRange = { tickLower: number; tickUpper: number };

/**
 * Open a new position in the pool of `tokenIn` (token0), `tokenOut` (token1) and `fee`, over `range`, with up to
 * `amountIn` and `amountIn1`, the NFT minted to the wallet. `position` is the one it replaces (a re-range's old
 * position): the new NFT's id is read from the receipt, as its settlement's `position.positionId`.
 */
export type MintTrade = OnPosition & {
  kind: 'mint';
  fee: number;
  range: PositionRange;
};

/**
 * Move a V3 position in one transaction, all or nothing, through the chain data's position mover (our contract,
 * deployed from the wallet): `liquidity` removed and everything owed collected, `amountIn` of token0 (`tokenIn`) or
 * `amountIn1` of token1 (`tokenOut`) sold for the other through a checked route (at most one of them; none: no
 * swap), then, with `mint`, a new range of the same pool minted to the wallet from all of it (a re-range), or without,
 * everything paid to the wallet (an exit, whose sale takes all the mover then holds of the token, at least the amount
 * asked). The old NFT comes back to the wallet emptied, or is burned with `burn`.
 * Nothing leaves the wallet but the NFT, which the mover returns or burns in the same transaction.
 */
export type MovePositionTrade = OnPosition & {
  kind: 'move-position';
  liquidity: bigint;
  burn: boolean;
  mint?: { fee: number; range: PositionRange };
};

export type PositionTrade = CollectTrade | AddLiquidityTrade | RemoveLiquidityTrade | MintTrade | MovePositionTrade;

export type Trade = SwapTrade | DepositTrade | WithdrawTrade | ClaimTrade | PositionTrade;

export const isPositionTrade = (trade: Pick<Trade, 'kind'>): trade is PositionTrade => (positionKinds as readonly TradeKind[]).includes(trade.kind);

/**
 * Where a trade is. Before `signed` nothing can have reached the chain; from `signed` on, the stored
 * attempts decide. `confirmed`, `anomaly`, `refused`, `failed` and `dry-run` are final.
 */
export type TradeState =
  | 'claimed' // the slot is taken; being quoted and checked
  | 'checked' // every guard and the simulation passed; the exact call is stored
  | 'signed' // transactions signed and stored; maybe not broadcast
  | 'broadcast' // maybe in a mempool: only the chain can settle it
  | 'unknown' // signed and maybe mined, but the chain has not shown what happened (no trusted receipt, node errors)
  | 'confirmed' // mined and paid what the receipt's logs say
  | 'anomaly' // mined, but what the wallet received cannot be read, or disagrees with the router's event
  | 'refused' // a guard said no; nothing was signed
  | 'failed' // ended without a trade: reverted, cancelled, or failed before signing
  | 'dry-run'; // checked and simulated, never signed

export const openStates: readonly TradeState[] = ['claimed', 'checked', 'signed', 'broadcast', 'unknown'];
/** States in which a trade may have traded: they count against budgets and one-shot orders, and block their strategy until settled. */
export const maybeTradedStates: readonly TradeState[] = ['signed', 'broadcast', 'unknown'];
export const presignStates: readonly TradeState[] = ['claimed', 'checked'];

/** The exact call that passed the checks: what we sign, and what settlement needs to read its outcome. */
export type CheckedCall = {
  /** The contract we call: router, OneClickFarm, or the gauge for a claim. */
  target: Address;
  /** Who pulls `amountIn` of tokenIn from the wallet; none for a claim. */
  spender?: Address;
  data: Hex;
  expectedOut: bigint;
  minOut: bigint;
  /** What the independent price reference said the trade should pay (none for a claim). */
  referenceOut?: bigint;
  /** The earliest deadline inside the call (Unix seconds); none for a claim or a collect. */
  deadline?: bigint;
  /**
   * An add to a V3 position: `minOut` is the least token0 it may take, `minOut1` the least token1 (both from the
   * reference price, never the pool's), and `expectedOut` the liquidity the amounts buy at the reference.
   */
  minOut1?: bigint;
  /** The router the route runs through (swaps, and the legs of deposits and withdrawals). */
  router?: Address;
  farm?: Address;
};

/** What a mined transaction did, read from its receipt. */
export type Settlement = {
  txHash: Hex;
  blockNumber: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  /** Sum of tokenOut's Transfer logs to the wallet in the receipt. */
  amountOut?: bigint;
  /** What the router's Swap event (either version) says it paid the wallet, for swaps. */
  reportedOut?: bigint;
  /** tokenOut the router paid to others than the wallet (a routing partner's fee), for swaps. */
  partnerFee?: bigint;
  /**
   * What a position trade moved, as the position manager's events say (and the wallet's transfers agree): token0,
   * token1, the liquidity an add or a mint bought (or a removal took out), the id of the NFT a mint made, and of a
   * removal's amounts what its liquidity freed (the rest of what it collected is fees).
   */
  /**
   * What a position trade moved: collected (or taken, for an add or a mint), the liquidity and NFT it made, what a
   * removal's liquidity freed, and what a move's mint put into its new position.
   */
  position?: { amount0: bigint; amount1: bigint; liquidity?: bigint; positionId?: bigint; freed0?: bigint; freed1?: bigint; added0?: bigint; added1?: bigint };
};

/** Why a trade ended without one: the refusing guard, or the class of the error and whether it may pass. */
export type Failure = { reason: string; refusal?: RefusalReason; errorClass?: FailureClass; retryable: boolean };

/** A trade as the ledger holds it. */
export type TradeRecord = Trade & {
  status: TradeState;
  call?: CheckedCall;
  simulatedOut?: bigint;
  settlement?: Settlement;
  failure?: Failure;
  /** Why the outcome cannot be trusted (state `anomaly`). */
  anomaly?: string;
  /** The wallet's authentication tags of the request and the checked call, as stored (record-tags.ts). */
  tags?: { request?: Hex; call?: Hex };
  createdAt: number;
  updatedAt: number;
};

/** A stage's name and time, for the run's report and the metrics. */
export type StageTiming = { stage: string; ms: number; ok: boolean };

/** What one run of the pipeline did to one trade, written even when it failed. */
/** A wallet's balances at one block, as the check after a trade read them (the metrics use them: no second read). */
export type WalletBalances = { blockNumber: bigint; tokens: { token: Address; balance: bigint }[]; native: bigint };

export type TradeReport = {
  intentId: string;
  /** What was asked: the kind, the tokens and the amount in, for telling people what happened. */
  trade: Pick<Trade, 'kind' | 'tokenIn' | 'tokenOut' | 'amountIn'>;
  /** The state reached, or `skipped` when the slot already had its trade. */
  status: TradeState | 'skipped';
  reason?: string;
  refusal?: RefusalReason;
  /** The checks it passed, by name, in the order they ran (src/trade/check-runner.ts). */
  checks?: string[];
  /** The check that refused it, by name. */
  refusedBy?: string;
  /** The class of the error that ended or interrupted it. */
  errorClass?: FailureClass;
  expectedOut?: bigint;
  referenceOut?: bigint;
  minOut?: bigint;
  simulatedOut?: bigint;
  amountOut?: bigint;
  /** What a position trade moved of the position's two tokens (and the liquidity an add bought), as settled. */
  moved?: Settlement['position'];
  txHash?: Hex;
  /** Gas paid by the mined transactions of this trade, in wei of the native coin. */
  gasCostWei?: bigint;
  /** The wallet's balances at the trade's block, as the check after it read them. */
  balancesAfter?: WalletBalances;
  stages: StageTiming[];
};
