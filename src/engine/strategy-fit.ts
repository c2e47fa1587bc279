/**
 * Whether a trade read back from the ledger is one a strategy of the current file could have asked for: the
 * database can hold rows no strategy made (written by hand, restored from elsewhere, left by an older file), and a
 * trade resumed before signing is signed on its row's word. It must name a strategy of this file, trade from that
 * strategy's wallet, in its tokens, by its amount rule, with no looser slippage.
 */
import { type Address, isAddressEqual } from 'viem';
import type { Strategy } from '../strategy/types.ts';
import type { StrategyFit } from '../trade/stored.ts';
import { type Trade, isPositionTrade } from '../model/trade.ts';
import { parseSliceKey, parseTradeSlot } from '../model/trade-slot.ts';

export function strategyFit(strategies: readonly Strategy[], walletOf: (strategy: Strategy) => Address | undefined): StrategyFit {
  const byId = new Map(strategies.map((strategy) => [strategy.id, strategy]));
  return (trade) => {
    const strategy = byId.get(trade.strategyId);
    if (!strategy) return `no strategy '${trade.strategyId}' is in the current strategy file`;
    const wallet = walletOf(strategy);
    if (!wallet || !isAddressEqual(wallet, trade.wallet)) return `strategy ${strategy.id} trades from ${wallet ?? 'no wallet'}, not ${trade.wallet}`;
    if (trade.slippageBps > strategy.slippageBps)
      return `its slippage of ${trade.slippageBps} bps is looser than strategy ${strategy.id}'s ${strategy.slippageBps} bps`;
    const misfit = shapeMisfit(strategy, trade);
    return misfit && `it is not a trade strategy ${strategy.id} (${strategy.kind}) asks for: ${misfit}`;
  };
}

const same = (a: Address, b: Address) => isAddressEqual(a, b);

const isSlice = (trade: Trade) => parseSliceKey(parseTradeSlot(trade.slot).key ?? '') !== undefined;

/** What in the trade's kind, tokens or amount the strategy would never ask for (undefined: nothing). */
function shapeMisfit(strategy: Strategy, trade: Trade): string | undefined {
  switch (strategy.kind) {
    case 'dca':
    case 'limit':
      if (trade.kind !== 'swap') return `a ${trade.kind}`;
      if (!same(trade.tokenIn, strategy.sell.address) || !same(trade.tokenOut, strategy.buy.address)) return `${trade.tokenIn} for ${trade.tokenOut}`;
      if (trade.amountIn === strategy.amount) return undefined;
      // A slice of an order worked over time is a part of it.
      if (strategy.split && isSlice(trade) && trade.amountIn > 0n && trade.amountIn <= strategy.amount) return undefined;
      return `an amount of ${trade.amountIn}, not ${strategy.amount}${strategy.split ? ' nor a slice of it' : ''}`;
    case 'rebalance': {
      if (trade.kind !== 'swap') return `a ${trade.kind}`;
      const tokens = [strategy.quote.address, ...strategy.targets.map((target) => target.token.address)];
      const listed = (token: Address) => tokens.some((known) => same(known, token));
      return listed(trade.tokenIn) && listed(trade.tokenOut) && !same(trade.tokenIn, trade.tokenOut) ? undefined : `${trade.tokenIn} for ${trade.tokenOut}`;
    }
    case 'compound': {
      const { gauge } = strategy;
      if (trade.kind === 'claim')
        return same(trade.tokenIn, gauge.address) && same(trade.tokenOut, gauge.rewardToken.address) ? undefined : `a claim of ${trade.tokenIn}`;
      if (trade.kind === 'deposit')
        return same(trade.tokenIn, gauge.rewardToken.address) && same(trade.tokenOut, gauge.address)
          ? undefined
          : `a deposit of ${trade.tokenIn} into ${trade.tokenOut}`;
      if (trade.kind === 'withdraw')
        return strategy.exit && same(trade.tokenIn, gauge.address) && same(trade.tokenOut, strategy.exit.to.address)
          ? undefined
          : `a withdrawal of ${trade.tokenIn} for ${trade.tokenOut}`;
      return `a ${trade.kind}`;
    }
    case 'uniswap-v3-position': {
      const { token0, token1 } = strategy.pool;
      if (trade.kind === 'swap') {
        const pair =
          (same(trade.tokenIn, token0.address) && same(trade.tokenOut, token1.address)) ||
          (same(trade.tokenIn, token1.address) && same(trade.tokenOut, token0.address));
        return pair ? undefined : `${trade.tokenIn} for ${trade.tokenOut}`;
      }
      if (!isPositionTrade(trade)) return `a ${trade.kind}`;
      // The file's position, or one a re-range (or the strategy's own opening, which replaces none: id 0) opened
      // after it, always a higher id: which one the wallet holds is the chain's to say, and the checks read it there
      // before anything is signed.
      const ours =
        same(trade.position.positionManager, strategy.positionManager.address) &&
        trade.position.positionId >= (strategy.positionId ?? 0n) &&
        (trade.kind !== 'mint' || trade.fee === strategy.pool.fee) &&
        (trade.kind !== 'move-position' || trade.mint === undefined || trade.mint.fee === strategy.pool.fee) &&
        same(trade.tokenIn, token0.address) &&
        same(trade.tokenOut, token1.address);
      return ours ? undefined : `a ${trade.kind} of position ${trade.position.positionId} of ${trade.position.positionManager}`;
    }
  }
}
