/**
 * The checks of a trade on a Uniswap V3 position, before anything is signed. Nothing comes from the routing service:
 * the position manager must be the chain data's, the position is read from the chain, and the price that decides an
 * add's minimums is the independent reference.
 *
 *  1. The position manager is one the chain data names, over a factory it names with its pools' init code hash.
 *  2. The position, read at the latest block, is the wallet's and holds the trade's two tokens (its pool is the
 *     factory's for them, by CREATE2).
 *  3. An add only: the pool was not moved within the window (its own oracle), its price is within the tolerance of
 *     the reference, and the minimums signed are what the liquidity holds at the reference, less the slippage.
 *  4. One batched read: the block, fees, nonce, the allowances an add needs, and a simulation of the exact
 *     transactions after the wallet's transactions in flight.
 *  5. The fee cap; the simulation succeeds; its token movements are the position's tokens between the wallet and
 *     the pool only, no NFT moves (guard/position.ts).
 */
import { type Address, isAddressEqual } from 'viem';
import { preflight } from '../chain/preflight.ts';
import { checkFeeCap } from '../guard/guards.ts';
import { addAtReference, checkPoolAtReference, checkPositionFlows, checkPositionOwned } from '../guard/position.ts';
import { GuardRefusal } from '../guard/refusal.ts';
import type { PositionTrade } from '../model/trade.ts';
import { abortable } from '../ops/abort.ts';
import { sqrtPriceX96FromUsd } from '../pools/uniswap-v3-liquidity.ts';
import { type PositionManagerOf, readV3Position } from '../pools/uniswap-v3-position.ts';
import { buildPositionCall } from './call.ts';
import { simulatedCall } from './simulated.ts';
import { approvalsOf, neededApprovals } from './approvals.ts';
import type { CheckContext, Checked } from './check-types.ts';
import { withPriceRefusals } from './price-refusals.ts';

export async function checkPosition(ctx: CheckContext, trade: PositionTrade): Promise<Checked> {
  const client = ctx.wallet.client;
  // 1. The chain data's position manager, and the factory its pools come from.
  const manager = positionManagerOf(ctx, trade.position.positionManager);

  // 2. The position as the chain holds it now.
  const position = await abortable(readV3Position(client, manager, trade.position.positionId, await client.getBlockNumber()), ctx.signal);
  const asked = { ...trade, positionId: trade.position.positionId };
  checkPositionOwned(asked, position);

  // 3. An add: the pool steady and at the reference; minimums from the reference.
  let add: Parameters<typeof buildPositionCall>[1];
  if (trade.kind === 'add-liquidity') {
    const [, token0, token1, decimals0, decimals1] = await withPriceRefusals(() =>
      Promise.all([
        ctx.prices.checkSteady(position.pool, ctx.priceToleranceBps, 'uniswap-v3'),
        ctx.prices.usdPrice(position.token0),
        ctx.prices.usdPrice(position.token1),
        ctx.prices.decimals(position.token0),
        ctx.prices.decimals(position.token1),
      ]),
    );
    const reference = sqrtPriceX96FromUsd(token0.usdE18, token1.usdE18, decimals0, decimals1);
    checkPoolAtReference(position.sqrtPriceX96, reference, ctx.priceToleranceBps);
    const atReference = addAtReference(reference, position, { amount0: trade.amountIn, amount1: trade.amountIn1 }, trade.slippageBps);
    if (atReference.liquidity === 0n) throw new GuardRefusal('simulation', `${trade.amountIn} and ${trade.amountIn1} buy no liquidity in the position's range`);
    const head = await ctx.prices.headNow();
    add = { ...atReference, deadline: head.timestamp + BigInt(ctx.settings.deadline.maxSeconds), referenceOut: atReference.liquidity };
  }
  const call = buildPositionCall(trade, add);

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
    checkPositionFlows(asked, position.pool, [...approvalLogs.filter((log) => !isApprovalLog(log)), ...reads.call.logs]);
  }
  return { call, approvals: needed, reads, fees: ctx.wallet.fees.capped(fees), gas, ...(simulatedOut !== undefined && { simulatedOut }) };
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
