/**
 * One run of a V3 position strategy: observe the position, decide its steps (strategy/v3-position.ts), then run them
 * in order, each its own trade `<strategy>:<slot>#<key>`, stopping at the first that does not complete. Each step
 * moves what the steps before it paid, as their settlement read it from the chain (a collect: the position
 * manager's event, held to the transfers), never more: the wallet's other funds are not the position's.
 */
import { type Address, isAddressEqual } from 'viem';
import type { AddLiquidityTrade, CollectTrade, SwapTrade, Trade } from '../model/trade.ts';
import { parseTradeSlot, tradeSlot } from '../model/trade-slot.ts';
import { displayNumber } from '../units.ts';
import { type TokenAmounts, swapToRangeRatio } from '../pools/uniswap-v3-liquidity.ts';
import type { V3PositionStrategy } from '../strategy/types.ts';
import { type PositionStep, type V3PositionObservation, decideV3Position } from '../strategy/v3-position.ts';
import { intentIdOf, runTrade } from '../trade/pipeline.ts';
import { observeV3Position } from './observe.ts';
import type { RunDeps, RunReport } from './run-types.ts';

export async function runV3Position(strategy: V3PositionStrategy, slot: string, deps: RunDeps): Promise<RunReport> {
  const observed = await observeV3Position(strategy, deps.view);
  const decision = decideV3Position(strategy, observed);
  const unfinished = await unfinishedCompound(strategy, deps);
  const report: RunReport = { strategyId: strategy.id, slot, note: unfinished ? `${unfinished}; ${decision.note}` : decision.note, trades: [] };
  // What this run's steps have put in the wallet for the position, token0 and token1.
  let held: TokenAmounts = { amount0: 0n, amount1: 0n };
  for (const step of decision.steps) {
    const next = tradeOfStep(strategy, slot, step, observed, held, deps);
    if ('skip' in next) {
      report.note += `; ${step.key}: ${next.skip}`;
      if (next.goOn) continue;
      break;
    }
    const executed = await runTrade(deps.executor, next.trade, deps.signal, deps.run?.id);
    report.trades.push(executed);
    if (executed.status !== 'confirmed') break;
    held = heldAfter(strategy, next.trade, executed.amountOut ?? 0n, executed.moved, held);
  }
  return report;
}

type NextStep = { trade: Trade } | { skip: string; goOn: boolean };

/**
 * The words for a compound that stopped after its collect (a crash, a refused swap, a stop): what it collected stays
 * in the wallet, neither collected again nor added by a later run, which adds only what it collects itself. Read
 * from the ledger for the words only: nothing is moved on a row's say.
 */
async function unfinishedCompound(strategy: V3PositionStrategy, deps: RunDeps): Promise<string | undefined> {
  const trades = await deps.executor.reads.trades.ofStrategy(strategy.id);
  const collects = trades.filter((trade) => trade.kind === 'collect' && trade.status === 'confirmed' && trade.settlement?.position);
  const last = collects.reduce<(typeof collects)[number] | undefined>(
    (latest, trade) => (!latest || trade.createdAt > latest.createdAt ? trade : latest),
    undefined,
  );
  if (!last) return undefined;
  const { runSlot } = parseTradeSlot(last.slot);
  const added = trades.some((trade) => trade.kind === 'add-liquidity' && trade.status === 'confirmed' && parseTradeSlot(trade.slot).runSlot === runSlot);
  if (added) return undefined;
  const moved = last.settlement?.position;
  const { token0, token1 } = strategy.pool;
  return `the compound of ${runSlot} stopped after its collect: ${displayNumber(moved?.amount0 ?? 0n, token0.decimals)} ${token0.symbol} and ${displayNumber(moved?.amount1 ?? 0n, token1.decimals)} ${token1.symbol} stayed in the wallet`;
}

function tradeOfStep(
  strategy: V3PositionStrategy,
  slot: string,
  step: PositionStep,
  observed: V3PositionObservation,
  held: TokenAmounts,
  deps: RunDeps,
): NextStep {
  const { token0, token1 } = strategy.pool;
  const slotOfTrade = tradeSlot(slot, step.key);
  const common = {
    id: intentIdOf(strategy.id, slotOfTrade),
    strategyId: strategy.id,
    slot: slotOfTrade,
    wallet: deps.executor.wallet.address,
    chainId: deps.executor.wallet.chainId,
    slippageBps: strategy.slippageBps,
  };
  const position = { positionManager: strategy.positionManager.address, positionId: strategy.positionId };
  switch (step.kind) {
    case 'collect': {
      // Nothing leaves the wallet: its amounts are zero (budgets count what trades spend); it collects all it is owed.
      const trade: CollectTrade = {
        ...common,
        kind: 'collect',
        position,
        tokenIn: token0.address,
        tokenOut: token1.address,
        amountIn: 0n,
        amountIn1: 0n,
      };
      return { trade };
    }
    case 'ratio-swap': {
      // The ratio at the reference price, not the pool's: a pool pushed off its price cannot choose what is sold.
      const swap = swapToRangeRatio(observed.referenceSqrtPriceX96, step.range, held);
      if (!swap || swap.amount === 0n) return { skip: 'what was collected already fits the range', goOn: true };
      const [sold, bought]: [Address, Address] = swap.sell === 'token0' ? [token0.address, token1.address] : [token1.address, token0.address];
      const trade: SwapTrade = { ...common, kind: 'swap', tokenIn: sold, tokenOut: bought, amountIn: swap.amount };
      return { trade };
    }
    case 'add-liquidity': {
      if (held.amount0 === 0n && held.amount1 === 0n) return { skip: 'nothing was collected to add', goOn: false };
      const trade: AddLiquidityTrade = {
        ...common,
        kind: 'add-liquidity',
        position,
        tokenIn: token0.address,
        tokenOut: token1.address,
        amountIn: held.amount0,
        amountIn1: held.amount1,
      };
      return { trade };
    }
    default:
      // Removing, opening and burning positions are decided but not run yet: the strategy file does not offer them.
      return { skip: `a ${step.kind} step is not run by this version`, goOn: false };
  }
}

/** What the position's tokens in the wallet are after a step: a collect adds what it paid, a swap trades one for the other, an add spends what it took. */
function heldAfter(
  strategy: V3PositionStrategy,
  trade: Trade,
  amountOut: bigint,
  moved: { amount0: bigint; amount1: bigint } | undefined,
  held: TokenAmounts,
): TokenAmounts {
  switch (trade.kind) {
    case 'collect':
      return { amount0: held.amount0 + (moved?.amount0 ?? 0n), amount1: held.amount1 + (moved?.amount1 ?? 0n) };
    case 'swap':
      return isAddressEqual(trade.tokenIn, strategy.pool.token0.address)
        ? { amount0: held.amount0 - trade.amountIn, amount1: held.amount1 + amountOut }
        : { amount0: held.amount0 + amountOut, amount1: held.amount1 - trade.amountIn };
    case 'add-liquidity':
      return { amount0: held.amount0 - (moved?.amount0 ?? 0n), amount1: held.amount1 - (moved?.amount1 ?? 0n) };
    default:
      return held;
  }
}
