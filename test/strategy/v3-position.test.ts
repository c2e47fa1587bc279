import { describe, expect, it } from 'vitest';
import { sqrtRatioAtTick } from '../../src/pools/uniswap-v3/math.ts';
import { strategyInWords } from '../../src/strategy/plan.ts';
import { type V3PositionObservation, type V3PositionStrategy, decideV3Position, recentredRange } from '../../src/strategy/v3-position.ts';

const token = (symbol: string, address: `0x${string}`) => ({ symbol, address, decimals: 18 });
const cusd = token('cUSD', '0x765DE816845861e75A25fCA122bb6898B8B1282a');
const celo = token('CELO', '0x471EcE3750Da237f93B8E339c536989b8978a438');

const strategy = (overrides: Partial<V3PositionStrategy> = {}): V3PositionStrategy => ({
  id: 'lp',
  kind: 'uniswap-v3-position',
  wallet: 'main',
  schedule: { everyMs: 3_600_000, jitterMs: 0, catchUp: 'skip', firstRun: 'now' },
  slippageBps: 50,
  positionManager: {
    address: '0x3d79EdAaBC0EaB6F08ED885C05Fc0B014290D95A',
    factory: '0xAfE208a311B21f13EF87E33A90049fC17A7acDEc',
    poolInitCodeHash: '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54',
  },
  positionId: 7n,
  pool: { address: '0x0000000000000000000000000000000000000001', token0: cusd, token1: celo, fee: 3000, tickSpacing: 60 },
  valueToken: cusd,
  compound: { minFeesToGas: 3 },
  ...overrides,
});

const e18 = 10n ** 18n;
/** A position [6360, 7560) around tick 6932 (one cUSD ≈ 2 CELO), with fees worth 10 cUSD and a compound's gas 1 cUSD. */
const observed = (overrides: Partial<V3PositionObservation> = {}, position: Partial<V3PositionObservation['position']> = {}): V3PositionObservation => ({
  now: Date.parse('2026-11-27T12:00:00Z'),
  position: {
    tickLower: 6360,
    tickUpper: 7560,
    liquidity: 10n ** 21n,
    uncollected: { amount0: 4n * e18, amount1: 12n * e18 },
    tick: 6932,
    sqrtPriceX96: sqrtRatioAtTick(6932),
    ...position,
  },
  referenceSqrtPriceX96: sqrtRatioAtTick(6932),
  feesValue: 10n * e18,
  compoundGasValue: 1n * e18,
  mark: { block: 1n, blockTime: 1_800_000_000, holds: { amount0: e18, amount1: e18 } },
  ...overrides,
});

describe('a V3 position decided', () => {
  it('compounds when the fees are worth more than N times the gas: collect, swap to the ratio, add', () => {
    const decision = decideV3Position(strategy(), observed());
    expect(decision.steps).toEqual([
      { key: 'compound-collect', kind: 'collect' },
      { key: 'compound-swap', kind: 'ratio-swap', range: { tickLower: 6360, tickUpper: 7560 } },
      { key: 'compound-add', kind: 'add-liquidity' },
    ]);
    expect(decision.note).toBe('compound: fees worth 10 cUSD, gas 1 cUSD');
  });

  it('waits while the fees are worth N times the gas or less, and never compounds with compounding off', () => {
    expect(decideV3Position(strategy(), observed({ compoundGasValue: (10n * e18) / 3n + 1n })).steps).toEqual([]);
    const atThree = decideV3Position(strategy(), observed({ feesValue: 3n * e18 }));
    expect(atThree).toEqual({ steps: [], note: 'fees worth 3 cUSD, not more than 3 × gas 1 cUSD' });
    expect(decideV3Position(strategy({ compound: { minFeesToGas: 2.5 } }), observed({ feesValue: 251n * 10n ** 16n })).steps).toHaveLength(3);
    expect(decideV3Position(strategy({ compound: undefined }), observed()).note).toBe('fees worth 10 cUSD, not compounded (off)');
  });

  it('exits at its time, or past its price, removing all, collecting, and selling into one token when asked', () => {
    const at = Date.parse('2026-11-27T11:00:00Z');
    expect(decideV3Position(strategy({ exit: { atMs: at, to: cusd } }), observed()).steps).toEqual([
      { key: 'exit-remove', kind: 'remove-liquidity', liquidity: 10n ** 21n, burn: false },
      { key: 'exit-swap', kind: 'swap-into', to: cusd.address },
    ]);
    // Emptied but still owed fees: only a collect.
    const owed = observed({}, { liquidity: 0n });
    expect(decideV3Position(strategy({ exit: { atMs: at } }), owed).steps).toEqual([{ key: 'exit-collect', kind: 'collect' }]);
    // Not yet: compounds instead.
    expect(decideV3Position(strategy({ exit: { atMs: at + 7_200_000 } }), observed()).steps.map((step) => step.kind)).toEqual([
      'collect',
      'ratio-swap',
      'add-liquidity',
    ]);
    const below = strategy({ exit: { belowSqrtPriceX96: sqrtRatioAtTick(6900) } });
    expect(decideV3Position(below, observed()).steps.map((step) => step.kind)).toEqual(['collect', 'ratio-swap', 'add-liquidity']);
    expect(decideV3Position(below, observed({ referenceSqrtPriceX96: sqrtRatioAtTick(6900) })).note).toBe(
      'exit: the price of cUSD in CELO is at or below its exit level',
    );
    // Emptied already: nothing left to do, and said so.
    const emptied = observed({}, { liquidity: 0n, uncollected: { amount0: 0n, amount1: 0n } });
    expect(decideV3Position(strategy({ exit: { atMs: at } }), emptied)).toEqual({
      steps: [],
      note: 'exited: its time 2026-11-27T11:00:00.000Z has come; the position holds nothing',
    });
  });

  it('re-ranges around the reference, same width, once the oracle shows the price outside for the whole window', () => {
    const keep = strategy({ keepInRange: { outsideMs: 3_600_000, oldPosition: 'burn' } });
    const outside = observed({ referenceSqrtPriceX96: sqrtRatioAtTick(8100), rangeHistory: { outside: 'above' } }, { tick: 8100 });
    const decision = decideV3Position(keep, outside);
    expect(decision.steps).toEqual([
      { key: 're-range-remove', kind: 'remove-liquidity', liquidity: 10n ** 21n, burn: true },
      { key: 're-range-swap', kind: 'ratio-swap', range: { tickLower: 7500, tickUpper: 8700 } },
      { key: 're-range-mint', kind: 'mint', range: { tickLower: 7500, tickUpper: 8700 } },
    ]);
    expect(decision.note).toBe('re-range: the price has been above [6360, 7560) for 60 min; new range [7500, 8700)');
    // Kept: no burn. Not outside the whole window, or not known for how long: compounds (or waits), never re-ranges.
    expect(decideV3Position(strategy({ keepInRange: { outsideMs: 3_600_000, oldPosition: 'keep' } }), outside).steps[0]).toMatchObject({ burn: false });
    expect(decideV3Position(keep, { ...outside, rangeHistory: { outside: false } }).steps.map((s) => s.kind)).toEqual([
      'collect',
      'ratio-swap',
      'add-liquidity',
    ]);
    const unknown = decideV3Position(keep, { ...outside, rangeHistory: { unknown: 'the pool oracle holds 10 min' }, feesValue: 0n });
    expect(unknown).toEqual({
      steps: [],
      note: 'out of range, for how long not known: the pool oracle holds 10 min; fees worth 0 cUSD, not more than 3 × gas 1 cUSD',
    });
  });

  it('centres a range of the old width on the spacing nearest the reference', () => {
    expect(recentredRange(sqrtRatioAtTick(8100), 1200, 60)).toEqual({ tickLower: 7500, tickUpper: 8700 });
    expect(recentredRange(sqrtRatioAtTick(-8131), 600, 10)).toEqual({ tickLower: -8430, tickUpper: -7830 });
  });

  it('is put in words for `check` and the status: which position, and what keeping it means', () => {
    expect(
      strategyInWords(strategy({ keepInRange: { outsideMs: 21_600_000, oldPosition: 'burn' }, exit: { atMs: Date.parse('2027-06-01T00:00:00Z'), to: cusd } })),
    ).toMatch(
      /^keep Uniswap V3 position 7 \(cUSD\/CELO 0.3%\): collect its fees, .* when worth more than 3 × the gas \(valued in cUSD\); re-range it around the reference once out of range for 6h \(burn the old NFT\); leave it at 2027-06-01T00:00:00.000Z for cUSD, /,
    );
    const opening = strategy({ positionId: undefined, open: { range: { tickLower: 6000, tickUpper: 7800 }, amounts: { amount0: e18, amount1: 0n } } });
    expect(strategyInWords(opening)).toMatch(/^keep a Uniswap V3 position it opens \(cUSD\/CELO 0.3%\): /);
  });
});
