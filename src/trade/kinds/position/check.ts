/**
 * The checks of a trade on a Uniswap V3 position, before anything is signed, as the named checks each step lists
 * (collect.ts, add-liquidity.ts, remove-liquidity.ts, mint.ts). Nothing comes from the routing service: the position
 * manager must be the chain data's, the position is read from the chain, and the price that decides an add's minimums
 * is the independent reference.
 *
 *  - `manager-known`: the position manager is one the chain data names, with its factory's pool init code hash.
 *  - `position-read`: the position, read at the latest block, is the wallet's and holds the trade's two tokens (its
 *    pool is the factory's for them, by CREATE2); a mint's pool is the factory's for its tokens and fee, its range on
 *    the pool's tick spacing.
 *  - `at-reference` (a step that moves liquidity): the pool was not moved within the window (its own oracle), its price
 *    is within the tolerance of the reference, and the minimums signed are the least that liquidity takes or pays
 *    anywhere in the slippage band around the reference (guard/position.ts).
 *  - `call-is-ours`, then `chain-read`: one batched read of the block, fees, nonce, the allowances an add needs, and a
 *    simulation of the exact transactions after the wallet's transactions in flight.
 *  - `allowance`, `fee-cap`, `simulation` (call-checks.ts), and `position-flows`: its token movements are the
 *    position's tokens between the wallet and the pool only, and the only NFT that moves is a mint's, to the wallet,
 *    or a burn's of the emptied position (guard/position.ts).
 */
import { type Address, isAddressEqual } from 'viem';
import { preflight } from '../../../chain/preflight.ts';
import { type PositionAsked, addAtReference, checkPoolAtReference, checkPositionFlows, checkPositionOwned, checkRange } from '../../../guard/position.ts';
import { GuardRefusal } from '../../../model/guard-refusal.ts';
import type { ChainClient } from '../../../chains.ts';
import { uniswapV3PoolAbi } from '../../../contracts/abi.ts';
import { v3PoolAddress } from '../../../contracts/encoding.ts';
import type { MintTrade, PositionTrade } from '../../../model/trade.ts';
import type { BuiltCall } from '../../call-types.ts';
import { CallCheckFields, type CallCheckState, callChecks } from '../../call-checks.ts';
import { type NamedCheck, filledIn, runChecks } from '../../check-runner.ts';

import type { Hex } from 'viem';
import { abortable } from '../../../ops/abort.ts';
import { type TickRange, sqrtPriceX96FromUsd } from '../../../pools/uniswap-v3/liquidity.ts';
import { type PositionManagerOf, readV3Position } from '../../../pools/uniswap-v3/position.ts';
import { approvalsOf } from '../../approvals.ts';
import type { CheckContext, Checked } from '../../check-types.ts';
import { withPriceRefusals } from '../../price-refusals.ts';

/** The least a position trade's liquidity may move at the reference, and when: what its call is built with. */
export type PositionMinimums = { liquidity: bigint; amount0Min: bigint; amount1Min: bigint; deadline: bigint; referenceOut: bigint };

/** What one step on a V3 position gives the position checks: what it acts on, its minimums, its call. */
export type PositionStep<T extends PositionTrade> = {
  /** What the trade acts on, as the chain holds it now (the wallet's position; a mint: the pool it opens in). */
  target(client: ChainClient, manager: PositionManagerOf, trade: T, blockNumber: bigint): Promise<LiquidityTarget>;
  /** The liquidity moved and the least of each token, anywhere in the slippage band around the reference (none: it moves no liquidity). */
  atReference?(reference: bigint, target: LiquidityTarget, trade: T): Omit<PositionMinimums, 'deadline' | 'referenceOut'>;
  /** Our call, every recipient the wallet. */
  call(trade: T, minimums: PositionMinimums | undefined): BuiltCall;
  paid(returned: Hex): bigint;
  /** Whether the call burns the emptied NFT (the one NFT that may then leave the wallet, to nowhere). */
  burns?(trade: T): boolean;
  /** A mint: its new NFT comes to the wallet. */
  readonly mints?: boolean;
  /** An add or a mint: the wallet pays the pool. */
  readonly pays?: boolean;
  readonly checks: readonly NamedCheck<PositionCheck>[];
};

/** What the checks of one position trade share. */
export class PositionCheck extends CallCheckFields implements CallCheckState {
  manager: PositionManagerOf | undefined;
  target: LiquidityTarget | undefined;
  minimums: PositionMinimums | undefined;
  call: BuiltCall | undefined;

  constructor(
    readonly ctx: CheckContext,
    readonly trade: PositionTrade,
    readonly step: PositionStep<PositionTrade>,
  ) {
    super();
  }

  paid(returned: Hex): bigint {
    return this.step.paid(returned);
  }

  /** A position step's call holds its own minimums (of each token): the simulation must only succeed. */
  simulatedMinimum(): undefined {
    return undefined;
  }

  filled<K extends 'manager' | 'target' | 'call' | 'reads' | 'fees'>(key: K): NonNullable<this[K]> {
    return filledIn(this, key);
  }
}

export async function checkPosition<T extends PositionTrade>(ctx: CheckContext, trade: T, step: PositionStep<T>): Promise<Checked> {
  const state = new PositionCheck(ctx, trade, step as unknown as PositionStep<PositionTrade>);
  const passed = await runChecks(step.checks, state, ctx.signal);
  const fees = state.filled('fees');
  return {
    call: state.filled('call'),
    approvals: state.needed,
    reads: state.filled('reads'),
    fees: ctx.wallet.fees.capped(fees),
    gas: state.gas,
    ...(state.simulatedOut !== undefined && { simulatedOut: state.simulatedOut }),
    passed,
  };
}

/** The named checks a position step's list is made of, in the order steps list them (`docs/safety.md` cites them). */
export const positionChecks = {
  /** The position manager is one the chain data names, over a factory it names with its pools' init code hash. */
  managerKnown: { name: 'manager-known', verify: (s) => void (s.manager = positionManagerOf(s.ctx, s.trade.position.positionManager)) },
  /**
   * What the trade acts on, read at the latest block: the position is the wallet's and holds the trade's two tokens
   * (its pool is the factory's for them, by CREATE2); a mint's pool is the factory's for its tokens and fee, its range
   * on the pool's tick spacing.
   */
  positionRead: {
    name: 'position-read',
    verify: async (s) => {
      const client = s.ctx.wallet.client;
      const blockNumber = await client.getBlockNumber();
      s.target = await abortable(s.step.target(client, s.filled('manager'), s.trade, blockNumber), s.ctx.signal);
    },
  },
  /**
   * Liquidity moved: the pool was not moved within the window (its own oracle), its price is within the tolerance of
   * the reference, and the minimums signed are the least that liquidity takes or pays anywhere in the slippage band
   * around the reference (guard/position.ts).
   */
  atReference: { name: 'at-reference', verify: async (s) => void (s.minimums = await minimumsAtReference(s)) },
  /** The call is ours: to the chain data's position manager, every recipient the wallet, the minimums from the reference. */
  callIsOurs: {
    name: 'call-is-ours',
    verify: (s) => {
      s.call = s.step.call(s.trade, s.minimums);
      s.approvals = s.call.spender ? approvalsOf(s.trade, s.call.spender, s.ctx.settings) : [];
    },
  },
  /** One batched read: the block, fees, nonce, the allowances an add needs, and a simulation of the exact transactions. */
  chainRead: {
    name: 'chain-read',
    verify: async (s) => {
      const call = s.filled('call');
      s.reads = await abortable(
        preflight(s.ctx.wallet.client, {
          from: s.trade.wallet,
          to: call.target,
          data: call.data,
          approvals: s.approvals,
          before: s.ctx.wallet.inFlightCalls(),
        }),
        s.ctx.signal,
      );
    },
  },
  allowance: callChecks.allowance,
  feeCap: callChecks.feeCap,
  simulation: callChecks.simulation,
  /**
   * The simulation's token movements are the position's tokens between the wallet and the pool only, and the only NFT
   * that moves is a mint's, to the wallet, or a burn's of the emptied position (guard/position.ts). A node without
   * eth_simulateV1 shows no logs: the position's own rules (the wallet's recipient, its position) stand in the call
   * itself, and the balances are checked after it.
   */
  positionFlows: {
    name: 'position-flows',
    verify: (s) => {
      const reads = s.filled('reads');
      if (reads.call === 'unsimulated' || !reads.call.ok || !reads.call.logs) return;
      const approvalLogs = reads.approvalResults.flatMap((result) => (result.ok ? (result.logs ?? []) : []));
      checkPositionFlows(askedOf(s.trade, s.step), { pool: s.filled('target').pool, manager: s.filled('manager').address }, [
        ...approvalLogs.filter((log) => !isApprovalLog(log)),
        ...reads.call.logs,
      ]);
    },
  },
} satisfies Record<string, NamedCheck<PositionCheck>>;

/** What the guards hold a position trade to. */
function askedOf(trade: PositionTrade, step: Pick<PositionStep<PositionTrade>, 'burns' | 'mints' | 'pays'>): PositionAsked {
  const { kind, wallet, tokenIn, tokenOut, amountIn, amountIn1 } = trade;
  const { positionId } = trade.position;
  return {
    kind,
    wallet,
    tokenIn,
    tokenOut,
    amountIn,
    amountIn1,
    positionId,
    burns: step.burns?.(trade) ?? false,
    mints: step.mints ?? false,
    pays: step.pays ?? false,
  };
}

/** The pool and price a trade's liquidity moves in, and the range it moves in. */
export type LiquidityTarget = TickRange & { pool: Address; token0: Address; token1: Address; sqrtPriceX96: bigint; liquidity: bigint };

/** The trade's position, which must be the wallet's and of the trade's two tokens. */
export async function readOwnedPosition(client: ChainClient, manager: PositionManagerOf, trade: PositionTrade, blockNumber: bigint): Promise<LiquidityTarget> {
  const position = await readV3Position(client, manager, trade.position.positionId, blockNumber);
  checkPositionOwned(askedOf(trade, {}), position);
  return position;
}

/** A mint's pool (the factory's for its tokens and fee, by CREATE2) and the range it opens, which must be on the pool's spacing. */
export async function readMintTarget(client: ChainClient, manager: PositionManagerOf, trade: MintTrade, blockNumber: bigint): Promise<LiquidityTarget> {
  const pool = v3PoolAddress(manager.factory, manager.poolInitCodeHash, [trade.tokenIn, trade.tokenOut], trade.fee);
  const [slot0, tickSpacing] = await Promise.all([
    client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'slot0', blockNumber }),
    client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'tickSpacing', blockNumber }),
  ]).catch(() => {
    throw new GuardRefusal('position', `no pool of ${trade.tokenIn} and ${trade.tokenOut} at fee ${trade.fee} in the position manager's factory`);
  });
  checkRange(trade.range, tickSpacing);
  return { pool, token0: trade.tokenIn, token1: trade.tokenOut, sqrtPriceX96: slot0[0], liquidity: 0n, ...trade.range };
}

/**
 * The pool steady over the window (its own oracle) and at the reference, and the least the liquidity moved takes or
 * pays anywhere in the slippage band around the reference: never the pool's own price, which whoever moves it would
 * choose.
 */
async function minimumsAtReference(s: PositionCheck): Promise<PositionMinimums | undefined> {
  const { ctx, trade, step } = s;
  const target = s.filled('target');
  if (!step.atReference) return undefined;
  const [, token0, token1, decimals0, decimals1] = await withPriceRefusals(() =>
    Promise.all([
      ctx.prices.checkSteady(target.pool, ctx.priceToleranceBps, 'uniswap-v3'),
      ctx.prices.usdPrice(target.token0),
      ctx.prices.usdPrice(target.token1),
      ctx.prices.decimals(target.token0),
      ctx.prices.decimals(target.token1),
    ]),
  );
  const reference = sqrtPriceX96FromUsd(token0.usdE18, token1.usdE18, decimals0, decimals1);
  checkPoolAtReference(target.sqrtPriceX96, reference, ctx.priceToleranceBps);
  const atReference = step.atReference(reference, target, trade);
  if (atReference.liquidity === 0n) throw new GuardRefusal('simulation', `${trade.amountIn} and ${trade.amountIn1} buy no liquidity in the range`);
  const head = await ctx.prices.headNow();
  return { ...atReference, deadline: head.timestamp + BigInt(ctx.settings.deadline.maxSeconds), referenceOut: atReference.liquidity };
}

/** An add's or a mint's minimums: what the amounts buy in the range at the reference. */
export const addedAtReference = (reference: bigint, target: LiquidityTarget, trade: PositionTrade) =>
  addAtReference(reference, target, { amount0: trade.amountIn, amount1: trade.amountIn1 }, trade.slippageBps);

/** The chain data's position manager at `address`, with its factory and that factory's pool init code hash; refused if none. */
export function positionManagerOf(ctx: CheckContext, address: Address): PositionManagerOf {
  const known = ctx.routes.known;
  const manager = known.positionManagers.find((candidate) => isAddressEqual(candidate.address, address));
  if (!manager) throw new GuardRefusal('contract-not-allowed', `position manager ${address} is not one the chain data names`);
  if (!manager.poolInitCodeHash) {
    throw new GuardRefusal(
      'contract-not-allowed',
      `position manager ${address}: the chain data names no pool init code hash for its factory ${manager.factory}`,
    );
  }
  return { address: manager.address, factory: manager.factory, poolInitCodeHash: manager.poolInitCodeHash };
}

/** An ERC20 Approval log (the simulated approvals emit them; they move nothing). */
const isApprovalLog = (log: { topics: readonly string[] }) => log.topics[0] === '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';

/**
 * A step that moves liquidity has its minimums from the reference (never built without them), and records them with
 * its call: `expectedOut` the liquidity at the reference, `minOut` and `minOut1` the least of each token.
 */
export function minimumsOf(trade: PositionTrade, minimums: PositionMinimums | undefined) {
  if (!minimums) throw new Error(`check: a ${trade.kind} needs its minimums from the reference`);
  const { amount0Min, amount1Min, deadline } = minimums;
  const checked = { expectedOut: minimums.liquidity, minOut: amount0Min, minOut1: amount1Min, referenceOut: minimums.referenceOut, deadline };
  return { amount0Min, amount1Min, deadline, checked };
}

/** The checks of a step that moves liquidity (an add, a removal, a mint). */
export const liquidityChecks: readonly NamedCheck<PositionCheck>[] = [
  positionChecks.managerKnown,
  positionChecks.positionRead,
  positionChecks.atReference,
  positionChecks.callIsOurs,
  positionChecks.chainRead,
  positionChecks.allowance,
  positionChecks.feeCap,
  positionChecks.simulation,
  positionChecks.positionFlows,
];
