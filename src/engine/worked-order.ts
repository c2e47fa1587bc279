/**
 * An order larger than the market, worked in slices over time. A strategy whose file says `split` sells its order
 * (a DCA's buy, a limit's sale, a rebalance's sells and buys) in slices, each an ordinary trade of its own
 * (`<slot>#<key>.<n>`: claimed once, quoted, checked and settled as any trade), so that no slice pays more than
 * `maxImpactBps` below the independent reference:
 *  - each slice is the largest part of what is left (found by halving it up to 6 times, then closing in to an eighth)
 *    whose quote is within `maxImpactBps` of the reference. The quote only sizes it: the slice is quoted and checked
 *    again as any trade is, and a service that claims a better price gets a larger slice refused, never a larger sale;
 *  - where the service shares an amount across routes through disjoint pools (our GET /routes/split), the slice is
 *    quoted so and goes out in as many parts, side by side in one block, each a trade of its own that avoids the other
 *    parts' pools from its first quote and is checked on its own;
 *  - slices are `every` apart, so that pools and Mento's limit windows refill; before each the strategy decides again
 *    on the market read then, and the order stops when it no longer asks for it (the price left its bounds);
 *  - the order ends when all of it is sold, or `within` after its first slice, with what was left reported.
 * What is left is never a column of ours: it is the order's amount less the slices the wallet's history shows filled
 * or signed (proven by their tags and, for a signature, by the chain), so a slice is never sent twice and a restart
 * goes on with the remainder only.
 */
import { type Address, isAddressEqual } from 'viem';
import { parseSliceKey, parseTradeSlot, sliceKey } from '../model/trade-slot.ts';
import type { OrderStart, TradeReport } from '../model/trade.ts';
import { sleep, throwIfAborted } from '../ops/abort.ts';
import type { PlannedTrade, SplitOrders, Strategy } from '../strategy/types.ts';
import { filledStates, signedAndMayHaveTraded } from '../trade/fills.ts';
import { runTrade } from '../trade/pipeline.ts';
import { readWalletHistory } from '../trade/wallet-history.ts';
import { type TokenInfo, displayNumber } from '../units.ts';
import type { RunDeps } from './run-types.ts';

/** The kinds that trade an amount, and may work it in slices. */
export type SplittingStrategy = Extract<Strategy, { kind: 'dca' | 'limit' | 'rebalance' }> & { split: SplitOrders };

export const worksInSlices = (strategy: Strategy): strategy is SplittingStrategy =>
  (strategy.kind === 'dca' || strategy.kind === 'limit' || strategy.kind === 'rebalance') && strategy.split !== undefined;

/** Halvings tried for a slice within the impact: the smallest slice is 1/64 of what is left. */
const halvings = 6;
/** Steps that then close in on the largest slice within it, to an eighth of the one found. */
const refinements = 3;
/** Refusals after which no later slice would go either: a pause, a budget spent. A price refusal waits for the pool. */
const stopsTheOrder: readonly string[] = ['paused', 'budget'];

export type PlannedSwap = PlannedTrade & { kind: 'swap'; amountIn: bigint };

/** What an order's slices did, as far as this run saw them (slices of earlier runs of the slot included). */
export type WorkedOrder = { key: string; amount: bigint; sold: bigint; bought: bigint; slices: number; ended: string; reports: TradeReport[] };

/**
 * Works the order `planned` of the run of `slot`, decided on what is left of it. `decideAgain`: the strategy's decision
 * now, on the market read now, for what is left (the order stops when it no longer asks for the order's key).
 */
export async function workOrder(
  strategy: SplittingStrategy,
  slot: string,
  planned: PlannedSwap,
  deps: RunDeps,
  decideAgain: (left: bigint) => Promise<PlannedTrade[]>,
  makeTrade: (slice: PlannedSwap) => Parameters<typeof runTrade>[1],
): Promise<WorkedOrder> {
  const { split } = strategy;
  const pace = deps.pace ?? sleep;
  const now = deps.view.now;
  const earlier = await slicesSoFar(strategy, slot, planned.key, deps);
  // What the service quoted for the whole order on one route as it started: its slices carry it, for `status`.
  const start = earlier.lastN > 0 ? earlier.start : await oneRouteQuote(planned, deps);
  let amount = planned.amountIn + earlier.spent;
  let { spent } = earlier;
  let next = earlier.lastN + 1;
  const deadline = (earlier.firstAt ?? now()) + split.withinMs;
  const order: WorkedOrder = { key: planned.key, amount, sold: earlier.spent, bought: earlier.bought, slices: earlier.slices, ended: '', reports: [] };
  let current = planned;
  for (;;) {
    throwIfAborted(deps.signal);
    const left = amount - spent;
    if (left <= 0n) {
      order.ended = 'all sold';
      break;
    }
    if (now() >= deadline) {
      order.ended = `its ${Math.round(split.withinMs / 60_000)} min passed with ${display(left, tokenOf(strategy, current.tokenIn))} left`;
      break;
    }
    const slice = await sliceWithinImpact(strategy, current, left, deps);
    if (slice) {
      // Its parts go out side by side, each its own trade on its own route, avoiding the other parts' pools from its
      // first quote and checked on its own: the wallet signs them in turn on consecutive nonces (a part signed after
      // another is checked again, simulated after the other's transactions) and sends them without waiting for each
      // other's receipts, so they land in one block. The pools being disjoint, each meets the state it was quoted on.
      const parts = slice.parts.map((part) => ({
        trade: {
          ...makeTrade({
            ...current,
            key: sliceKey(planned.key, next++),
            amountIn: part.amountIn,
            // The strategy's floor holds for every part at the same price.
            ...(current.minAmountOut !== undefined && { minAmountOut: ceilDiv(current.minAmountOut * part.amountIn, current.amountIn) }),
          }),
          ...(start && { order: start }),
        },
        avoidPools: slice.parts.filter((other) => other !== part).flatMap((other) => other.pools),
      }));
      const executed = await Promise.all(parts.map(({ trade, avoidPools }) => runTrade(deps.executor, trade, deps.signal, deps.run?.id, { avoidPools })));
      order.reports.push(...executed);
      for (const report of executed.filter((one) => one.status === 'confirmed')) {
        spent += report.trade.amountIn;
        order.sold += report.trade.amountIn;
        order.bought += report.amountOut ?? 0n;
        order.slices++;
      }
      // Failed, its outcome not known yet (nothing more until the chain has settled it), paused, or over budget.
      const stopped = executed.find((one) => (one.status !== 'confirmed' && one.status !== 'refused') || stopsTheOrder.includes(one.refusal ?? ''));
      if (stopped) {
        order.ended = `slice ${parseTradeSlot(stopped.intentId).key} ${stopped.status}${stopped.reason ? `: ${stopped.reason}` : ''}`;
        break;
      }
      if (amount - spent <= 0n) continue;
    }
    await pace(split.everyMs, deps.signal);
    const again = (await decideAgain(amount - spent)).find((trade) => trade.key === planned.key);
    if (again?.kind !== 'swap' || typeof again.amountIn !== 'bigint') {
      order.ended = 'the strategy no longer asks for it (the price left its bounds, or the portfolio is back within its drift)';
      break;
    }
    current = { ...again, kind: 'swap', amountIn: again.amountIn };
    // A rebalance decided again may need less (prices moved); never more than the order.
    if (spent + again.amountIn < amount) amount = spent + again.amountIn;
  }
  return order;
}

/** What the slices of the run of `slot` sold, of every order of it (a DCA's or a limit's run has one). */
export const soldInSlot = async (strategy: Strategy, slot: string, deps: RunDeps): Promise<bigint> =>
  (await slicesSoFar(strategy, slot, undefined, deps)).spent;

/**
 * The slices of the run of `slot` (of the order `orderKey`, or of all its orders) the wallet's history shows: what they
 * spent (filled, or signed and may have traded), and their numbers.
 */
async function slicesSoFar(strategy: Strategy, slot: string, orderKey: string | undefined, deps: RunDeps) {
  const history = await readWalletHistory(deps.executor);
  let [spent, bought, slices, lastN] = [0n, 0n, 0, 0];
  let firstAt: number | undefined;
  let start: OrderStart | undefined;
  for (const past of history.ofStrategy(strategy.id)) {
    const { runSlot, key } = parseTradeSlot(past.record.slot);
    const slice = key === undefined ? undefined : parseSliceKey(key);
    if (runSlot !== slot || !slice || (orderKey !== undefined && slice.orderKey !== orderKey)) continue;
    lastN = Math.max(lastN, slice.n);
    if (past.record.kind === 'swap') start ??= past.record.order;
    firstAt = Math.min(firstAt ?? past.record.createdAt, past.record.createdAt);
    if (filledStates.includes(past.record.status) || (await signedAndMayHaveTraded(deps.executor, past))) {
      spent += past.record.amountIn;
      bought += past.record.settlement?.amountOut ?? 0n;
      slices++;
    }
  }
  return { spent, bought, slices, lastN, firstAt, start };
}

/** What the service quotes for the whole order on one route now (none: it gives no route). */
async function oneRouteQuote(planned: PlannedSwap, deps: RunDeps): Promise<OrderStart | undefined> {
  const route = await deps.executor.routing
    .getSwapRoute({
      tokenIn: planned.tokenIn,
      tokenOut: planned.tokenOut,
      amountIn: planned.amountIn,
      chainId: deps.executor.wallet.chainId,
      ...(deps.signal && { signal: deps.signal }),
    })
    .catch(() => undefined);
  return route && { amountIn: planned.amountIn, oneRouteOut: route.expectedOut };
}

/** A slice: its size, and its parts, one per route (several where the service shares it across routes in one block). */
type Slice = { size: bigint; parts: { amountIn: bigint; pools: readonly Address[] }[] };

/**
 * The largest part of `left` (halved up to `halvings` times, then closed in on) whose quote pays within `maxImpactBps`
 * of the reference: none when no part does now. The quote is the service's word and only sizes the slice. Where the
 * service shares an amount across routes in one block (GET /routes/split), the slice is quoted so and goes out in as
 * many parts; a split whose parts do not add up to the amount asked is not taken.
 */
async function sliceWithinImpact(strategy: SplittingStrategy, planned: PlannedSwap, left: bigint, deps: RunDeps): Promise<Slice | undefined> {
  const [tokenIn, tokenOut] = [tokenOf(strategy, planned.tokenIn), tokenOf(strategy, planned.tokenOut)];
  const [usdIn, usdOut] = await Promise.all([deps.view.prices.usdPrice(tokenIn.address), deps.view.prices.usdPrice(tokenOut.address)]);
  const { executor, signal } = deps;
  const asked = (amountIn: bigint) => ({
    tokenIn: tokenIn.address,
    tokenOut: tokenOut.address,
    amountIn,
    chainId: executor.wallet.chainId,
    ...(signal && { signal }),
  });
  const quoted = async (size: bigint): Promise<(Slice & { expectedOut: bigint }) | undefined> => {
    const split = await executor.routing.getSplitRoutes(asked(size)).catch(() => undefined);
    const parts = split?.routes.map((route) => ({ amountIn: route.amountIn, pools: route.pools }));
    if (split && parts && parts.reduce((sum, part) => sum + part.amountIn, 0n) === size) return { size, parts, expectedOut: split.expectedOut };
    const route = await executor.routing.getSwapRoute(asked(size)).catch(() => undefined);
    return route && { size, parts: [{ amountIn: size, pools: [] }], expectedOut: route.expectedOut };
  };
  const fits = async (size: bigint): Promise<Slice | undefined> => {
    const quote = await quoted(size);
    const atReference = (size * usdIn.usdE18 * 10n ** BigInt(tokenOut.decimals)) / (usdOut.usdE18 * 10n ** BigInt(tokenIn.decimals));
    return quote && quote.expectedOut * 10_000n >= atReference * BigInt(10_000 - strategy.split.maxImpactBps) ? quote : undefined;
  };
  let size = left;
  let found = await fits(size);
  for (let tries = 0; !found; tries++) {
    if (tries === halvings || size < 2n) return undefined;
    size /= 2n;
    found = await fits(size);
  }
  if (size === left) return found;
  // Between what fits and twice it, which does not: a few more halvings of the gap.
  let step = size / 2n;
  for (let refine = 0; refine < refinements && step > 0n; refine++, step /= 2n) {
    const larger = await fits(size + step);
    if (larger) [size, found] = [size + step, larger];
  }
  return found;
}

/** The strategy's token at `address` (its decimals and symbol, for sizes and words). */
function tokenOf(strategy: SplittingStrategy, address: Address): TokenInfo {
  const tokens = strategy.kind === 'rebalance' ? [strategy.quote, ...strategy.targets.map((target) => target.token)] : [strategy.sell, strategy.buy];
  const token = tokens.find((candidate) => isAddressEqual(candidate.address, address));
  if (!token) throw new Error(`${strategy.id}: ${address} is none of its tokens`);
  return token;
}

const display = (amount: bigint, token: TokenInfo) => `${displayNumber(amount, token.decimals)} ${token.symbol}`;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** The order in words for the run's note: how much of it was sold, in how many slices, at what average price. */
export function orderInWords(strategy: SplittingStrategy, planned: PlannedSwap, order: WorkedOrder): string {
  const [sold, bought] = [tokenOf(strategy, planned.tokenIn), tokenOf(strategy, planned.tokenOut)];
  const average =
    order.sold > 0n
      ? `, ${displayNumber((order.bought * 10n ** BigInt(sold.decimals)) / order.sold, bought.decimals)} ${bought.symbol} per ${sold.symbol}`
      : '';
  return `${order.key}: ${display(order.sold, sold)} of ${display(order.amount, sold)} sold in ${order.slices} slice(s)${average}; ${order.ended}`;
}
