/**
 * The strategies as a daemon last started them, read back from the ledger (raw amounts were written as
 * strings): `status` needs no strategy file and no node.
 */
import type { StrategyRecord } from '../ledger/ledger.ts';
import type { Strategy } from '../strategy/types.ts';

/** A strategy the ledger describes, with its wallet and whether the latest start still had it. */
export type KnownStrategy = { strategy: Strategy; walletName: string; wallet: `0x${string}`; firstSeen: number; current: boolean };

const big = (value: unknown) => (value === undefined || value === null ? undefined : BigInt(value as string));

/** The strategy of a ledger row; its bigint fields come back from their decimal strings. */
export function strategyFromRecord(record: StrategyRecord): Strategy {
  const parsed = JSON.parse(record.definition) as Strategy & Record<string, unknown>;
  switch (parsed.kind) {
    case 'dca': {
      const budget = parsed.budget as { perDay?: string; total?: string } | undefined;
      return {
        ...parsed,
        amount: BigInt(parsed.amount),
        ...(budget && { budget: { perDay: big(budget.perDay), total: big(budget.total) } }),
      };
    }
    case 'limit':
      return { ...parsed, amount: BigInt(parsed.amount) };
    case 'rebalance':
      return { ...parsed, minTrade: BigInt(parsed.minTrade) };
    case 'compound':
      return { ...parsed, minRewardValue: BigInt(parsed.minRewardValue) };
    case 'uniswap-v3-position': {
      const exit = parsed.exit as { atMs?: number; belowSqrtPriceX96?: string; aboveSqrtPriceX96?: string } | undefined;
      const open = parsed.open as { range: { tickLower: number; tickUpper: number }; amounts: { amount0: string; amount1: string } } | undefined;
      return {
        ...parsed,
        ...(parsed.positionId !== undefined && { positionId: BigInt(parsed.positionId) }),
        ...(open && { open: { ...open, amounts: { amount0: BigInt(open.amounts.amount0), amount1: BigInt(open.amounts.amount1) } } }),
        ...(exit && { exit: { ...parsed.exit, belowSqrtPriceX96: big(exit.belowSqrtPriceX96), aboveSqrtPriceX96: big(exit.aboveSqrtPriceX96) } }),
      };
    }
  }
}

/** Every strategy the ledger knows; `current` for those of the latest daemon start. */
export function knownStrategies(records: readonly StrategyRecord[]): KnownStrategy[] {
  const latest = Math.max(0, ...records.map((record) => record.lastSeen));
  return records.map((record) => ({
    strategy: strategyFromRecord(record),
    walletName: record.walletName,
    wallet: record.wallet,
    firstSeen: record.firstSeen,
    current: record.lastSeen === latest,
  }));
}
