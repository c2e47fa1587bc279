/**
 * Settles `unknown` trades in the background. Each is followed again for a short while (`followForMs`), and if
 * the chain still shows nothing, again after a pause that doubles from `firstRetryMs` up to `maxRetryMs`, until
 * a receipt the chain holds, our hash in a block, or the nonce used by another transaction decides its fate.
 */
import { isAddressEqual } from 'viem';
import { resumeTrade } from '../trade/pipeline.ts';
import type { TradeReport } from '../model/trade.ts';
import type { Execution } from './runtime.ts';

export type SettlerOptions = { firstRetryMs: number; maxRetryMs: number; followForMs: number; tickMs: number };

export const defaultSettlerOptions: SettlerOptions = { firstRetryMs: 5_000, maxRetryMs: 5 * 60_000, followForMs: 20_000, tickMs: 1_000 };

export type Settler = { stop(): Promise<void> };

export function startSettler(
  execution: Pick<Execution, 'ledger' | 'executors' | 'leases'>,
  onSettled: (strategyId: string, report: TradeReport) => void,
  signal?: AbortSignal,
  options: SettlerOptions = defaultSettlerOptions,
): Settler {
  const plans = new Map<string, { at: number; delayMs: number }>();
  let current: Promise<void> | undefined;

  const pass = async () => {
    // One read a pass for every wallet (a daemon holds many): the unknown trades, then those of wallets held here.
    const unknown = await execution.ledger.trades.unfinished({ states: ['unknown'] });
    for (const executor of execution.executors.values()) {
      // Another daemon's wallet is that daemon's to settle.
      if (execution.leases && !execution.leases.holds(executor.wallet.address)) continue;
      const mine = unknown.filter((record) => isAddressEqual(record.wallet, executor.wallet.address) && record.chainId === executor.wallet.chainId);
      for (const record of mine) {
        if (signal?.aborted) return;
        const plan = plans.get(record.id) ?? { at: Date.now() + options.firstRetryMs, delayMs: options.firstRetryMs };
        plans.set(record.id, plan);
        if (Date.now() < plan.at) continue;
        const report = await resumeTrade(executor, record, signal, { followForMs: options.followForMs });
        if (report.status === 'unknown') {
          const delayMs = Math.min(plan.delayMs * 2, options.maxRetryMs);
          plans.set(record.id, { at: Date.now() + delayMs, delayMs });
        } else {
          plans.delete(record.id);
        }
        onSettled(record.strategyId, report);
      }
    }
  };

  const timer = setInterval(() => {
    if (current || signal?.aborted) return;
    // A pass that fails (the database away for a while) is the next tick's to make again: the trades stay unknown.
    current = pass()
      .catch(() => {})
      .finally(() => {
        current = undefined;
      });
  }, options.tickMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
