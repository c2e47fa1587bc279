/**
 * Rows to records and back: the ledger stores amounts as decimal strings and addresses in lower case (normalised
 * here, once, on the way in); records carry bigints and the trade's typed parts.
 */
import type { Selectable } from 'kysely';
import type { Address, Hex } from 'viem';
import { scrub } from '../ops/secrets.ts';
import type { CheckedCall, Failure, Settlement, Trade, TradeRecord } from '../model/trade.ts';
import { termsOf } from '../model/kinds/registry.ts';
import type { CommonTerms, KindTerms } from '../model/kinds/terms.ts';
import { failureClassStored } from '../model/failure-classes.ts';
import type { AttemptsTable, IntentsTable } from './tables.ts';
import type { Attempt, NewAttempt } from '../model/attempt.ts';

/** An address or hash as the ledger stores it (lower case), whatever case it was given in. */
export const stored = <T extends Address | Hex>(value: T): T => value.toLowerCase() as T;
export const storedOrNull = <T extends Address | Hex>(value: T | undefined): T | null => (value === undefined ? null : stored(value));

/** A raw amount as stored (decimal string), or null. */
export const amount = (value: bigint | undefined): string | null => (value === undefined ? null : value.toString());
const bigOrUndefined = (value: string | null) => (value === null ? undefined : BigInt(value));
const bigOrNull = (value: string | null) => (value === null ? null : BigInt(value));

export type IntentRow = Selectable<IntentsTable>;
export type AttemptRow = Selectable<AttemptsTable>;

/** The columns of a trade as claimed: what was asked. */
export function claimedRow(trade: Trade, runId: number | undefined, now: number, requestTag?: Hex): IntentsTable {
  return {
    id: trade.id,
    strategy_id: trade.strategyId,
    slot: trade.slot,
    run_id: runId ?? null,
    kind: trade.kind,
    wallet: stored(trade.wallet),
    chain_id: trade.chainId,
    token_in: stored(trade.tokenIn),
    token_out: stored(trade.tokenOut),
    amount_in: trade.amountIn.toString(),
    slippage_bps: trade.slippageBps,
    status: 'claimed',
    target: null,
    spender: null,
    call_data: null,
    router: null,
    farm: null,
    expected_out: null,
    min_out: null,
    deadline: null,
    simulated_out: null,
    reference_out: null,
    amount_out: null,
    reported_out: null,
    partner_fee: null,
    tx_hash: null,
    block_number: null,
    gas_used: null,
    effective_gas_price: null,
    reason: null,
    refusal: null,
    error_class: null,
    retryable: 0,
    anomaly: null,
    created_at: now,
    updated_at: now,
    request_tag: requestTag ?? null,
    call_tag: null,
    min_out_1: null,
    moved_0: null,
    moved_1: null,
    moved_liquidity: null,
    moved_position_id: null,
    moved_freed_0: null,
    moved_freed_1: null,
    moved_added_0: null,
    moved_added_1: null,
    ...termColumns(termsOf(trade.kind).terms(trade)),
  };
}

/**
 * A kind's terms (model/kinds/) in their columns, every column named here once: a term no kind of the trade has is
 * null. A new term is a column here, and a migration.
 */
function termColumns(terms: KindTerms) {
  return {
    min_amount_out: amount(terms.minAmountOut),
    position_manager: storedOrNull(terms.positionManager),
    position_id: amount(terms.positionId),
    amount_in_1: amount(terms.amountIn1),
    remove_liquidity: amount(terms.liquidity),
    burn_position: terms.burn === undefined ? null : Number(terms.burn),
    fee_tier: terms.fee ?? null,
    tick_lower: terms.tickLower ?? null,
    tick_upper: terms.tickUpper ?? null,
    order_amount: amount(terms.orderAmount),
    order_one_route_out: amount(terms.orderOneRouteOut),
  };
}

/** A row's terms, as termColumns stored them. */
function termsOfRow(row: IntentRow): KindTerms {
  const defined = <T>(value: T | null) => (value === null ? undefined : value);
  return {
    minAmountOut: bigOrUndefined(row.min_amount_out),
    positionManager: defined(row.position_manager),
    positionId: bigOrUndefined(row.position_id),
    amountIn1: bigOrUndefined(row.amount_in_1),
    liquidity: bigOrUndefined(row.remove_liquidity),
    burn: row.burn_position === null ? undefined : row.burn_position === 1,
    fee: defined(row.fee_tier),
    tickLower: defined(row.tick_lower),
    tickUpper: defined(row.tick_upper),
    orderAmount: bigOrUndefined(row.order_amount),
    orderOneRouteOut: bigOrUndefined(row.order_one_route_out),
  };
}

/** The columns of a checked call, and its tag. */
export function callColumns(call: CheckedCall, callTag?: Hex) {
  return {
    call_tag: callTag ?? null,
    target: stored(call.target),
    spender: storedOrNull(call.spender),
    call_data: call.data,
    router: storedOrNull(call.router),
    farm: storedOrNull(call.farm),
    expected_out: call.expectedOut.toString(),
    min_out: call.minOut.toString(),
    reference_out: amount(call.referenceOut),
    deadline: amount(call.deadline),
    min_out_1: amount(call.minOut1),
  };
}

/** The columns of what the chain showed. */
export function settlementColumns(settlement: Settlement) {
  return {
    tx_hash: stored(settlement.txHash),
    block_number: Number(settlement.blockNumber),
    gas_used: settlement.gasUsed.toString(),
    effective_gas_price: settlement.effectiveGasPrice.toString(),
    amount_out: amount(settlement.amountOut),
    reported_out: amount(settlement.reportedOut),
    partner_fee: amount(settlement.partnerFee),
    moved_0: amount(settlement.position?.amount0),
    moved_1: amount(settlement.position?.amount1),
    moved_liquidity: amount(settlement.position?.liquidity),
    moved_position_id: amount(settlement.position?.positionId),
    moved_freed_0: amount(settlement.position?.freed0),
    moved_freed_1: amount(settlement.position?.freed1),
    moved_added_0: amount(settlement.position?.added0),
    moved_added_1: amount(settlement.position?.added1),
  };
}

/** The columns of why a trade did not trade (or not yet); null clears an earlier one. */
export function failureColumns(failure: Failure | null) {
  return {
    reason: failure ? scrub(failure.reason) : null,
    refusal: failure?.refusal ?? null,
    error_class: failure?.errorClass ?? null,
    retryable: failure?.retryable ? 1 : 0,
  };
}

/** An attempt's row; `lease`: the lease it is signed under (none where a test signs without one). */
export function attemptRow(attempt: NewAttempt, now: number, lease?: { holder: string; epoch: number }): Omit<AttemptsTable, 'id'> {
  return {
    lease_holder: lease?.holder ?? null,
    lease_epoch: lease?.epoch ?? null,
    intent_id: attempt.intentId,
    purpose: attempt.purpose,
    wallet: stored(attempt.wallet),
    chain_id: attempt.chainId,
    nonce: attempt.nonce,
    max_fee_per_gas: attempt.maxFeePerGas.toString(),
    max_priority_fee_per_gas: attempt.maxPriorityFeePerGas.toString(),
    gas_limit: attempt.gasLimit.toString(),
    raw_tx: attempt.rawTx,
    hash: stored(attempt.hash),
    tag: attempt.tag ?? null,
    status: 'signed',
    block_number: null,
    gas_used: null,
    effective_gas_price: null,
    error: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The columns later migrations added (13 on), which a ledger not yet migrated lacks: a reader opened read-only on
 * it (`status` before the daemon's start migrates it) gets them as null, as a row written before them holds.
 */
const lateColumns = [
  'position_manager',
  'position_id',
  'amount_in_1',
  'min_out_1',
  'moved_0',
  'moved_1',
  'moved_liquidity',
  'remove_liquidity',
  'burn_position',
  'fee_tier',
  'tick_lower',
  'tick_upper',
  'moved_position_id',
  'moved_freed_0',
  'moved_freed_1',
  'moved_added_0',
  'moved_added_1',
  'order_amount',
  'order_one_route_out',
] as const satisfies readonly (keyof IntentRow)[];

function withLateColumns(row: IntentRow): IntentRow {
  const filled: Record<string, unknown> = { ...row };
  for (const column of lateColumns) filled[column] ??= null;
  return filled as IntentRow;
}

export function recordFrom(stored: IntentRow): TradeRecord {
  const row = withLateColumns(stored);
  const trade = {
    id: row.id,
    strategyId: row.strategy_id,
    slot: row.slot,
    wallet: row.wallet,
    chainId: row.chain_id,
    tokenIn: row.token_in,
    tokenOut: row.token_out,
    amountIn: BigInt(row.amount_in),
    slippageBps: row.slippage_bps,
  };
  const typed = typedTrade(row, trade);
  const call: CheckedCall | undefined =
    row.target && row.call_data && row.expected_out !== null && row.min_out !== null
      ? {
          target: row.target,
          data: row.call_data,
          expectedOut: BigInt(row.expected_out),
          minOut: BigInt(row.min_out),
          ...(row.reference_out !== null && { referenceOut: BigInt(row.reference_out) }),
          ...(row.spender && { spender: row.spender }),
          ...(row.deadline !== null && { deadline: BigInt(row.deadline) }),
          ...(row.router && { router: row.router }),
          ...(row.farm && { farm: row.farm }),
          ...(row.min_out_1 !== null && { minOut1: BigInt(row.min_out_1) }),
        }
      : undefined;
  const settlement: Settlement | undefined =
    row.tx_hash && row.block_number !== null && row.gas_used !== null && row.effective_gas_price !== null
      ? {
          txHash: row.tx_hash,
          blockNumber: BigInt(row.block_number),
          gasUsed: BigInt(row.gas_used),
          effectiveGasPrice: BigInt(row.effective_gas_price),
          amountOut: bigOrUndefined(row.amount_out),
          reportedOut: bigOrUndefined(row.reported_out),
          partnerFee: bigOrUndefined(row.partner_fee ?? null),
          ...(row.moved_0 !== null &&
            row.moved_1 !== null && {
              position: {
                amount0: BigInt(row.moved_0),
                amount1: BigInt(row.moved_1),
                ...(row.moved_liquidity !== null && { liquidity: BigInt(row.moved_liquidity) }),
                ...(row.moved_position_id !== null && { positionId: BigInt(row.moved_position_id) }),
                ...(row.moved_freed_0 !== null && { freed0: BigInt(row.moved_freed_0) }),
                ...(row.moved_freed_1 !== null && { freed1: BigInt(row.moved_freed_1) }),
                ...(row.moved_added_0 !== null && { added0: BigInt(row.moved_added_0) }),
                ...(row.moved_added_1 !== null && { added1: BigInt(row.moved_added_1) }),
              },
            }),
        }
      : undefined;
  const failure: Failure | undefined =
    row.reason === null
      ? undefined
      : {
          reason: row.reason,
          retryable: row.retryable === 1,
          ...(row.refusal && { refusal: row.refusal }),
          ...(row.error_class && { errorClass: failureClassStored(row.error_class) }),
        };
  return {
    ...typed,
    status: row.status,
    ...(call && { call }),
    ...(row.simulated_out !== null && { simulatedOut: BigInt(row.simulated_out) }),
    ...(settlement && { settlement }),
    ...(failure && { failure }),
    ...(row.anomaly !== null && { anomaly: row.anomaly }),
    ...((row.request_tag || row.call_tag) && { tags: { ...(row.request_tag && { request: row.request_tag }), ...(row.call_tag && { call: row.call_tag }) } }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A trade of its kind from a row, its terms asked of its kind (a row of a kind without the terms it needs is no trade
 * this code made, and reads as refused-to-read rather than guessed).
 */
function typedTrade(row: IntentRow, common: CommonTerms): Trade {
  const missing = (what: string): never => {
    throw new Error(`trade ${row.id}: a ${row.kind} row without ${what}`);
  };
  return termsOf(row.kind).fromTerms(common, termsOfRow(row), missing);
}

export function attemptFrom(row: AttemptRow): Attempt {
  return {
    id: row.id,
    intentId: row.intent_id,
    purpose: row.purpose,
    wallet: row.wallet,
    chainId: row.chain_id,
    nonce: row.nonce,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    gasLimit: BigInt(row.gas_limit),
    rawTx: row.raw_tx,
    hash: row.hash,
    status: row.status,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    gasUsed: bigOrNull(row.gas_used),
    effectiveGasPrice: bigOrNull(row.effective_gas_price),
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.lease_holder !== null && row.lease_epoch !== null && { lease: { holder: row.lease_holder, epoch: Number(row.lease_epoch) } }),
    ...(row.tag && { tag: row.tag }),
  };
}
