/** The three calls routekeeper signs, encoded with the real ABIs. */
import { type Address, type Hex, encodeFunctionData } from 'viem';
import { oneClickFarmAbi, oneClickWithdrawAbi, routerAbi } from './abi.ts';
import type { SwapPayload } from './payload.ts';

export function encodeSwapCall(payload: SwapPayload): Hex {
  return encodeFunctionData({ abi: routerAbi, functionName: 'swapExactInputForOutput', args: [payload] });
}

export type DepositCall = { details: SwapPayload[]; router: Address; farm: Address; minExpected: bigint; to: Address; farmData: Hex };

export function encodeDepositCall(call: DepositCall): Hex {
  return encodeFunctionData({
    abi: oneClickFarmAbi,
    functionName: 'oneClickDeposit',
    args: [call.details, call.router, call.farm, call.minExpected, call.to, call.farmData],
  });
}

export type WithdrawCall = {
  position: Address;
  amount: bigint;
  farm: Address;
  farmData: Hex;
  details: SwapPayload[];
  router: Address;
  tokenOut: Address;
  minOut: bigint;
  to: Address;
};

export function encodeWithdrawCall(call: WithdrawCall): Hex {
  return encodeFunctionData({
    abi: oneClickWithdrawAbi,
    functionName: 'oneClickWithdraw',
    args: [call.position, call.amount, call.farm, call.farmData, call.details, call.router, call.tokenOut, call.minOut, call.to],
  });
}
