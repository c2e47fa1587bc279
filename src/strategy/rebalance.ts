import { type Address, isAddressEqual } from 'viem';
import { displayNumber } from '../units.ts';
import type { Decision, PlannedTrade, RebalanceStrategy } from './types.ts';

/** `value` in the quote token's raw units at the reference prices; undefined when it cannot be valued (no price). */
export type Holding = { token: Address; balance: bigint; value: bigint | undefined };
export type RebalanceObservation = { holdings: Holding[]; quoteBalance: bigint };

const WEIGHT_SCALE = 1_000_000n;

/**
 * Brings the portfolio back to its target weights when any token drifted more than driftBps from its
 * target. Overweight tokens are sold for the quote token first, then underweight ones are bought with it,
 * so every buy has the funds it needs; buys are scaled down if the sells would not cover them.
 */
export function decideRebalance(strategy: RebalanceStrategy, observed: RebalanceObservation): Decision {
  const quote = strategy.quote;
  const totalWeight = strategy.targets.reduce((sum, t) => sum + t.weight, 0);
  const unvalued = observed.holdings.filter((h) => h.value === undefined && h.balance > 0n);
  if (unvalued.length > 0) {
    const symbols = strategy.targets.filter((t) => unvalued.some((h) => isAddressEqual(h.token, t.token.address))).map((t) => t.token.symbol);
    return { trades: [], note: `cannot value ${symbols.join(', ')} in ${quote.symbol} (no reference price): no trade` };
  }
  const holdingOf = (token: Address) => {
    const holding = observed.holdings.find((h) => isAddressEqual(h.token, token));
    return { token, balance: holding?.balance ?? 0n, value: holding?.value ?? 0n };
  };
  const total = strategy.targets.reduce((sum, t) => sum + holdingOf(t.token.address).value, 0n);
  if (total === 0n) return { trades: [], note: 'nothing to rebalance: the portfolio is worth 0' };

  const drifts = strategy.targets.map((target) => {
    const holding = holdingOf(target.token.address);
    const share = BigInt(Math.round((target.weight / totalWeight) * Number(WEIGHT_SCALE)));
    return { target, holding, drift: holding.value - (total * share) / WEIGHT_SCALE };
  });
  const worst = drifts.reduce((max, d) => {
    const bps = ((d.drift < 0n ? -d.drift : d.drift) * 10_000n) / total;
    return bps > max ? bps : max;
  }, 0n);
  if (worst < BigInt(strategy.driftBps)) return { trades: [], note: `within drift: the largest is ${worst} bps of ${strategy.driftBps}` };

  const isQuote = (address: Address) => isAddressEqual(address, quote.address);
  const sells: PlannedTrade[] = [];
  let proceeds = 0n;
  for (const { target, holding, drift } of drifts) {
    if (isQuote(target.token.address) || drift < strategy.minTrade || holding.value === 0n) continue;
    const amountIn = (holding.balance * drift) / holding.value;
    if (amountIn === 0n) continue;
    sells.push({ key: `sell-${target.token.symbol}`, kind: 'swap', tokenIn: target.token.address, tokenOut: quote.address, amountIn });
    proceeds += drift;
  }
  const wanted = drifts.filter(({ target, drift }) => !isQuote(target.token.address) && -drift >= strategy.minTrade);
  const need = wanted.reduce((sum, { drift }) => sum - drift, 0n);
  const available = observed.quoteBalance + proceeds;
  const buys: PlannedTrade[] = wanted
    .map(({ target, drift }) => ({
      key: `buy-${target.token.symbol}`,
      kind: 'swap' as const,
      tokenIn: quote.address,
      tokenOut: target.token.address,
      amountIn: need > available ? (-drift * available) / need : -drift,
    }))
    .filter((trade) => trade.amountIn > 0n);
  const trades = [...sells, ...buys];
  if (trades.length === 0)
    return {
      trades,
      note: `drifted ${worst} bps, but every trade would be below the minimum of ${displayNumber(strategy.minTrade, quote.decimals)} ${quote.symbol}`,
    };
  return { trades, note: `drifted ${worst} bps: ${sells.length} sell(s), then ${buys.length} buy(s)` };
}
