/** Turn an amount of a token into a farm's position token (an LP or gauge token), in one OneClickFarm transaction. */
import { decodeFunctionResult } from 'viem';
import { oneClickFarmAbi } from '../../contracts/abi.ts';
import type { DepositTrade } from '../../model/trade.ts';
import { farmKind } from './farm.ts';

export const deposit = farmKind<DepositTrade>(
  'deposit',
  (returned) => decodeFunctionResult({ abi: oneClickFarmAbi, functionName: 'oneClickDeposit', data: returned }),
  {
    asked: (trade, names) => `deposit ${names.amount(trade.amountIn, trade.tokenIn)} into ${names.symbol(trade.tokenOut)}`,
    done: (trade, amountOut, names) =>
      `deposited ${names.amount(trade.amountIn, trade.tokenIn)} for ${amountOut === undefined ? names.symbol(trade.tokenOut) : names.amount(amountOut, trade.tokenOut)}`,
  },
);
