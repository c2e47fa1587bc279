/**
 * A Uniswap V3 position kept by the daemon (issue 42): decided on plain observations, like every strategy. Three
 * jobs, the first that applies wins:
 *  - exit, at a time or when the position's price crosses a level: remove all its liquidity and collect it to the
 *    wallet (one transaction), optionally swapped into one token;
 *  - keep in range (off unless the file asks): once the chain shows the price spent not one second inside the range
 *    over the whole window the file gives (the pool's own count of seconds inside, at any oracle size), remove it
 *    all (collected, the old NFT burned or kept, in one transaction), sell the surplus to the new range's ratio, and
 *    open a range of the same width around the reference price;
 *  - compound: when the uncollected fees are worth more than `minFeesToGas` times the gas of compounding, collect
 *    them, sell the surplus token to the range's ratio at the reference, and add the rest to the position.
 * The steps say what to do; how much each moves is what the step before it paid, read from the chain when it
 * settled, never decided here and never more than that (the wallet's other funds are not the strategy's).
 */
import { displayNumber } from '../units.ts';
import type { Address } from 'viem';
import type { TickRange, TokenAmounts } from '../pools/uniswap-v3/liquidity.ts';
import { isqrt } from '../bigint-math.ts';
import { tickAtSqrtRatio } from '../pools/uniswap-v3/math.ts';
import type { RangeHistory } from '../pools/uniswap-v3/position.ts';
import type { V3PositionStrategy } from './types.ts';

export type { V3PositionStrategy } from './types.ts';

export type { RangeHistory } from '../pools/uniswap-v3/position.ts';

export type V3PositionObservation = {
  now: number;
  position: TickRange & { liquidity: bigint; uncollected: TokenAmounts; tick: number; sqrtPriceX96: bigint };
  /** token0 priced in token1 at the independent reference, as √price × 2⁹⁶. */
  referenceSqrtPriceX96: bigint;
  /** The uncollected fees at the reference, and a compound's gas, in the value token. */
  feesValue: bigint;
  compoundGasValue: bigint;
  /** Asked only when the file keeps the range. */
  rangeHistory?: RangeHistory;
  /** What the status keeps of it: the block's time, what it holds at the pool's price, the pool's seconds inside its range. */
  mark: { block: bigint; blockTime: number; holds: TokenAmounts; secondsInside?: number };
};

export type PositionStep =
  /** Everything the position owes the wallet (fees, and what a removal freed). */
  | { key: string; kind: 'collect' }
  /** Sell the surplus of what the collect paid, so the rest fits `range` at the reference price. */
  | { key: string; kind: 'ratio-swap'; range: TickRange }
  /** What the steps before paid, into the position. */
  | { key: string; kind: 'add-liquidity' }
  /** `liquidity` out of the position and everything it then owes collected, in one transaction; the emptied NFT burned when `burn`. */
  | { key: string; kind: 'remove-liquidity'; liquidity: bigint; burn: boolean }
  /** A new position of the same pool in `range`, from what the steps before paid. */
  | { key: string; kind: 'mint'; range: TickRange }
  /** What the steps before paid in the other token, sold for `to`. */
  | { key: string; kind: 'swap-into'; to: Address }
  /**
   * A removal and what follows it in one transaction through the position mover, all or nothing: with `range`, the
   * ratio swap and the mint of a re-range; with `to`, an exit's sale of the other token.
   */
  | { key: string; kind: 'move'; liquidity: bigint; burn: boolean; range?: TickRange; to?: Address };

export type PositionDecision = { steps: PositionStep[]; note: string };

/**
 * The same steps with a removal and what follows it folded into one move (one transaction, all or nothing), for a
 * chain where the position mover is known: a re-range's removal, ratio swap and mint; an exit's removal and sale.
 * A removal alone is one transaction already.
 */
export function inOneTransaction(steps: readonly PositionStep[]): PositionStep[] {
  const [first, ...rest] = steps;
  if (first?.kind !== 'remove-liquidity' || rest.length === 0) return [...steps];
  const { liquidity, burn } = first;
  const mint = rest.find((step) => step.kind === 'mint');
  if (mint?.kind === 'mint') return [{ key: 're-range-move', kind: 'move', liquidity, burn, range: mint.range }];
  const sale = rest.find((step) => step.kind === 'swap-into');
  if (sale?.kind === 'swap-into') return [{ key: 'exit-move', kind: 'move', liquidity, burn, to: sale.to }];
  return [...steps];
}

/**
 * The range from `belowBps` under the reference price to `aboveBps` over it (prices of token0 in token1), its ticks
 * rounded outwards onto the pool's spacing: a file's `width` at the moment the position opens.
 */
export function rangeAround(referenceSqrtPriceX96: bigint, belowBps: number, aboveBps: number, tickSpacing: number): TickRange {
  // √(1 ∓ bps/10⁴) × 10⁸ as an integer: isqrt((10⁴ ∓ bps) × 10¹²).
  const scaled = (factorBps: number) => (referenceSqrtPriceX96 * isqrt(BigInt(factorBps) * 10n ** 12n)) / 10n ** 8n;
  const lower = tickAtSqrtRatio(scaled(10_000 - belowBps));
  const upper = tickAtSqrtRatio(scaled(10_000 + aboveBps));
  return { tickLower: Math.floor(lower / tickSpacing) * tickSpacing, tickUpper: Math.ceil(upper / tickSpacing) * tickSpacing };
}

/** A range of `width` ticks (the old range's) on the pool's spacing, as centred on the reference price as the spacing allows. */
export function recentredRange(referenceSqrtPriceX96: bigint, width: number, tickSpacing: number): TickRange {
  const centre = tickAtSqrtRatio(referenceSqrtPriceX96);
  const tickLower = Math.round((centre - width / 2) / tickSpacing) * tickSpacing;
  return { tickLower, tickUpper: tickLower + width };
}

export function decideV3Position(strategy: V3PositionStrategy, observed: V3PositionObservation): PositionDecision {
  const { position } = observed;
  const holds = position.liquidity > 0n;
  const owed = position.uncollected.amount0 > 0n || position.uncollected.amount1 > 0n;
  const exit = exitReason(strategy, observed);
  if (exit) {
    if (!holds && !owed) return { steps: [], note: `exited: ${exit}; the position holds nothing` };
    const steps: PositionStep[] = [
      holds ? { key: 'exit-remove', kind: 'remove-liquidity', liquidity: position.liquidity, burn: false } : { key: 'exit-collect', kind: 'collect' },
      ...(strategy.exit?.to ? [{ key: 'exit-swap', kind: 'swap-into' as const, to: strategy.exit.to.address }] : []),
    ];
    return { steps, note: `exit: ${exit}${strategy.exit?.to ? `, into ${strategy.exit.to.symbol}` : ''}` };
  }
  if (strategy.keepInRange && holds) {
    const history = observed.rangeHistory;
    const window = `${Math.round(strategy.keepInRange.outsideMs / 60_000)} min`;
    if (history && 'outside' in history && history.outside) {
      const range = recentredRange(observed.referenceSqrtPriceX96, position.tickUpper - position.tickLower, strategy.pool.tickSpacing);
      return {
        steps: [
          { key: 're-range-remove', kind: 'remove-liquidity', liquidity: position.liquidity, burn: strategy.keepInRange.oldPosition === 'burn' },
          { key: 're-range-swap', kind: 'ratio-swap', range },
          { key: 're-range-mint', kind: 'mint', range },
        ],
        note: `re-range: the price has been ${history.outside} [${position.tickLower}, ${position.tickUpper}) for ${window}; new range [${range.tickLower}, ${range.tickUpper})`,
      };
    }
    const outsideNow = position.tick < position.tickLower || position.tick >= position.tickUpper;
    if (history && 'unknown' in history && outsideNow) {
      // Outside now, and the chain cannot say for how long: nothing is moved on a guess.
      return compoundOr(strategy, observed, `out of range, for how long not known: ${history.unknown}`);
    }
  }
  return compoundOr(strategy, observed);
}

function compoundOr(strategy: V3PositionStrategy, observed: V3PositionObservation, prefix?: string): PositionDecision {
  const { valueToken } = strategy;
  const worth = (value: bigint) => `${displayNumber(value, valueToken.decimals)} ${valueToken.symbol}`;
  const lead = prefix ? `${prefix}; ` : '';
  if (!strategy.compound) return { steps: [], note: `${lead}fees worth ${worth(observed.feesValue)}, not compounded (off)` };
  if (observed.position.liquidity === 0n) return { steps: [], note: `${lead}the position holds no liquidity to compound into` };
  // N times the gas, in whole hundredths of N: fees × 100 > N × 100 × gas.
  const timesGas = BigInt(Math.round(strategy.compound.minFeesToGas * 100));
  if (observed.feesValue * 100n <= observed.compoundGasValue * timesGas) {
    return {
      steps: [],
      note: `${lead}fees worth ${worth(observed.feesValue)}, not more than ${strategy.compound.minFeesToGas} × gas ${worth(observed.compoundGasValue)}`,
    };
  }
  const range = { tickLower: observed.position.tickLower, tickUpper: observed.position.tickUpper };
  return {
    steps: [
      { key: 'compound-collect', kind: 'collect' },
      { key: 'compound-swap', kind: 'ratio-swap', range },
      { key: 'compound-add', kind: 'add-liquidity' },
    ],
    note: `${lead}compound: fees worth ${worth(observed.feesValue)}, gas ${worth(observed.compoundGasValue)}`,
  };
}

/** Why the position is to be left now, if it is: the time, or the price at the reference past a level. */
function exitReason(strategy: V3PositionStrategy, observed: V3PositionObservation): string | undefined {
  const exit = strategy.exit;
  if (!exit) return undefined;
  if (exit.atMs !== undefined && observed.now >= exit.atMs) return `its time ${new Date(exit.atMs).toISOString()} has come`;
  const price = observed.referenceSqrtPriceX96;
  const { token0, token1 } = strategy.pool;
  const pair = `${token0.symbol} in ${token1.symbol}`;
  if (exit.belowSqrtPriceX96 !== undefined && price <= exit.belowSqrtPriceX96) return `the price of ${pair} is at or below its exit level`;
  if (exit.aboveSqrtPriceX96 !== undefined && price >= exit.aboveSqrtPriceX96) return `the price of ${pair} is at or above its exit level`;
  return undefined;
}
