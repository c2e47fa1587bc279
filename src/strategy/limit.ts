import { displayNumber } from '../units.ts';
import { minimumFromPrice } from '../guard/guards.ts';
import type { Decision, LimitStrategy } from './types.ts';

export type LimitObservation = {
  now: number;
  sellBalance: bigint;
  /** What `amount` is worth in the buy token at the independent price reference; undefined without a price. */
  referenceOut: bigint | undefined;
  /** Why there is no reference price, when there is none (the price reference's words). */
  noPrice?: string;
  /** How many times a one-shot order already sold, or may have (trade/fills.ts); a repeating one is not asked (0). */
  fills: number;
};

/**
 * Take-profit: sell when `amount` is worth at least takeProfit × amount at the reference (and never accept
 * less on chain). Stop-loss: sell when it is worth at most stopLoss × amount. Both read the independent price
 * reference, never a quote; the trade's floor is then the reference less slippage (check.ts).
 */
export function decideLimit(strategy: LimitStrategy, observed: LimitObservation): Decision {
  const { sell, buy, amount } = strategy;
  if (strategy.expiresMs !== undefined && observed.now >= strategy.expiresMs) return { trades: [], note: 'expired' };
  if (!strategy.repeat && observed.fills > 0) return { trades: [], note: 'already filled once' };
  if (observed.sellBalance < amount)
    return { trades: [], note: `holds ${displayNumber(observed.sellBalance, sell.decimals)} ${sell.symbol}, less than the amount to sell` };
  if (observed.referenceOut === undefined) return { trades: [], note: observed.noPrice ? `no reference price: ${observed.noPrice}` : 'no reference price' };

  const atPrice = (price: string) => minimumFromPrice(amount, price, sell.decimals, buy.decimals);
  const worth = `${displayNumber(observed.referenceOut, buy.decimals)} ${buy.symbol}`;
  const swap = { kind: 'swap' as const, tokenIn: sell.address, tokenOut: buy.address, amountIn: amount };
  if (strategy.takeProfit !== undefined && observed.referenceOut >= atPrice(strategy.takeProfit)) {
    const floor = atPrice(strategy.takeProfit);
    return { trades: [{ ...swap, key: 'take-profit', minAmountOut: floor }], note: `take-profit: worth ${worth} ≥ ${displayNumber(floor, buy.decimals)}` };
  }
  if (strategy.stopLoss !== undefined && observed.referenceOut <= atPrice(strategy.stopLoss)) {
    return { trades: [{ ...swap, key: 'stop-loss' }], note: `stop-loss: worth ${worth} ≤ ${displayNumber(atPrice(strategy.stopLoss), buy.decimals)}` };
  }
  return { trades: [], note: `waiting: worth ${worth}` };
}
