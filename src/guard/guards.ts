/**
 * The checks a quote must pass before anything is signed. Each is a small function that returns nothing
 * or throws a GuardRefusal naming its reason. The service is untrusted: every field that reaches the
 * chain is compared with what we asked for, or computed by us.
 */
import { type Address, type Hex, decodeFunctionData, isAddressEqual } from 'viem';
import { routerAbi } from '../contracts/abi.ts';
import type { SwapPayload } from '../contracts/payload.ts';
import type { KnownContracts } from '../config/chain-data.ts';
import type { EarnRoute, SwapRoute } from '../routing-api/schemas.ts';
import { displayNumber } from '../units.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';

/** Whether `address` is in `list` (addresses compared without regard to case). */
export const listed = (list: readonly Address[], address: Address) => list.some((entry) => isAddressEqual(entry, address));

/** The router, OneClickFarm and gauge a call targets or approves are known for the chain. */
export function checkContractsAllowed(
  known: Pick<KnownContracts, 'routers' | 'oneClickFarms' | 'gauges'>,
  contracts: { router?: Address; oneClickFarm?: Address; gauge?: Address },
): void {
  if (
    contracts.gauge &&
    !listed(
      known.gauges.map((gauge) => gauge.address),
      contracts.gauge,
    )
  ) {
    throw new GuardRefusal('contract-not-allowed', `gauge ${contracts.gauge} is not a known gauge on this chain`);
  }
  if (contracts.router && !listed(known.routers, contracts.router)) {
    throw new GuardRefusal('contract-not-allowed', `router ${contracts.router} is not a known router on this chain`, undefined, 'routerAddress');
  }
  if (contracts.oneClickFarm && !listed(known.oneClickFarms, contracts.oneClickFarm)) {
    throw new GuardRefusal(
      'contract-not-allowed',
      `OneClickFarm ${contracts.oneClickFarm} is not a known OneClickFarm on this chain`,
      undefined,
      'oneClickFarmAddress',
    );
  }
}

function mismatch(what: string, expected: unknown, got: unknown): never {
  throw new GuardRefusal('quote-mismatch', `the quote's ${what} is ${String(got)}, not ${String(expected)} as asked`);
}

/** A swap quote trades exactly what we asked: from tokenIn, to tokenOut, the whole amount, one expected output. */
export function checkSwapQuote(asked: { tokenIn: Address; tokenOut: Address; amountIn: bigint }, route: SwapRoute): void {
  const { path } = route.details;
  if (!isAddressEqual(path[0] as Address, asked.tokenIn)) mismatch('first path token', asked.tokenIn, path[0]);
  if (!isAddressEqual(path[path.length - 1] as Address, asked.tokenOut)) mismatch('last path token', asked.tokenOut, path[path.length - 1]);
  if (route.details.inputAmount !== asked.amountIn) mismatch('inputAmount', asked.amountIn, route.details.inputAmount);
  if (route.expectedOut !== route.details.expectedOutputAmount) mismatch('expectedOut', route.details.expectedOutputAmount, route.expectedOut);
  if (route.expectedOut === 0n) mismatch('expectedOut', 'more than 0', 0n);
}

/** A deposit spends exactly the amount asked, every route starting at tokenIn. */
export function checkDepositQuote(asked: { tokenIn: Address; amountIn: bigint }, route: EarnRoute): void {
  let total = 0n;
  for (const [i, detail] of route.underlyingRoutes.entries()) {
    if (!isAddressEqual(detail.path[0] as Address, asked.tokenIn)) mismatch(`route ${i} first token`, asked.tokenIn, detail.path[0]);
    total += detail.inputAmount;
  }
  if (total !== asked.amountIn) mismatch('total input of its routes', asked.amountIn, total);
  if (route.expectedOut === 0n) mismatch('expectedOut', 'more than 0', 0n);
}

/** A withdraw routes every underlying to tokenOut. (Its inputs are the unwind's, which the farm measures.) */
export function checkWithdrawQuote(asked: { tokenOut: Address }, route: EarnRoute): void {
  for (const [i, detail] of route.underlyingRoutes.entries()) {
    if (!isAddressEqual(detail.path[detail.path.length - 1] as Address, asked.tokenOut))
      mismatch(`route ${i} last token`, asked.tokenOut, detail.path[detail.path.length - 1]);
  }
  if (route.expectedOut === 0n) mismatch('expectedOut', 'more than 0', 0n);
}

/** The deadline is still ahead of the chain (with room to be mined) and not further than we allow. */
export function checkDeadline(deadlines: readonly bigint[], chainTime: bigint, bounds: { minSeconds: number; maxSeconds: number }): void {
  for (const deadline of deadlines) {
    if (deadline < chainTime + BigInt(bounds.minSeconds)) {
      throw new GuardRefusal('deadline', `the quote's deadline ${deadline} leaves less than ${bounds.minSeconds} s after the chain's time ${chainTime}`);
    }
    if (deadline > chainTime + BigInt(bounds.maxSeconds)) {
      throw new GuardRefusal('deadline', `the quote's deadline ${deadline} is more than ${bounds.maxSeconds} s after the chain's time ${chainTime}`);
    }
  }
}

/** The strategy's own floor: an absolute minimum output and/or a price limit, both already in raw units. */
export function checkThreshold(expectedOut: bigint, threshold: bigint | undefined): void {
  if (threshold !== undefined && expectedOut < threshold) {
    throw new GuardRefusal('threshold', `the quote pays ${expectedOut}, below the strategy's minimum ${threshold}`);
  }
}

/**
 * The least output we accept on chain: the quote's expected output less our slippage, never below what the
 * independent reference says less the same slippage, raised to the strategy's threshold (all rounded down).
 * Never capped at the quote: a quote that promises less than the reference does not lower the floor.
 */
export function minimumOutput(expectedOut: bigint, slippageBps: number, floors: { threshold?: bigint; reference?: bigint } = {}): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) throw new RangeError(`slippageBps must be 0–10000, got ${slippageBps}`);
  const slipped = (amount: bigint) => (amount * BigInt(10_000 - slippageBps)) / 10_000n;
  let minimum = slipped(expectedOut);
  if (floors.reference !== undefined && slipped(floors.reference) > minimum) minimum = slipped(floors.reference);
  if (floors.threshold !== undefined && floors.threshold > minimum) minimum = floors.threshold;
  return minimum;
}

/**
 * The route's own pools pay within the tolerance of what the oracle says the output is worth (less the pools'
 * fees). Less means pools pushed away from the market, or a trade too large for them: no trade either way.
 */
export function checkMarket(marketOut: bigint, oracleOut: bigint, toleranceBps: number): void {
  const lowest = (oracleOut * BigInt(10_000 - toleranceBps)) / 10_000n;
  if (marketOut < lowest) {
    throw new GuardRefusal(
      'price',
      `the route's pools pay ${marketOut}, below the oracle's ${oracleOut} by more than ${toleranceBps} bps (least accepted ${lowest}): pools off the market, or a trade too large for them`,
    );
  }
}

/**
 * The quote pays at least the independent reference less the tolerance. A lower quote is an under-quote (the
 * service keeping the difference) or a market that moved away from the reference; either way, no trade.
 */
export function checkPrice(quoted: bigint, reference: { amountOut: bigint; basis: string }, toleranceBps: number): void {
  const lowest = (reference.amountOut * BigInt(10_000 - toleranceBps)) / 10_000n;
  if (quoted < lowest) {
    throw new GuardRefusal(
      'price',
      `the quote pays ${quoted}, below the reference ${reference.amountOut} by more than ${toleranceBps} bps (least accepted ${lowest})`,
      `reference: ${reference.basis}`,
      'expectedOut',
    );
  }
}

/**
 * The minimum output a price limit implies: amountIn × price, where price is tokenOut per tokenIn in human
 * units ("0.5"), converted with both tokens' on-chain decimals and rounded up (never accept less).
 */
export function minimumFromPrice(amountIn: bigint, price: string, decimalsIn: number, decimalsOut: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(price);
  if (!match) throw new RangeError(`price must be a decimal number, got '${price}'`);
  const fraction = match[2] ?? '';
  const numerator = BigInt(match[1] + fraction) * 10n ** BigInt(decimalsOut);
  const denominator = 10n ** BigInt(fraction.length + decimalsIn);
  return (amountIn * numerator + denominator - 1n) / denominator;
}

/**
 * A ready-to-sign transaction from the service is never signed, but it must describe our call: same target,
 * function, recipient, amount, route, deadline, partner and signature. Its minimum and expected output are the
 * service's; ours come from the reference and our own decision (see call.ts).
 */
export function checkReadyTransaction(txn: SwapRoute['txn'], ours: { to: Address; from: Address; payload: SwapPayload }): void {
  if (!txn) return;
  if ('error' in txn) return; // the service could not build one: nothing to check, we build our own anyway
  const refuse = (what: string) => {
    throw new GuardRefusal('ready-transaction-mismatch', `the service's ready-to-sign transaction differs from ours: ${what}`);
  };
  if (!isAddressEqual(txn.to, ours.to)) refuse(`it calls ${txn.to}, not the router ${ours.to}`);
  if (!isAddressEqual(txn.from, ours.from)) refuse(`it is from ${txn.from}, not our wallet`);
  if (txn.value !== undefined && txn.value !== 0n) refuse(`it sends ${txn.value} wei of native coin`);
  let decoded: ReturnType<typeof decodeFunctionData<typeof routerAbi>>;
  try {
    decoded = decodeFunctionData({ abi: routerAbi, data: txn.data as Hex });
  } catch {
    return refuse('its data is not a router call');
  }
  if (decoded.functionName !== 'swapExactInputForOutput') return refuse(`it calls ${decoded.functionName}`);
  const theirs = decoded.args[0];
  for (const field of ['to', 'inputAmount', 'deadline', 'partner', 'sig'] as const) {
    if (String(theirs[field]).toLowerCase() !== String(ours.payload[field]).toLowerCase()) {
      refuse(`${field} is ${String(theirs[field])}, ours is ${String(ours.payload[field])}`);
    }
  }
  for (const field of ['path', 'pairs', 'extras'] as const) {
    if (theirs[field].join(',').toLowerCase() !== ours.payload[field].join(',').toLowerCase()) refuse(`its ${field} differ`);
  }
}

export function checkFeeCap(maxFeePerGas: bigint, cap: bigint | undefined): void {
  if (cap !== undefined && maxFeePerGas > cap) {
    throw new GuardRefusal('fee-cap', `gas costs ${maxFeePerGas} wei per gas now, above the cap of ${cap}`);
  }
}

/** Spend limits of one token, in raw units; its symbol and decimals, when known, word the refusal for people. */
export type Budget = { token: Address; perDay?: bigint; total?: bigint; symbol?: string; decimals?: number };

/** Whether spending `amount` more keeps every budget; `spent` gives what is already committed in a window. */
export function checkBudget(budget: Budget, amount: bigint, scope: string, spent: (window: 'day' | 'total') => bigint): void {
  for (const window of ['day', 'total'] as const) {
    const limit = window === 'day' ? budget.perDay : budget.total;
    if (limit === undefined) continue;
    const already = spent(window);
    if (already + amount > limit) {
      const shown = (raw: bigint) =>
        budget.decimals === undefined ? `${raw}` : `${displayNumber(raw, budget.decimals)}${budget.symbol ? ` ${budget.symbol}` : ''}`;
      throw new GuardRefusal(
        'budget',
        `${scope} ${window === 'day' ? 'daily' : 'total'} budget: ${shown(already)} spent + ${shown(amount)} would pass ${shown(limit)}`,
      );
    }
  }
}

/**
 * The route delivered, in the simulation of the exact transaction, at least what its hops quoted on the same state
 * (the quotes set the reference our minimum comes from): an adapter whose quote promises more than its swap pays is
 * refused, naming the first hop that fell short when the simulation shows each hop's swap.
 */
export function checkDelivered(quoted: readonly bigint[], delivered: bigint, perHop?: readonly { pool: string; amountOut: bigint }[]): void {
  const promised = quoted.at(-1) ?? 0n;
  if (delivered >= promised) return;
  const short = perHop?.length === quoted.length ? perHop.findIndex((swap, i) => swap.amountOut < (quoted[i] as bigint)) : -1;
  const which = short >= 0 ? `: hop ${short} (pool ${perHop?.[short]?.pool}) quoted ${quoted[short]} and swapped for ${perHop?.[short]?.amountOut}` : '';
  throw new GuardRefusal(
    'simulation',
    `the route's hops quoted ${promised}, but a simulation of the exact transaction delivers ${delivered} to the router${which}`,
    undefined,
    short >= 0 ? `details.pairs[${short}]` : undefined,
  );
}

export function checkSimulation(simulatedOut: bigint, minOut: bigint): void {
  if (simulatedOut < minOut) {
    throw new GuardRefusal('simulation', `a simulation of the exact transaction pays ${simulatedOut}, below our minimum ${minOut}`);
  }
}
