/**
 * Budgets: what a strategy and a wallet may spend of a token per day and in total, held against what the wallet's
 * history says they already committed. The ledger runs `checkBudgets` inside the database transaction that records
 * the trade as checked (`commitChecked`).
 */
import { getAddress, isAddressEqual } from 'viem';
import { type Budget, checkBudget } from '../guard/guards.ts';
import type { Trade } from '../model/trade.ts';
import { spentOf, spentTokens } from '../model/kinds/registry.ts';
import type { TradeBudgets } from './settings.ts';
import type { WalletHistory } from './wallet-history.ts';

const DAY_MS = 24 * 3600 * 1000;

/** The budgets that limit this trade (on its input token), by scope: its strategy's, then its wallet's. */
function budgetScopes(budgets: TradeBudgets, trade: Trade): { budgets: readonly Budget[]; scope: string; filter: { strategyId?: string } }[] {
  // Budgets on any token the trade spends (an add to a V3 position spends two).
  const spent = spentTokens(trade).map((spend) => spend.token.toLowerCase());
  const onTokenIn = (list: readonly Budget[]) => list.filter((budget) => spent.includes(budget.token.toLowerCase()));
  return [
    { budgets: onTokenIn(budgets.strategy?.(trade.strategyId) ?? []), scope: `strategy ${trade.strategyId}`, filter: { strategyId: trade.strategyId } },
    { budgets: onTokenIn(budgets.wallet ?? []), scope: `wallet ${getAddress(trade.wallet)}`, filter: {} },
  ];
}

/** Whether any budget limits this trade: a trade no budget limits is committed without reading what was spent. */
export const budgetsApply = (budgets: TradeBudgets, trade: Trade) => budgetScopes(budgets, trade).some((scope) => scope.budgets.length > 0);

/**
 * What this strategy and this wallet already committed, as the wallet's history reads it (wallet-history.ts: every
 * row of the wallet proven by its tags first, then sorted by what the tags say). Runs of one wallet check side by
 * side, and each sees every trade committed before it, never one half-checked. Trades still being quoted or checked
 * commit nothing. A row edited (its amount lowered, its time moved out of the day, its strategy or wallet moved) is
 * refused by name, never counted as it says.
 */
export function checkBudgets(budgets: TradeBudgets, trade: Trade, history: Pick<WalletHistory, 'committed'>): void {
  const now = Date.now();
  for (const { budgets: list, scope, filter } of budgetScopes(budgets, trade)) {
    // Each budgeted token on its own: an add or a mint spends two, and either may have a budget.
    for (const token of new Set(list.map((budget) => getAddress(budget.token)))) {
      const trades = history.committed(token, { strategyId: filter.strategyId, excludeId: trade.id }).map((past) => past.record);
      const since = (from: number) => trades.filter((record) => record.createdAt >= from).reduce((sum, record) => sum + spentOf(record, token), 0n);
      const already = { day: since(now - DAY_MS), total: since(0) };
      for (const budget of list.filter((candidate) => isAddressEqual(candidate.token, token))) {
        checkBudget(budget, spentOf(trade, token), scope, (window) => already[window]);
      }
    }
  }
}
