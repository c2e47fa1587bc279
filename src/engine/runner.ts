/**
 * One run of one strategy for one schedule slot: observe, decide, then execute the decided trades in order
 * (each its own ledger intent `<strategy>:<slot>#<key>`), stopping at the first that does not complete.
 */
import type { Budget } from '../guard/guards.ts';
import { decideCompound } from '../strategy/compound.ts';
import { decideDca } from '../strategy/dca.ts';
import { decideLimit } from '../strategy/limit.ts';
import { type MarketView, observeCompound, observeDca, observeLimit, observeRebalance } from '../strategy/observe.ts';
import { decideRebalance } from '../strategy/rebalance.ts';
import type { Decision, Strategy } from '../strategy/types.ts';
import { type ExecutionReport, type ExecutorDeps, executeTrade } from './executor.ts';

export type RunReport = { strategyId: string; slot: string; note: string; trades: ExecutionReport[] };

export type RunDeps = { executor: ExecutorDeps; view: MarketView; walletBudgets: readonly Budget[] };

export async function decide(strategy: Strategy, deps: RunDeps): Promise<Decision> {
  switch (strategy.kind) {
    case 'dca':
      return decideDca(strategy, await observeDca(strategy, deps.view));
    case 'limit': {
      const fills = deps.executor.ledger.history({ strategyId: strategy.id, limit: 10_000 }).filter((intent) => intent.status === 'confirmed').length;
      return decideLimit(strategy, await observeLimit(strategy, deps.view, fills));
    }
    case 'rebalance':
      return decideRebalance(strategy, await observeRebalance(strategy, deps.view));
    case 'compound':
      return decideCompound(strategy, await observeCompound(strategy, deps.view));
  }
}

export async function runStrategy(strategy: Strategy, slot: string, deps: RunDeps): Promise<RunReport> {
  const decision = await decide(strategy, deps);
  const report: RunReport = { strategyId: strategy.id, slot, note: decision.note, trades: [] };
  const strategyBudgets: Budget[] =
    strategy.kind === 'dca' && strategy.budget ? [{ token: strategy.sell.address, perDay: strategy.budget.perDay, total: strategy.budget.total }] : [];
  let previousOutput: bigint | undefined;
  for (const trade of decision.trades) {
    const amountIn = trade.amountIn === 'previous-output' ? previousOutput : trade.amountIn;
    if (amountIn === undefined || amountIn === 0n) {
      report.note += `; ${trade.key} skipped: the previous step paid nothing to use`;
      break;
    }
    const executed = await executeTrade(deps.executor, {
      strategyId: strategy.id,
      slot: `${slot}#${trade.key}`,
      kind: trade.kind,
      tokenIn: trade.tokenIn,
      tokenOut: trade.tokenOut,
      amountIn,
      slippageBps: strategy.slippageBps,
      minPrice: trade.minPrice,
      minAmountOut: trade.minAmountOut,
      budgets: { strategy: strategyBudgets, wallet: deps.walletBudgets },
    });
    report.trades.push(executed);
    if (executed.status !== 'confirmed') break;
    previousOutput = executed.amountOut;
  }
  return report;
}
