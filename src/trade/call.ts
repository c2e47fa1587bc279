/**
 * From a proposal to the exact call we sign, for each kind of trade: our own recipient, our own minimum
 * (see minimumOutput: never below the independent reference less our slippage), our own expected output,
 * every other route field passed through. Pure: the check stage calls this, then checks the result.
 */
import { type Address, type Hex, decodeFunctionResult, encodeFunctionData, maxUint128, maxUint256, zeroAddress } from 'viem';
import { oneClickFarmAbi, oneClickWithdrawAbi, positionManagerAbi, routerAbi, stakingGaugeAbi } from '../contracts/abi.ts';
import { encodeDepositCall, encodeSwapCall, encodeWithdrawCall } from '../contracts/calldata.ts';
import { type SwapPayload, swapPayloadFrom } from '../contracts/payload.ts';
import { minimumOutput } from '../guard/guards.ts';
import type { EarnRoute, RouteDetail } from '../routing-api/schemas.ts';
import type { Proposal } from './quote.ts';
import type { CheckedCall, PositionTrade, Trade, TradeKind } from '../model/trade.ts';

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
    case 'position':
      throw new Error('buildCall: a position trade is built by buildPositionCall, with its reference');
  }
}

/** What the reference price says a position trade's liquidity holds: the least of each token it may move, and when. */
export type PositionMinimums = { liquidity: bigint; amount0Min: bigint; amount1Min: bigint; deadline: bigint; referenceOut: bigint };

/**
 * A position trade's call, to the chain data's position manager only, every recipient the wallet itself (never one
 * anyone else names):
 *  - a collect sends everything owed;
 *  - an add takes at most the amounts asked, and at least the minimums the reference gives, before the deadline;
 *  - a removal takes the liquidity out with the reference's minimums and collects everything owed in the same
 *    transaction (the manager's multicall), then burns the emptied NFT when asked;
 *  - a mint opens the range in the trade's pool, with the reference's minimums, the NFT minted to the wallet.
 */
export function buildPositionCall(trade: PositionTrade, minimums?: PositionMinimums): BuiltCall {
  const { positionManager, positionId } = trade.position;
  const collectAll = { tokenId: positionId, recipient: trade.wallet, amount0Max: maxUint128, amount1Max: maxUint128 };
  if (trade.kind === 'collect') {
    return {
      target: positionManager,
      data: encodeFunctionData({ abi: positionManagerAbi, functionName: 'collect', args: [collectAll] }),
      // Whatever it is owed, however little: what it collected is read from its receipt.
      expectedOut: 0n,
      minOut: 0n,
    };
  }
  if (!minimums) throw new Error(`buildPositionCall: a ${trade.kind} needs its minimums from the reference`);
  const { amount0Min, amount1Min, deadline } = minimums;
  const checked = { expectedOut: minimums.liquidity, minOut: amount0Min, minOut1: amount1Min, referenceOut: minimums.referenceOut, deadline };
  switch (trade.kind) {
    case 'add-liquidity':
      return {
        target: positionManager,
        spender: positionManager,
        data: encodeFunctionData({
          abi: positionManagerAbi,
          functionName: 'increaseLiquidity',
          args: [{ tokenId: positionId, amount0Desired: trade.amountIn, amount1Desired: trade.amountIn1, amount0Min, amount1Min, deadline }],
        }),
        ...checked,
      };
    case 'remove-liquidity': {
      const steps: Hex[] = [
        encodeFunctionData({
          abi: positionManagerAbi,
          functionName: 'decreaseLiquidity',
          args: [{ tokenId: positionId, liquidity: trade.liquidity, amount0Min, amount1Min, deadline }],
        }),
        encodeFunctionData({ abi: positionManagerAbi, functionName: 'collect', args: [collectAll] }),
        ...(trade.burn ? [encodeFunctionData({ abi: positionManagerAbi, functionName: 'burn', args: [positionId] })] : []),
      ];
      return { target: positionManager, data: encodeFunctionData({ abi: positionManagerAbi, functionName: 'multicall', args: [steps] }), ...checked };
    }
    case 'mint':
      return {
        target: positionManager,
        spender: positionManager,
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
    case 'collect':
      // What it pays in token1 (token0's is read beside it, from the event).
      return decodeFunctionResult({ abi: positionManagerAbi, functionName: 'collect', data: returned })[1];
    case 'add-liquidity':
      // The liquidity it bought.
      return decodeFunctionResult({ abi: positionManagerAbi, functionName: 'increaseLiquidity', data: returned })[0];
    case 'remove-liquidity': {
      // The multicall's second answer is the collect's: what it paid in token1.
      const [, collected] = decodeFunctionResult({ abi: positionManagerAbi, functionName: 'multicall', data: returned });
      return collected === undefined ? 0n : decodeFunctionResult({ abi: positionManagerAbi, functionName: 'collect', data: collected })[1];
    }
    case 'mint':
      // The liquidity it bought.
      return decodeFunctionResult({ abi: positionManagerAbi, functionName: 'mint', data: returned })[1];
  }
}
