/**
 * One run of one strategy for one schedule slot: observe, decide, then run the decided trades in order (each
 * its own trade `<strategy>:<slot>#<key>`), stopping at the first that does not complete.
 */
import { decideCompound } from '../strategy/compound.ts';
import { decideDca } from '../strategy/dca.ts';
import { decideLimit } from '../strategy/limit.ts';
import { decideRebalance } from '../strategy/rebalance.ts';
import type { Decision, PlannedTrade, Strategy } from '../strategy/types.ts';
import { type PipelineDeps, intentIdOf, runTrade } from '../trade/pipeline.ts';
import { fillsOf } from '../trade/fills.ts';
import type { Trade } from '../model/trade.ts';
import { StoredRecordRefusedError } from '../chain/errors.ts';
import { observeCompound, observeDca, observeLimit, observeRebalance } from './observe.ts';
import { tradeSlot } from '../model/trade-slot.ts';
import { runV3Position } from './position-runner.ts';
import { orderInWords, soldInSlot, workOrder, worksInSlices } from './worked-order.ts';
import type { RunDeps, RunReport } from './run-types.ts';

export type { RunDeps, RunReport } from './run-types.ts';

export async function decide(strategy: Strategy, deps: RunDeps, working?: string): Promise<Decision> {
  switch (strategy.kind) {
    case 'dca':
      return decideDca(strategy, await observeDca(strategy, deps.view));
    case 'limit': {
      // Only a one-shot order asks how often it filled (read from what was signed, and the chain: trade/fills.ts); an
      // order of `working` (a run's slot) is the one being worked in slices, not a fill that ends it.
      const fills = strategy.repeat ? 0 : await fillsOf(deps.executor, strategy.id, worksInSlices(strategy) ? working : undefined);
      return decideLimit(strategy, await observeLimit(strategy, deps.view, fills));
    }
    case 'rebalance':
      return decideRebalance(strategy, await observeRebalance(strategy, deps.view));
    case 'compound':
      return decideCompound(strategy, await observeCompound(strategy, deps.view));
    case 'uniswap-v3-position':
      // Its steps are decided and sized run by run from the chain (position-runner.ts): none is resumed from the
      // ledger, whose amounts a restart cannot vouch for; the next run observes the position anew.
      return { trades: [], note: "a position's steps are decided by each run, from the chain" };
  }
}

/** The trade a planned one becomes, once: named by its slot, for this wallet and chain. */
export function tradeOf(strategy: Strategy, slot: string, planned: PlannedTrade, amountIn: bigint, executor: PipelineDeps): Trade {
  const slotOfTrade = tradeSlot(slot, planned.key);
  const common = {
    id: intentIdOf(strategy.id, slotOfTrade),
    strategyId: strategy.id,
    slot: slotOfTrade,
    wallet: executor.wallet.address,
    chainId: executor.wallet.chainId,
    tokenIn: planned.tokenIn,
    tokenOut: planned.tokenOut,
    amountIn,
    slippageBps: strategy.slippageBps,
  };
  return planned.kind === 'swap' ? { ...common, kind: 'swap', minAmountOut: planned.minAmountOut } : { ...common, kind: planned.kind };
}

export async function runStrategy(strategy: Strategy, slot: string, deps: RunDeps): Promise<RunReport> {
  const ledger = deps.executor.reads;
  const gate = deps.run?.gate ?? (await ledger.runs.gate(strategy.id, deps.executor.wallet.address));
  // A paused strategy or wallet (after an anomaly) does not even look: a person must lift the pause first.
  const pause = gate.paused ? (await ledger.pauses.for(strategy.id, deps.executor.wallet.address))[0] : undefined;
  if (pause) return { strategyId: strategy.id, slot, note: `paused: the ${pause.scope} ${pause.key} is paused (${pause.reason})`, trades: [], heldBy: 'pause' };
  // A trade whose outcome is not known yet may have traded: nothing new until the chain has settled it.
  if (gate.waitingFor !== undefined) {
    const pending = await ledger.trades.get(gate.waitingFor);
    return {
      strategyId: strategy.id,
      slot,
      note: `waiting: the outcome of ${gate.waitingFor} is not known yet (${pending?.failure?.reason ?? pending?.status ?? 'unknown'})`,
      trades: [],
      heldBy: 'unknown-outcome',
    };
  }
  try {
    return await runDecided(strategy, slot, deps);
  } catch (error) {
    // What the strategy already did could not be read: a row of the wallet failed its proof. Nothing was claimed;
    // the strategy and the wallet stop until a person looks.
    if (!(error instanceof StoredRecordRefusedError)) throw error;
    await deps.executor.recorder.historyRefused(strategy.id, deps.executor.wallet.address, error.shortMessage);
    return {
      strategyId: strategy.id,
      slot,
      note: `anomaly: ${error.shortMessage}; strategy and wallet paused`,
      trades: [],
      heldBy: 'pause',
      anomaly: error.shortMessage,
    };
  }
}

async function runDecided(strategy: Strategy, slot: string, deps: RunDeps): Promise<RunReport> {
  if (strategy.kind === 'uniswap-v3-position') return runV3Position(strategy, slot, deps);
  // An order worked in slices is decided on what is left of it: a DCA's or a limit's amount less what the slot's
  // slices already sold, as the wallet's history shows (a rebalance's balances show it by themselves).
  const left = worksInSlices(strategy) && strategy.kind !== 'rebalance' ? strategy.amount - (await soldInSlot(strategy, slot, deps)) : undefined;
  if (left !== undefined && left <= 0n) return { strategyId: strategy.id, slot, note: 'the order of this slot is sold in full', trades: [] };
  const forLeft = (amount: bigint | undefined) => (amount === undefined || strategy.kind === 'rebalance' ? strategy : { ...strategy, amount });
  const decision = await decide(forLeft(left), deps, slot);
  const report: RunReport = { strategyId: strategy.id, slot, note: decision.note, trades: [] };
  let previousOutput: bigint | undefined;
  for (const planned of decision.trades) {
    const amountIn = planned.amountIn === 'previous-output' ? previousOutput : planned.amountIn;
    if (amountIn === undefined || amountIn === 0n) {
      report.note += `; ${planned.key} skipped: the previous step paid nothing to use`;
      break;
    }
    if (worksInSlices(strategy) && planned.kind === 'swap') {
      // An order larger than the market, worked in slices over time (worked-order.ts).
      const order = { ...planned, kind: 'swap' as const, amountIn };
      const makeTrade = (slice: PlannedTrade & { amountIn: bigint }) => tradeOf(strategy, slot, slice, slice.amountIn, deps.executor);
      const worked = await workOrder(strategy, slot, order, deps, async (still) => (await decide(forLeft(still), deps, slot)).trades, makeTrade);
      report.trades.push(...worked.reports);
      report.note += `; ${orderInWords(strategy, order, worked)}`;
      if (worked.sold < worked.amount) break;
      continue;
    }
    const executed = await runTrade(deps.executor, tradeOf(strategy, slot, planned, amountIn, deps.executor), deps.signal, deps.run?.id);
    report.trades.push(executed);
    if (executed.status !== 'confirmed') break;
    previousOutput = executed.amountOut;
  }
  return report;
}
