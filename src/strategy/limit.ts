import { formatTokenAmount } from '../units.ts';
import { minimumFromPrice } from '../guard/guards.ts';
import type { Decision, LimitStrategy } from './types.ts';

export type LimitObservation = {
  now: number;
  sellBalance: bigint;
  /** What the service quotes for selling `amount` now; undefined when it has no route. */
  quotedOut: bigint | undefined;
  /** How many times this strategy already sold (confirmed runs). */
  fills: number;
};

/**
 * Take-profit: sell when `amount` fetches at least takeProfit × amount (and never accept less on chain).
 * Stop-loss: sell when it fetches at most stopLoss × amount (slippage is then the only floor).
 */
export function decideLimit(strategy: LimitStrategy, observed: LimitObservation): Decision {
  const { sell, buy, amount } = strategy;
  if (strategy.expiresMs !== undefined && observed.now >= strategy.expiresMs) return { trades: [], note: 'expired' };
  if (!strategy.repeat && observed.fills > 0) return { trades: [], note: 'already filled once' };
  if (observed.sellBalance < amount) return { trades: [], note: `holds ${formatTokenAmount(observed.sellBalance, sell.decimals)} ${sell.symbol}, less than the amount to sell` };
  if (observed.quotedOut === undefined) return { trades: [], note: 'no quote' };

  const atPrice = (price: string) => minimumFromPrice(amount, price, sell.decimals, buy.decimals);
  const quoted = `${formatTokenAmount(observed.quotedOut, buy.decimals)} ${buy.symbol}`;
  const swap = { kind: 'swap' as const, tokenIn: sell.address, tokenOut: buy.address, amountIn: amount };
  if (strategy.takeProfit !== undefined && observed.quotedOut >= atPrice(strategy.takeProfit)) {
    const floor = atPrice(strategy.takeProfit);
    return { trades: [{ ...swap, key: 'take-profit', minAmountOut: floor }], note: `take-profit: quoted ${quoted} ≥ ${formatTokenAmount(floor, buy.decimals)}` };
  }
  if (strategy.stopLoss !== undefined && observed.quotedOut <= atPrice(strategy.stopLoss)) {
    return { trades: [{ ...swap, key: 'stop-loss' }], note: `stop-loss: quoted ${quoted} ≤ ${formatTokenAmount(atPrice(strategy.stopLoss), buy.decimals)}` };
  }
  return { trades: [], note: `waiting: quoted ${quoted}` };
}
