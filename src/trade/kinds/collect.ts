/** Collect everything a V3 position owes to the wallet: its fees, and what a removal freed. Nothing leaves the wallet. */
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { positionManagerAbi } from '../../contracts/abi.ts';
import type { CollectTrade } from '../../model/trade.ts';
import type { TradeKindModule } from './kind.ts';
import { checkPosition, positionChecks, readOwnedPosition } from './position/check.ts';
import type { PositionStep } from './position/check.ts';
import { collectAll, collectedBalanceProblems, noOtherTokens, pair, pairAmounts, positionProposal, receivesBoth } from './position/common.ts';
import { collectOutcome, managerEventsOf } from './position/outcome.ts';

const paid = (returned: `0x${string}`) =>
  // What it pays in token1 (token0's is read beside it, from the event).
  decodeFunctionResult({ abi: positionManagerAbi, functionName: 'collect', data: returned })[1];

const step: PositionStep<CollectTrade> = {
  target: readOwnedPosition,
  call: (trade) => ({
    target: trade.position.positionManager,
    data: encodeFunctionData({ abi: positionManagerAbi, functionName: 'collect', args: [collectAll(trade)] }),
    // Whatever it is owed, however little: what it collected is read from its receipt.
    expectedOut: 0n,
    minOut: 0n,
  }),
  paid,
  // It moves no liquidity: no price decides what it gets.
  checks: [
    positionChecks.managerKnown,
    positionChecks.positionRead,
    positionChecks.callIsOurs,
    positionChecks.chainRead,
    positionChecks.allowance,
    positionChecks.feeCap,
    positionChecks.simulation,
    positionChecks.positionFlows,
  ],
};

export const collect: TradeKindModule<CollectTrade> = {
  kind: 'collect',
  quote: positionProposal,
  check: (ctx, trade) => checkPosition(ctx, trade, step),
  checks: step.checks.map((check) => check.name),
  paid,
  outcome: (record, receipt) => collectOutcome(record, managerEventsOf(record, receipt), receipt.logs),
  callTokens: noOtherTokens,
  balanceProblems: collectedBalanceProblems,
  receives: receivesBoth,
  effect: (record) => {
    const moved = record.settlement?.position;
    return moved ? { feesCollected: { amount0: moved.amount0, amount1: moved.amount1 } } : {};
  },
  asked: (trade, names) => `collect a position's ${pair(trade, names)}`,
  done: (trade, _amountOut, names, moved) => `collected ${pairAmounts(trade, names, moved)} from a position`,
};
