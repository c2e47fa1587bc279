import { displayNumber } from '../units.ts';
import { minimumFromPrice } from '../guard/guards.ts';
import type { DcaStrategy, Decision } from './types.ts';

export type DcaObservation = { sellBalance: bigint };

/** Sell a fixed amount every slot (the price limit and budgets are enforced by the guards). */
export function decideDca(strategy: DcaStrategy, observed: DcaObservation): Decision {
  const { sell, buy, amount } = strategy;
  if (observed.sellBalance < amount) {
    return { trades: [], note: `holds ${displayNumber(observed.sellBalance, sell.decimals)} ${sell.symbol}, needs ${displayNumber(amount, sell.decimals)}` };
  }
  return {
    trades: [
      {
        key: 'buy',
        kind: 'swap',
        tokenIn: sell.address,
        tokenOut: buy.address,
        amountIn: amount,
        // The price limit as a raw minimum, with the decimals already resolved (no chain read per run).
        minAmountOut: strategy.minPrice === undefined ? undefined : minimumFromPrice(amount, strategy.minPrice, sell.decimals, buy.decimals),
      },
    ],
    note: `sell ${displayNumber(amount, sell.decimals)} ${sell.symbol} for ${buy.symbol}`,
  };
}
