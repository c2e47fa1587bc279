/**
 * The checks of a trade on a Uniswap V3 position, before anything is signed. Nothing comes from the routing service:
 * the position manager must be the chain data's, the position is read from the chain, and the price that decides an
 * add's minimums is the independent reference.
 *
 *  1. The position manager is one the chain data names, over a factory it names with its pools' init code hash.
 *  2. The position, read at the latest block, is the wallet's and holds the trade's two tokens (its pool is the
 *     factory's for them, by CREATE2); a mint's pool is the factory's for its tokens and fee, its range on the
 *     pool's tick spacing.
 *  3. Liquidity moved (an add, a removal, a mint): the pool was not moved within the window (its own oracle), its
 *     price is within the tolerance of the reference, and the minimums signed are the least that liquidity takes or
 *     pays anywhere in the slippage band around the reference (guard/position.ts).
 *  4. One batched read: the block, fees, nonce, the allowances an add needs, and a simulation of the exact
 *     transactions after the wallet's transactions in flight.
 *  5. The fee cap; the simulation succeeds; its token movements are the position's tokens between the wallet and
 *     the pool only, and the only NFT that moves is a mint's, to the wallet, or a burn's of the emptied position
 *     (guard/position.ts).
 */
import { type Address, isAddressEqual } from 'viem';
import { preflight } from '../chain/preflight.ts';
import { checkFeeCap } from '../guard/guards.ts';
import {
  type PositionAsked,
  addAtReference,
  checkPoolAtReference,
  checkPositionFlows,
  checkPositionOwned,
  checkRange,
  removeAtReference,
} from '../guard/position.ts';
import { GuardRefusal } from '../guard/refusal.ts';
import type { ChainClient } from '../chains.ts';
import { uniswapV3PoolAbi } from '../contracts/abi.ts';
import { v3PoolAddress } from '../contracts/encoding.ts';
import type { MintTrade, PositionTrade } from '../model/trade.ts';
import { abortable } from '../ops/abort.ts';
import { type TickRange, sqrtPriceX96FromUsd } from '../pools/uniswap-v3-liquidity.ts';
import { type PositionManagerOf, readV3Position } from '../pools/uniswap-v3-position.ts';
import { type PositionMinimums, buildPositionCall } from './call.ts';
import { simulatedCall } from './simulated.ts';
import { approvalsOf, neededApprovals } from './approvals.ts';
import type { CheckContext, Checked } from './check-types.ts';
import { withPriceRefusals } from './price-refusals.ts';

export async function checkPosition(ctx: CheckContext, trade: PositionTrade): Promise<Checked> {
  const client = ctx.wallet.client;
  // 1. The chain data's position manager, and the factory its pools come from.
  const manager = positionManagerOf(ctx, trade.position.positionManager);

  // 2. What the trade acts on, as the chain holds it now: the position (a mint: the pool it opens in).
  const blockNumber = await client.getBlockNumber();
  const target = await abortable(
    trade.kind === 'mint' ? readMintTarget(client, manager, trade, blockNumber) : readOwnedPosition(client, manager, trade, blockNumber),
    ctx.signal,
  );

  // 3. Liquidity moved (added, removed, opened): the pool steady and at the reference; minimums from the reference.
  const minimums = trade.kind === 'collect' ? undefined : await minimumsAtReference(ctx, trade, target);
  const call = buildPositionCall(trade, minimums);

  // 4. One batched read, the simulation included.
  const approvals = call.spender ? approvalsOf(trade, call.spender, ctx.settings) : [];
  const reads = await abortable(
    preflight(client, { from: trade.wallet, to: call.target, data: call.data, approvals, before: ctx.wallet.inFlightCalls() }),
    ctx.signal,
  );
  const needed = neededApprovals(approvals, reads);

  // 5. The fee cap, the simulation, and its token movements.
  const fees = ctx.wallet.fees.fromBlock(reads.block.baseFeePerGas, reads.maxPriorityFeePerGas);
  checkFeeCap(fees.maxFeePerGas, ctx.settings.feeCap);
  const { gas, simulatedOut } = simulatedCall(reads, trade.kind);
  // A node without eth_simulateV1 shows no logs: the position's own rules (the wallet's recipient, its position) stand
  // in the call itself, and the balances are checked after it.
  if (reads.call !== 'unsimulated' && reads.call.ok && reads.call.logs) {
    const approvalLogs = reads.approvalResults.flatMap((result) => (result.ok ? (result.logs ?? []) : []));
    checkPositionFlows(askedOf(trade), { pool: target.pool, manager: manager.address }, [
      ...approvalLogs.filter((log) => !isApprovalLog(log)),
      ...reads.call.logs,
    ]);
  }
  return { call, approvals: needed, reads, fees: ctx.wallet.fees.capped(fees), gas, ...(simulatedOut !== undefined && { simulatedOut }) };
}

/** What the guards hold a position trade to. */
function askedOf(trade: PositionTrade): PositionAsked {
  const { kind, wallet, tokenIn, tokenOut, amountIn, amountIn1 } = trade;
  return {
    kind,
    wallet,
    tokenIn,
    tokenOut,
    amountIn,
    amountIn1,
    positionId: trade.position.positionId,
    burns: trade.kind === 'remove-liquidity' && trade.burn,
  };
}

/** The pool and price a trade's liquidity moves in, and the range it moves in. */
type LiquidityTarget = TickRange & { pool: Address; token0: Address; token1: Address; sqrtPriceX96: bigint; liquidity: bigint };

/** The trade's position, which must be the wallet's and of the trade's two tokens. */
async function readOwnedPosition(client: ChainClient, manager: PositionManagerOf, trade: PositionTrade, blockNumber: bigint): Promise<LiquidityTarget> {
  const position = await readV3Position(client, manager, trade.position.positionId, blockNumber);
  checkPositionOwned(askedOf(trade), position);
  if (trade.kind === 'remove-liquidity' && trade.liquidity > position.liquidity) {
    throw new GuardRefusal(
      'position',
      `position ${trade.position.positionId} holds ${position.liquidity} liquidity, less than the ${trade.liquidity} to remove`,
    );
  }
  return position;
}

/** A mint's pool (the factory's for its tokens and fee, by CREATE2) and the range it opens, which must be on the pool's spacing. */
async function readMintTarget(client: ChainClient, manager: PositionManagerOf, trade: MintTrade, blockNumber: bigint): Promise<LiquidityTarget> {
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
async function minimumsAtReference(ctx: CheckContext, trade: Exclude<PositionTrade, { kind: 'collect' }>, target: LiquidityTarget): Promise<PositionMinimums> {
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
  const atReference =
    trade.kind === 'remove-liquidity'
      ? removeAtReference(reference, target, trade.liquidity, trade.slippageBps)
      : addAtReference(reference, target, { amount0: trade.amountIn, amount1: trade.amountIn1 }, trade.slippageBps);
  if (atReference.liquidity === 0n) throw new GuardRefusal('simulation', `${trade.amountIn} and ${trade.amountIn1} buy no liquidity in the range`);
  const head = await ctx.prices.headNow();
  return { ...atReference, deadline: head.timestamp + BigInt(ctx.settings.deadline.maxSeconds), referenceOut: atReference.liquidity };
}

/** The chain data's position manager at `address`, with its factory and that factory's pool init code hash; refused if none. */
function positionManagerOf(ctx: CheckContext, address: Address): PositionManagerOf {
  const known = ctx.routes.known;
  const manager = known.positionManagers.find((candidate) => isAddressEqual(candidate.address, address));
  if (!manager) throw new GuardRefusal('contract-not-allowed', `position manager ${address} is not one the chain data names`);
  const factory = known.factories.find((candidate) => candidate.kind === 'uniswap-v3' && isAddressEqual(candidate.address, manager.factory));
  if (!factory?.initCodeHash) {
    throw new GuardRefusal(
      'contract-not-allowed',
      `position manager ${address}: the chain data names no pool init code hash for its factory ${manager.factory}`,
    );
  }
  return { address: manager.address, factory: manager.factory, poolInitCodeHash: factory.initCodeHash };
}

/** An ERC20 Approval log (the simulated approvals emit them; they move nothing). */
const isApprovalLog = (log: { topics: readonly string[] }) => log.topics[0] === '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
