/** Leave an amount of a farm's position token for a token, in one OneClickFarm transaction. */
import { decodeFunctionResult } from 'viem';
import { oneClickWithdrawAbi } from '../../contracts/abi.ts';
import type { WithdrawTrade } from '../../model/trade.ts';
import { farmKind } from './farm.ts';

export const withdraw = farmKind<WithdrawTrade>(
  'withdraw',
  (returned) => decodeFunctionResult({ abi: oneClickWithdrawAbi, functionName: 'oneClickWithdraw', data: returned }),
  {
    asked: (trade, names) => `withdraw ${names.amount(trade.amountIn, trade.tokenIn)} for ${names.symbol(trade.tokenOut)}`,
    done: (trade, amountOut, names) =>
      `withdrew ${names.amount(trade.amountIn, trade.tokenIn)} for ${amountOut === undefined ? names.symbol(trade.tokenOut) : names.amount(amountOut, trade.tokenOut)}`,
  },
);
