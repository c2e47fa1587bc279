/**
 * From a proposal to the exact call we sign, for each kind of trade: our own recipient, our own minimum
 * (see minimumOutput: never below the independent reference less our slippage), our own expected output,
 * every other route field passed through. Pure: the check stage calls this, then checks the result.
 */
import { type Address, type Hex, decodeFunctionResult, encodeFunctionData, maxUint256, zeroAddress } from 'viem';
import { oneClickFarmAbi, oneClickWithdrawAbi, routerAbi, stakingGaugeAbi } from '../contracts/abi.ts';
import { encodeDepositCall, encodeSwapCall, encodeWithdrawCall } from '../contracts/calldata.ts';
import { type SwapPayload, swapPayloadFrom } from '../contracts/payload.ts';
import { minimumOutput } from '../guard/guards.ts';
import type { EarnRoute, RouteDetail } from '../routing-api/schemas.ts';
import type { Proposal } from './quote.ts';
import type { CheckedCall, Trade, TradeKind } from '../model/trade.ts';

/** Our call, with the pieces the checks compare (the swap payload, the OneClickFarm). */
export type BuiltCall = CheckedCall & { payload?: SwapPayload; oneClickFarm?: Address };

/**
 * The `expectedOutputAmount` we sign. The router pays min(actual output, expectedOutputAmount) and keeps the
 * rest, and the partner signature does not cover it: any number from the service would let the router keep
 * the user's surplus. We sign the largest number, so the cap never binds and the user gets the whole output;
 * the minimum is what protects the user.
 */
export const uncappedOutput = maxUint256;

const earliest = (deadlines: bigint[]) => (deadlines.length === 0 ? undefined : deadlines.reduce((a, b) => (a < b ? a : b)));

/**
 * `floor`: the reference amount our minimum may not go below less slippage; `referenceOut`: what the reference
 * said the trade should pay, recorded with the call (both from check.ts).
 */
export function buildCall(trade: Trade, proposal: Proposal, floor?: bigint, referenceOut?: bigint): BuiltCall {
  switch (proposal.kind) {
    case 'swap': {
      const { route } = proposal;
      const minOut = minimumOutput(route.expectedOut, trade.slippageBps, {
        threshold: trade.kind === 'swap' ? trade.minAmountOut : undefined,
        reference: floor,
      });
      const payload = swapPayloadFrom(route.details, { minOutputAmount: minOut, to: trade.wallet, expectedOutputAmount: uncappedOutput });
      return {
        target: route.routerAddress,
        spender: route.routerAddress,
        router: route.routerAddress,
        data: encodeSwapCall(payload),
        expectedOut: route.expectedOut,
        minOut,
        referenceOut,
        deadline: payload.deadline,
        payload,
      };
    }
    case 'deposit':
    case 'withdraw': {
      const { route } = proposal;
      const farm = route.depositData;
      if (!farm) throw new Error('buildCall: a deposit or withdraw proposal must be checked for depositData first');
      const details = legPayloads(route, trade.slippageBps);
      const minOut = minimumOutput(route.expectedOut, trade.slippageBps, { reference: floor });
      const data =
        proposal.kind === 'deposit'
          ? encodeDepositCall({ details, router: route.routerAddress, farm: farm.addr, minExpected: minOut, to: trade.wallet, farmData: farm.extra })
          : encodeWithdrawCall({
              position: trade.tokenIn,
              amount: trade.amountIn,
              farm: farm.addr,
              farmData: farm.extra,
              details,
              router: route.routerAddress,
              tokenOut: trade.tokenOut,
              minOut,
              to: trade.wallet,
            });
      return {
        target: route.oneClickFarmAddress,
        spender: route.oneClickFarmAddress,
        oneClickFarm: route.oneClickFarmAddress,
        router: route.routerAddress,
        farm: farm.addr,
        data,
        expectedOut: route.expectedOut,
        minOut,
        referenceOut,
        deadline: earliest(details.map((detail) => detail.deadline)),
      };
    }
    case 'claim':
      // The gauge pays at least what was observed; the minimum is "something".
      return { target: trade.tokenIn, data: encodeFunctionData({ abi: stakingGaugeAbi, functionName: 'claim' }), expectedOut: trade.amountIn, minOut: 1n };
  }
}

/**
 * Each leg keeps its own slippage floor from the quote (a one-token leg, no swap, needs none) and is never
 * capped; the whole trade's minimum, held to the reference, is what protects the user.
 */
function legPayloads(route: EarnRoute, slippageBps: number): SwapPayload[] {
  return route.underlyingRoutes.map((detail: RouteDetail) =>
    swapPayloadFrom(detail, {
      minOutputAmount: detail.pairs.length === 0 ? 0n : minimumOutput(detail.expectedOutputAmount, slippageBps),
      expectedOutputAmount: uncappedOutput,
      to: zeroAddress, // OneClickFarm sends each leg's output where it belongs
    }),
  );
}

/** A call's return value as the amount it pays, by the kind of trade (the same for a stored call after a restart). */
export function returnedAmount(kind: TradeKind, returned: Hex): bigint {
  switch (kind) {
    case 'swap':
      return decodeFunctionResult({ abi: routerAbi, functionName: 'swapExactInputForOutput', data: returned });
    case 'deposit':
      return decodeFunctionResult({ abi: oneClickFarmAbi, functionName: 'oneClickDeposit', data: returned });
    case 'withdraw':
      return decodeFunctionResult({ abi: oneClickWithdrawAbi, functionName: 'oneClickWithdraw', data: returned });
    case 'claim':
      return decodeFunctionResult({ abi: stakingGaugeAbi, functionName: 'claim', data: returned });
  }
}
