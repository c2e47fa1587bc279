/** Add up to the trade's two amounts to a V3 position, at least the minimums the reference gives, before the deadline. */
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { positionManagerAbi } from '../../contracts/abi.ts';
import type { AddLiquidityTrade } from '../../model/trade.ts';
import type { TradeKindModule } from './kind.ts';
import { type PositionStep, addedAtReference, checkPosition, liquidityChecks, readOwnedPosition, minimumsOf } from './position/check.ts';
import { noOtherTokens, pairAmounts, positionProposal, receivesToken1, tookBalanceProblems } from './position/common.ts';
import { addOutcome, managerEventsOf } from './position/outcome.ts';

// The liquidity it bought.
const paid = (returned: `0x${string}`) => decodeFunctionResult({ abi: positionManagerAbi, functionName: 'increaseLiquidity', data: returned })[0];

const step: PositionStep<AddLiquidityTrade> = {
  target: readOwnedPosition,
  atReference: addedAtReference,
  call: (trade, minimums) => {
    const { amount0Min, amount1Min, deadline, checked } = minimumsOf(trade, minimums);
    return {
      target: trade.position.positionManager,
      spender: trade.position.positionManager,
      data: encodeFunctionData({
        abi: positionManagerAbi,
        functionName: 'increaseLiquidity',
        args: [{ tokenId: trade.position.positionId, amount0Desired: trade.amountIn, amount1Desired: trade.amountIn1, amount0Min, amount1Min, deadline }],
      }),
      ...checked,
    };
  },
  paid,
  pays: true,
  checks: liquidityChecks,
};

export const addLiquidity: TradeKindModule<AddLiquidityTrade> = {
  kind: 'add-liquidity',
  quote: positionProposal,
  check: (ctx, trade) => checkPosition(ctx, trade, step),
  checks: step.checks.map((check) => check.name),
  paid,
  outcome: (record, receipt) => addOutcome(record, record.position.positionId, managerEventsOf(record, receipt), receipt.logs),
  callTokens: noOtherTokens,
  balanceProblems: tookBalanceProblems,
  receives: receivesToken1,
  effect: (record) => {
    const moved = record.settlement?.position;
    return moved ? { added: { amount0: moved.amount0, amount1: moved.amount1, liquidity: moved.liquidity ?? 0n } } : {};
  },
  asked: (trade, names) => `add ${names.amount(trade.amountIn, trade.tokenIn)} and ${names.symbol(trade.tokenOut)} to a position`,
  done: (trade, _amountOut, names, moved) => `added ${pairAmounts(trade, names, moved)} to a position`,
};
