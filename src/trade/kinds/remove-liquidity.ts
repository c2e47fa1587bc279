/**
 * Take liquidity out of a V3 position and collect everything it then owes to the wallet, in one transaction (the
 * manager's multicall: nothing is left removed but uncollected), then burn the emptied NFT when asked.
 */
import { type Hex, decodeFunctionResult, encodeFunctionData } from 'viem';
import { positionManagerAbi } from '../../contracts/abi.ts';
import { GuardRefusal } from '../../model/guard-refusal.ts';
import { removeAtReference } from '../../guard/position.ts';
import type { RemoveLiquidityTrade } from '../../model/trade.ts';
import type { TradeKindModule } from './kind.ts';
import { type PositionStep, checkPosition, liquidityChecks, minimumsOf, readOwnedPosition } from './position/check.ts';
import { collectAll, collectedBalanceProblems, noOtherTokens, pair, pairAmounts, positionProposal, receivesBoth } from './position/common.ts';
import { managerEventsOf, removeOutcome } from './position/outcome.ts';

/** The multicall's second answer is the collect's: what it paid in token1. */
function paid(returned: Hex): bigint {
  const [, collected] = decodeFunctionResult({ abi: positionManagerAbi, functionName: 'multicall', data: returned });
  return collected === undefined ? 0n : decodeFunctionResult({ abi: positionManagerAbi, functionName: 'collect', data: collected })[1];
}

const step: PositionStep<RemoveLiquidityTrade> = {
  target: async (client, manager, trade, blockNumber) => {
    const position = await readOwnedPosition(client, manager, trade, blockNumber);
    if (trade.liquidity > position.liquidity) {
      throw new GuardRefusal(
        'position',
        `position ${trade.position.positionId} holds ${position.liquidity} liquidity, less than the ${trade.liquidity} to remove`,
      );
    }
    return position;
  },
  atReference: (reference, target, trade) => removeAtReference(reference, target, trade.liquidity, trade.slippageBps),
  call: (trade, minimums) => {
    const { amount0Min, amount1Min, deadline, checked } = minimumsOf(trade, minimums);
    const { positionId } = trade.position;
    const steps: Hex[] = [
      encodeFunctionData({
        abi: positionManagerAbi,
        functionName: 'decreaseLiquidity',
        args: [{ tokenId: positionId, liquidity: trade.liquidity, amount0Min, amount1Min, deadline }],
      }),
      encodeFunctionData({ abi: positionManagerAbi, functionName: 'collect', args: [collectAll(trade)] }),
      ...(trade.burn ? [encodeFunctionData({ abi: positionManagerAbi, functionName: 'burn', args: [positionId] })] : []),
    ];
    return {
      target: trade.position.positionManager,
      data: encodeFunctionData({ abi: positionManagerAbi, functionName: 'multicall', args: [steps] }),
      ...checked,
    };
  },
  paid,
  burns: (trade) => trade.burn,
  checks: liquidityChecks,
};

export const removeLiquidity: TradeKindModule<RemoveLiquidityTrade> = {
  kind: 'remove-liquidity',
  quote: positionProposal,
  check: (ctx, trade) => checkPosition(ctx, trade, step),
  checks: step.checks.map((check) => check.name),
  paid,
  outcome: (record, receipt) => removeOutcome(record, managerEventsOf(record, receipt), receipt.logs),
  callTokens: noOtherTokens,
  balanceProblems: collectedBalanceProblems,
  receives: receivesBoth,
  // What it collected beyond what its liquidity freed is fees.
  effect: (record) => {
    const moved = record.settlement?.position;
    if (!moved) return {};
    const freed = { amount0: moved.freed0 ?? 0n, amount1: moved.freed1 ?? 0n };
    return { feesCollected: { amount0: moved.amount0 - freed.amount0, amount1: moved.amount1 - freed.amount1 }, removed: freed };
  },
  asked: (trade, names) => `remove a position's ${pair(trade, names)}`,
  done: (trade, _amountOut, names, moved) => `removed ${pairAmounts(trade, names, moved)} from a position, fees with it`,
};
