/**
 * From a checked quote to the exact call we sign, for each kind of trade. A plan holds everything the
 * guards, the simulation, the approval and the outcome need, so they all look at the same bytes.
 */
import { type Address, type Hex, type TransactionReceipt, decodeFunctionResult, encodeFunctionData, zeroAddress } from 'viem';
import { oneClickFarmAbi, oneClickWithdrawAbi, routerAbi, stakingGaugeAbi } from '../chain/abi.ts';
import { encodeDepositCall, encodeSwapCall, encodeWithdrawCall } from '../chain/calldata.ts';
import { mintedTo, swapOutput, transferredTo, withdrawOutput } from '../chain/outcome.ts';
import { type SwapPayload, swapPayloadFrom } from '../chain/payload.ts';
import {
  checkDepositQuote,
  checkReadyTransaction,
  checkSwapQuote,
  checkWithdrawQuote,
  minimumOutput,
} from '../guard/guards.ts';
import { GuardRefusal } from '../guard/refusal.ts';
import type { IntentKind } from '../ledger/ledger.ts';
import type { EarnRoute, RouteDetail, SwapRoute } from '../service/schemas.ts';

export type TradeAsk = { kind: IntentKind; tokenIn: Address; tokenOut: Address; amountIn: bigint; slippageBps: number; wallet: Address };

export type TradePlan = {
  /** The contract we call. */
  target: Address;
  /** Who pulls `amountIn` of `tokenIn` from the wallet (router for swaps, OneClickFarm otherwise); none for a claim. */
  spender?: Address;
  expectedOut: bigint;
  minOut: bigint;
  /** Every deadline the call carries (Unix seconds); the earliest is when it can no longer succeed. */
  deadlines: bigint[];
  data: Hex;
  contracts: { router?: Address; oneClickFarm?: Address; farm?: Address; gauge?: Address };
  /** The call's return value as the amount it pays. */
  decodeReturn(returned: Hex): bigint;
  /** What a mined receipt shows was paid to the wallet. */
  outcome(receipt: TransactionReceipt): bigint | undefined;
  /** Checks the service's ready-to-sign transaction, if it sent one, against our call. */
  checkReadyTransaction(): void;
  /** What the ledger keeps of the quote. */
  summary: Record<string, unknown>;
};

/** The earliest deadline, or undefined when the call has none (a claim). */
export const earliest = (deadlines: bigint[]) => (deadlines.length === 0 ? undefined : deadlines.reduce((a, b) => (a < b ? a : b)));

/** `threshold`: the strategy's own minimum output in raw units, if any (raises minOut). */
export function swapPlan(ask: TradeAsk, route: SwapRoute, threshold?: bigint): TradePlan {
  checkSwapQuote(ask, route);
  const minOut = minimumOutput(route.expectedOut, ask.slippageBps, threshold);
  const payload = swapPayloadFrom(route.details, { minOutputAmount: minOut, to: ask.wallet });
  return {
    target: route.routerAddress,
    spender: route.routerAddress,
    expectedOut: route.expectedOut,
    minOut,
    deadlines: [payload.deadline],
    data: encodeSwapCall(payload),
    contracts: { router: route.routerAddress },
    decodeReturn: (returned) => decodeFunctionResult({ abi: routerAbi, functionName: 'swapExactInputForOutput', data: returned }),
    outcome: (receipt) => swapOutput(receipt, route.routerAddress, ask.wallet),
    checkReadyTransaction: () => checkReadyTransaction(route.txn, { to: route.routerAddress, from: ask.wallet, payload }),
    summary: { kind: 'swap', router: route.routerAddress, path: route.details.path, expectedOut: route.expectedOut, minOut, deadline: payload.deadline, partner: route.details.partner },
  };
}

/** Each leg keeps its own slippage floor; a one-token leg (no swap) needs none. */
function legPayloads(route: EarnRoute, slippageBps: number): SwapPayload[] {
  return route.underlyingRoutes.map((detail: RouteDetail) =>
    swapPayloadFrom(detail, {
      minOutputAmount: detail.pairs.length === 0 ? 0n : minimumOutput(detail.expectedOutputAmount, slippageBps),
      to: zeroAddress, // OneClickFarm sends each leg's output where it belongs
    }),
  );
}

function farmOf(route: EarnRoute): { addr: Address; extra: Hex } {
  if (!route.depositData) throw new GuardRefusal('quote-mismatch', 'the quote does not say which farm to use (no depositData)');
  return route.depositData;
}

/** What deposits and withdrawals share: OneClickFarm is called and pulls the input, legs keep their own floors. */
function earnPlan(
  kind: 'deposit' | 'withdraw',
  ask: TradeAsk,
  route: EarnRoute,
  call: (parts: { details: SwapPayload[]; farm: { addr: Address; extra: Hex }; minOut: bigint }) => Pick<TradePlan, 'data' | 'decodeReturn' | 'outcome'>,
): TradePlan {
  const farm = farmOf(route);
  const details = legPayloads(route, ask.slippageBps);
  const minOut = minimumOutput(route.expectedOut, ask.slippageBps);
  const deadlines = details.map((detail) => detail.deadline);
  return {
    target: route.oneClickFarmAddress,
    spender: route.oneClickFarmAddress,
    expectedOut: route.expectedOut,
    minOut,
    deadlines,
    contracts: { router: route.routerAddress, oneClickFarm: route.oneClickFarmAddress, farm: farm.addr },
    checkReadyTransaction: () => {},
    summary: { kind, oneClickFarm: route.oneClickFarmAddress, farm: farm.addr, expectedOut: route.expectedOut, minOut, deadline: earliest(deadlines), legs: details.length },
    ...call({ details, farm, minOut }),
  };
}

export function depositPlan(ask: TradeAsk, route: EarnRoute): TradePlan {
  checkDepositQuote(ask, route);
  return earnPlan('deposit', ask, route, ({ details, farm, minOut }) => ({
    data: encodeDepositCall({ details, router: route.routerAddress, farm: farm.addr, minExpected: minOut, to: ask.wallet, farmData: farm.extra }),
    decodeReturn: (returned) => decodeFunctionResult({ abi: oneClickFarmAbi, functionName: 'oneClickDeposit', data: returned }),
    outcome: (receipt) => mintedTo(receipt, ask.tokenOut, ask.wallet),
  }));
}

export function withdrawPlan(ask: TradeAsk, route: EarnRoute): TradePlan {
  checkWithdrawQuote(ask, route);
  return earnPlan('withdraw', ask, route, ({ details, farm, minOut }) => ({
    data: encodeWithdrawCall({
      position: ask.tokenIn,
      amount: ask.amountIn,
      farm: farm.addr,
      farmData: farm.extra,
      details,
      router: route.routerAddress,
      tokenOut: ask.tokenOut,
      minOut,
      to: ask.wallet,
    }),
    decodeReturn: (returned) => decodeFunctionResult({ abi: oneClickWithdrawAbi, functionName: 'oneClickWithdraw', data: returned }),
    outcome: (receipt) => withdrawOutput(receipt, route.oneClickFarmAddress, ask.wallet),
  }));
}

/**
 * Claiming a gauge's rewards: no quote and no approval; `tokenIn` is the gauge, `tokenOut` its reward token,
 * `amountIn` the rewards observed (the claim pays what has accrued by then, at least that).
 */
export function claimPlan(ask: TradeAsk): TradePlan {
  return {
    target: ask.tokenIn,
    expectedOut: ask.amountIn,
    minOut: 1n,
    deadlines: [],
    data: encodeFunctionData({ abi: stakingGaugeAbi, functionName: 'claim' }),
    contracts: { gauge: ask.tokenIn },
    decodeReturn: (returned) => decodeFunctionResult({ abi: stakingGaugeAbi, functionName: 'claim', data: returned }),
    outcome: (receipt) => transferredTo(receipt, ask.tokenOut, ask.wallet, ask.tokenIn),
    checkReadyTransaction: () => {},
    summary: { kind: 'claim', gauge: ask.tokenIn, rewardToken: ask.tokenOut, expectedOut: ask.amountIn },
  };
}

/** The outcome reader for an intent recorded earlier (after a restart), from its stored quote summary. */
export function outcomeReader(kind: IntentKind, summary: Record<string, unknown>, ask: Pick<TradeAsk, 'tokenOut' | 'wallet'>) {
  return (receipt: TransactionReceipt): bigint | undefined => {
    if (kind === 'swap') return swapOutput(receipt, summary.router as Address, ask.wallet);
    if (kind === 'deposit') return mintedTo(receipt, ask.tokenOut, ask.wallet);
    if (kind === 'claim') return transferredTo(receipt, ask.tokenOut, ask.wallet);
    return withdrawOutput(receipt, summary.oneClickFarm as Address, ask.wallet);
  };
}
