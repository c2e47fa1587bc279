/**
 * Open a new V3 position in the pool of the trade's two tokens and fee, over its range, the NFT minted to the wallet;
 * its id is read from the receipt.
 */
import { decodeFunctionResult, encodeFunctionData } from 'viem';
import { positionManagerAbi } from '../../contracts/abi.ts';
import type { MintTrade } from '../../model/trade.ts';
import type { TradeKindModule } from './kind.ts';
import { type PositionStep, addedAtReference, checkPosition, liquidityChecks, minimumsOf, readMintTarget } from './position/check.ts';
import { noOtherTokens, pairAmounts, positionProposal, receivesToken1, tookBalanceProblems } from './position/common.ts';
import { managerEventsOf, mintOutcome } from './position/outcome.ts';

// The liquidity it bought.
const paid = (returned: `0x${string}`) => decodeFunctionResult({ abi: positionManagerAbi, functionName: 'mint', data: returned })[1];

const step: PositionStep<MintTrade> = {
  target: readMintTarget,
  atReference: addedAtReference,
  call: (trade, minimums) => {
    const { amount0Min, amount1Min, deadline, checked } = minimumsOf(trade, minimums);
    return {
      target: trade.position.positionManager,
      spender: trade.position.positionManager,
      data: encodeFunctionData({
        abi: positionManagerAbi,
        functionName: 'mint',
        args: [
          {
            token0: trade.tokenIn,
            token1: trade.tokenOut,
            fee: trade.fee,
            tickLower: trade.range.tickLower,
            tickUpper: trade.range.tickUpper,
            amount0Desired: trade.amountIn,
            amount1Desired: trade.amountIn1,
            amount0Min,
            amount1Min,
            recipient: trade.wallet,
            deadline,
          },
        ],
      }),
      ...checked,
    };
  },
  paid,
  mints: true,
  pays: true,
  checks: liquidityChecks,
};

export const mint: TradeKindModule<MintTrade> = {
  kind: 'mint',
  quote: positionProposal,
  check: (ctx, trade) => checkPosition(ctx, trade, step),
  checks: step.checks.map((check) => check.name),
  paid,
  outcome: (record, receipt) => mintOutcome(record, managerEventsOf(record, receipt), receipt.logs),
  callTokens: noOtherTokens,
  balanceProblems: tookBalanceProblems,
  receives: receivesToken1,
  effect: (record) => (record.settlement?.position ? { opened: true } : {}),
  asked: (trade, names) => `open a position with ${names.amount(trade.amountIn, trade.tokenIn)} and ${names.symbol(trade.tokenOut)}`,
  done: (trade, _amountOut, names, moved) =>
    `opened ${moved?.positionId === undefined ? 'a position' : `position ${moved.positionId}`} with ${pairAmounts(trade, names, moved)}`,
};
