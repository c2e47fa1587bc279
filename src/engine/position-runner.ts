/**
 * One run of a V3 position strategy: find the position it holds now (the file's, or the one its last re-range opened:
 * engine/held-position.ts), observe it, decide its steps (strategy/v3-position.ts), then run them
 * in order, each its own trade `<strategy>:<slot>#<key>`, stopping at the first that does not complete. Each step
 * moves what the steps before it paid, as their settlement read it from the chain (a collect: the position
 * manager's event, held to the transfers), never more: the wallet's other funds are not the position's.
 */
import { type Address, isAddressEqual } from 'viem';
import type { AddLiquidityTrade, CollectTrade, MintTrade, MovePositionTrade, RemoveLiquidityTrade, SwapTrade, Trade } from '../model/trade.ts';
import { parseTradeSlot, tradeSlot } from '../model/trade-slot.ts';
import { displayNumber } from '../units.ts';
import { type TokenAmounts, amountsForLiquidity, sqrtPriceX96FromUsd } from '../pools/uniswap-v3/liquidity.ts';
import { sizeRangeSale } from './range-sale.ts';
import { livePositionsInPool } from '../pools/uniswap-v3/position.ts';
import type { V3PositionStrategy } from '../strategy/types.ts';
import { type PositionStep, type V3PositionObservation, decideV3Position, inOneTransaction, rangeAround } from '../strategy/v3-position.ts';
import { intentIdOf, runTrade } from '../trade/pipeline.ts';
import { heldPosition, positionsOfOtherStrategies } from './held-position.ts';
import { leftovers } from './leftovers.ts';
import { filledStates, signedAndMayHaveTraded } from '../trade/fills.ts';
import { type WalletHistory, readWalletHistory } from '../trade/wallet-history.ts';
import { observeV3Position } from './observe.ts';
import type { RunDeps, RunReport } from './run-types.ts';

export async function runV3Position(strategy: V3PositionStrategy, slot: string, deps: RunDeps): Promise<RunReport> {
  // What the strategy did before is the wallet's history's to say (its rows proven by its tags), never a column's.
  const history = await readWalletHistory(deps.executor);
  const held = await heldPosition(strategy, { client: deps.view.client, wallet: deps.executor.wallet, history });
  const unfinished = unfinishedSteps(strategy, history);
  const lead = unfinished ? `${unfinished}; ` : '';
  const report: RunReport = { strategyId: strategy.id, slot, note: lead, trades: [] };
  if ('gone' in held) return { ...report, note: `${lead}position ${held.gone} no longer exists (burned), and no position followed it` };
  if ('notOpened' in held) return openOwnPosition(strategy, slot, deps, history, report);
  const positionId = held.positionId;
  const observed = await observeV3Position(strategy, deps.view, positionId);
  await recordMark(strategy, positionId, observed, deps);
  const decision = decideV3Position(strategy, observed);
  const which = held.via === 'file' ? '' : `position ${positionId} (opened by ${held.via.mintTx}): `;
  report.note = `${lead}${which}${decision.note}`;
  // Where the chain data names a position mover, a re-range or an exit moves in one transaction, all or nothing.
  const oneTransaction = deps.executor.routes.known.positionMovers.length > 0;
  const steps = oneTransaction ? inOneTransaction(decision.steps) : decision.steps;
  const context = { strategy, slot, positionId, referenceSqrtPriceX96: observed.referenceSqrtPriceX96, deps, observed: observed.position };
  // A compound puts back what the strategy's own earlier steps left in the wallet, as the chain shows it.
  const compounds = steps[0]?.kind === 'collect' && steps.some((step) => step.kind === 'add-liquidity');
  const left = compounds ? await leftovers(strategy, { client: deps.view.client, wallet: deps.executor.wallet.address, history }) : undefined;
  if (left && (left.amount0 > 0n || left.amount1 > 0n)) {
    const { token0, token1 } = strategy.pool;
    report.note += `; with ${displayNumber(left.amount0, token0.decimals)} ${token0.symbol} and ${displayNumber(left.amount1, token1.decimals)} ${token1.symbol} its earlier steps left`;
  }
  return runSteps({ ...context, ...(left && { leftover: left }) }, steps, report, left ?? { amount0: 0n, amount1: 0n });
}

/**
 * A strategy that opens its own position, and has none yet: it sells the file's amounts to the range's ratio at the
 * reference, then mints the range. Once only: never after the wallet signed a step of an opening of it that may have
 * traded (whatever its state column says), and only while the wallet holds no position of liquidity in the pool that
 * could be this strategy's own (opening again would put the file's amounts in twice), as the chain says: those the
 * file's other strategies name, or that they opened themselves, are theirs, and several may share a pool.
 */
async function openOwnPosition(strategy: V3PositionStrategy, slot: string, deps: RunDeps, history: WalletHistory, report: RunReport): Promise<RunReport> {
  const open = strategy.open;
  if (!open) throw new Error(`${strategy.id}: no position to open`);
  const { client, prices, wallet } = deps.view;
  const { pool } = strategy;
  // Positions the file's other strategies name, or that they opened themselves (as the chain vouches), are theirs.
  const theirs = [...(open.beside ?? []), ...(await positionsOfOtherStrategies(strategy, { client, wallet: deps.executor.wallet, history }))];
  const live = (await livePositionsInPool(client, strategy.positionManager, wallet, pool.address)).filter((id) => !theirs.includes(id));
  if (live.length > 0) {
    report.note += `the wallet holds position ${live.join(', ')} of liquidity in the pool, not known as this strategy's: nothing opened (name it in the file with position:)`;
    return report;
  }
  // An opening that went through, or stopped after its swap (its mint refused, a crash), or whose position was exited
  // since, is not tried again: each try would sell or put in the file's amounts once more.
  const opening = history.ofStrategy(strategy.id).filter((past) => ['open-swap', 'open-mint'].includes(stepKey(past.record.slot)));
  for (const past of opening) {
    if (filledStates.includes(past.record.status) || (await signedAndMayHaveTraded(deps.executor, past))) {
      report.note += `the opening of ${parseTradeSlot(past.record.slot).runSlot} was signed (${stepKey(past.record.slot)}, ${past.record.id}): nothing is opened again; open a position yourself and name it with position:`;
      return report;
    }
  }
  const [usd0, usd1] = await Promise.all([prices.usdPrice(pool.token0.address), prices.usdPrice(pool.token1.address)]);
  const referenceSqrtPriceX96 = sqrtPriceX96FromUsd(usd0.usdE18, usd1.usdE18, pool.token0.decimals, pool.token1.decimals);
  // A width is taken around the reference now, as the position opens; ticks are the file's.
  const range = 'belowBps' in open.range ? rangeAround(referenceSqrtPriceX96, open.range.belowBps, open.range.aboveBps, pool.tickSpacing) : open.range;
  const { tickLower, tickUpper } = range;
  report.note += `open: [${tickLower}, ${tickUpper}) with at most ${displayNumber(open.amounts.amount0, pool.token0.decimals)} ${pool.token0.symbol} and ${displayNumber(open.amounts.amount1, pool.token1.decimals)} ${pool.token1.symbol}`;
  const steps: PositionStep[] = [
    { key: 'open-swap', kind: 'ratio-swap', range },
    { key: 'open-mint', kind: 'mint', range },
  ];
  // The mint replaces no position: NFT ids start at 1.
  return runSteps({ strategy, slot, positionId: 0n, referenceSqrtPriceX96, deps }, steps, report, open.amounts);
}

/** What the status keeps of the run's look at the position (ledger/marks.ts). */
async function recordMark(strategy: V3PositionStrategy, positionId: bigint, observed: V3PositionObservation, deps: RunDeps): Promise<void> {
  const { mark, position } = observed;
  await deps.positionMarks?.recordPosition({
    at: deps.view.now(),
    block: mark.block,
    blockTime: mark.blockTime,
    strategyId: strategy.id,
    positionId,
    tickLower: position.tickLower,
    tickUpper: position.tickUpper,
    tick: position.tick,
    ...mark.holds,
    ...(mark.secondsInside !== undefined && { secondsInside: mark.secondsInside }),
    fees: position.uncollected,
  });
}

/**
 * The steps in order, each its own trade, stopping at the first that does not complete; `held`: what the steps may
 * move at first (an opening's file amounts; otherwise nothing until a step pays it).
 */
async function runSteps(context: Omit<StepContext, 'held'>, steps: readonly PositionStep[], report: RunReport, held: TokenAmounts): Promise<RunReport> {
  const { strategy, deps } = context;
  let inWallet = held;
  for (const step of steps) {
    const next = await tradeOfStep({ ...context, held: inWallet }, step);
    if ('skip' in next) {
      report.note += `; ${step.key}: ${next.skip}`;
      if (next.goOn) continue;
      break;
    }
    const executed = await runTrade(deps.executor, next.trade, deps.signal, deps.run?.id);
    report.trades.push(executed);
    if (executed.status !== 'confirmed') break;
    inWallet = heldAfter(strategy, next.trade, executed.amountOut ?? 0n, executed.moved, inWallet);
  }
  return report;
}

type NextStep = { trade: Trade } | { skip: string; goOn: boolean };

/**
 * The words for a compound or a re-range that stopped after its first step (a crash, a refused swap, a stop): what it
 * collected or removed stays in the wallet until the next compound puts it back (engine/leftovers.ts, from the
 * chain). Read from the ledger for the words only: nothing is moved on a row's say.
 */
function unfinishedSteps(strategy: V3PositionStrategy, history: WalletHistory): string | undefined {
  const trades = history.ofStrategy(strategy.id).map((past) => past.record);
  const confirmed = trades.filter((trade) => trade.status === 'confirmed' && trade.settlement?.position);
  const firstSteps = confirmed.filter(
    (trade) =>
      (trade.kind === 'collect' && stepKey(trade.slot).startsWith('compound')) ||
      (trade.kind === 'remove-liquidity' && stepKey(trade.slot).startsWith('re-range')),
  );
  const last = firstSteps.reduce<(typeof firstSteps)[number] | undefined>(
    (latest, trade) => (!latest || trade.createdAt > latest.createdAt ? trade : latest),
    undefined,
  );
  if (!last) return undefined;
  const { runSlot } = parseTradeSlot(last.slot);
  const finished = confirmed.some((trade) => (trade.kind === 'add-liquidity' || trade.kind === 'mint') && parseTradeSlot(trade.slot).runSlot === runSlot);
  if (finished) return undefined;
  const moved = last.settlement?.position;
  const { token0, token1 } = strategy.pool;
  const what = last.kind === 'collect' ? 'compound' : 're-range';
  return `the ${what} of ${runSlot} stopped after its ${last.kind === 'collect' ? 'collect' : 'removal'}: ${displayNumber(moved?.amount0 ?? 0n, token0.decimals)} ${token0.symbol} and ${displayNumber(moved?.amount1 ?? 0n, token1.decimals)} ${token1.symbol} stayed in the wallet`;
}

const stepKey = (slot: string) => parseTradeSlot(slot).key ?? '';

/**
 * What a step's trade is made from: `positionId` (0: none, for an opening), the reference price, what the steps before
 * paid, and the position as the run observed it (none for an opening).
 */
type StepContext = {
  strategy: V3PositionStrategy;
  slot: string;
  positionId: bigint;
  referenceSqrtPriceX96: bigint;
  held: TokenAmounts;
  deps: RunDeps;
  observed?: V3PositionObservation['position'];
  /** What the strategy's earlier steps left in the wallet, part of `held` from the start (a compound's). */
  leftover?: TokenAmounts;
};

async function tradeOfStep(
  { strategy, slot, positionId, referenceSqrtPriceX96, held, deps, observed, leftover }: StepContext,
  step: PositionStep,
): Promise<NextStep> {
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
  const position = { positionManager: strategy.positionManager.address, positionId };
  const pair = { tokenIn: token0.address, tokenOut: token1.address };
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
      // Sized for the sale's fee and impact from the split at the reference (engine/range-sale.ts). With leftovers of
      // earlier steps in hand, it sells no more than this run collected of the token: a larger swap through a thin
      // pool would move it past the add's band around the reference.
      const collected = { amount0: held.amount0 - (leftover?.amount0 ?? 0n), amount1: held.amount1 - (leftover?.amount1 ?? 0n) };
      const swap = await sizeRangeSale(strategy, deps, { range: step.range, held, referenceSqrtPriceX96, upTo: collected });
      if (!swap || swap.amount <= 0n) return { skip: 'what was collected already fits the range', goOn: true };
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
    case 'remove-liquidity': {
      // Nothing leaves the wallet: what it frees and collects is its settlement's.
      const trade: RemoveLiquidityTrade = {
        ...common,
        ...pair,
        kind: 'remove-liquidity',
        position,
        amountIn: 0n,
        amountIn1: 0n,
        liquidity: step.liquidity,
        burn: step.burn,
      };
      return { trade };
    }
    case 'mint': {
      if (held.amount0 === 0n && held.amount1 === 0n) return { skip: 'nothing was removed to open a position with', goOn: false };
      const { fee } = strategy.pool;
      const trade: MintTrade = { ...common, ...pair, kind: 'mint', position, amountIn: held.amount0, amountIn1: held.amount1, fee, range: step.range };
      return { trade };
    }
    case 'move': {
      if (!observed) return { skip: 'no position was observed to move', goOn: false };
      const sell = await moveSale(strategy, deps, step, observed, referenceSqrtPriceX96);
      const trade: MovePositionTrade = {
        ...common,
        ...pair,
        kind: 'move-position',
        position,
        amountIn: sell.amount0,
        amountIn1: sell.amount1,
        liquidity: step.liquidity,
        burn: step.burn,
        ...(step.range && { mint: { fee: strategy.pool.fee, range: step.range } }),
      };
      return { trade };
    }
    case 'swap-into': {
      // What the position paid in the other token, sold for the one the file ends in.
      const intoToken0 = isAddressEqual(step.to, token0.address);
      const amount = intoToken0 ? held.amount1 : held.amount0;
      if (amount === 0n) return { skip: `nothing was paid in the other token to sell`, goOn: false };
      const [sold, bought] = intoToken0 ? [token1.address, token0.address] : [token0.address, token1.address];
      const trade: SwapTrade = { ...common, kind: 'swap', tokenIn: sold, tokenOut: bought, amountIn: amount };
      return { trade };
    }
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
    case 'remove-liquidity':
      return { amount0: held.amount0 + (moved?.amount0 ?? 0n), amount1: held.amount1 + (moved?.amount1 ?? 0n) };
    case 'swap':
      return isAddressEqual(trade.tokenIn, strategy.pool.token0.address)
        ? { amount0: held.amount0 - trade.amountIn, amount1: held.amount1 + amountOut }
        : { amount0: held.amount0 + amountOut, amount1: held.amount1 - trade.amountIn };
    case 'add-liquidity':
    case 'mint':
      return { amount0: held.amount0 - (moved?.amount0 ?? 0n), amount1: held.amount1 - (moved?.amount1 ?? 0n) };
    default:
      return held;
  }
}

/**
 * What a move sells, of token0 (`amount0`) or token1: what the removal pays at the pool's price as observed, with the
 * fees owed, is what the mover will hold. A re-range sells the surplus for the new range's ratio, sized as the
 * three-step re-range's ratio swap is (engine/range-sale.ts). An exit's route is asked for all of the other token but the slippage's
 * share of what the liquidity frees (a price moved within the band may take that away), and the mover sells all it
 * then holds of the token, which is no less.
 */
async function moveSale(
  strategy: V3PositionStrategy,
  deps: RunDeps,
  step: Extract<PositionStep, { kind: 'move' }>,
  observed: V3PositionObservation['position'],
  referenceSqrtPriceX96: bigint,
): Promise<TokenAmounts> {
  const freed = amountsForLiquidity(observed.sqrtPriceX96, observed, step.liquidity, 'down');
  const holds = { amount0: freed.amount0 + observed.uncollected.amount0, amount1: freed.amount1 + observed.uncollected.amount1 };
  if (step.range) {
    // The mover's swap meets the pool without the liquidity it removed first.
    const removed = { range: observed, liquidity: step.liquidity };
    const swap = await sizeRangeSale(strategy, deps, { range: step.range, held: holds, referenceSqrtPriceX96, removed });
    if (!swap || swap.amount === 0n) return { amount0: 0n, amount1: 0n };
    return swap.sell === 'token0' ? { amount0: swap.amount, amount1: 0n } : { amount0: 0n, amount1: swap.amount };
  }
  if (!step.to) return { amount0: 0n, amount1: 0n };
  const slipped = (amount: bigint) => (amount * BigInt(10_000 - strategy.slippageBps)) / 10_000n;
  return isAddressEqual(step.to, strategy.pool.token0.address)
    ? { amount0: 0n, amount1: slipped(freed.amount1) + observed.uncollected.amount1 }
    : { amount0: slipped(freed.amount0) + observed.uncollected.amount0, amount1: 0n };
}
