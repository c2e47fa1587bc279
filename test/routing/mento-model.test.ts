/**
 * The fast tier's cases of the Mento model (src/pools/mento/math.ts, src/pools/mento/kind.ts), on hand-made states: the
 * rules the devnet tests hold to Mento's bytecode (test/routing/mento-math.test.ts), each shown where it turns.
 */
import { describe, expect, it } from 'vitest';
import {
  FIXED1,
  type MentoExchangeState,
  type TradingLimit,
  afterFlow,
  bucketsAt,
  fixidityMultiply,
  hasValidMedian,
  mentoAmountOut,
  mentoSwap,
} from '../../src/pools/mento/math.ts';
import { mentoV2 } from '../../src/pools/mento/kind.ts';
import type { MentoExchange } from '../../src/pools/mento/state.ts';

const e18 = 10n ** 18n;
const limit = (overrides: Partial<TradingLimit> = {}): TradingLimit => ({
  timestep0: 300n,
  timestep1: 86_400n,
  limit0: 1_000n,
  limit1: 5_000n,
  limitGlobal: 0n,
  flags: 3,
  lastUpdated0: 0n,
  lastUpdated1: 0n,
  netflow0: 0n,
  netflow1: 0n,
  netflowGlobal: 0n,
  decimals: 18,
  ...overrides,
});
const state = (overrides: Partial<MentoExchangeState> = {}): MentoExchangeState => ({
  pricing: 'ConstantProduct',
  bucket0: 1_000_000n * e18,
  bucket1: 2_000_000n * e18,
  lastBucketUpdate: 1_000n,
  spread: FIXED1 / 400n,
  resetFrequency: 300n,
  minimumReports: 1n,
  stablePoolResetSize: 1_000_000n * e18,
  multiplier0: 1n,
  multiplier1: 1n,
  oracle: { rateNumerator: FIXED1 / 2n, rateDenominator: FIXED1, medianTimestamp: 1_100n, numRates: 1n, oldestReport: 1_100n, reportExpiry: 360n },
  tradingMode: 0,
  ...overrides,
});

describe('Mento arithmetic, by hand', () => {
  it('multiplies as FixidityLib does: the fractional parts cut to 12 decimals first', () => {
    expect(fixidityMultiply(3n * FIXED1, 2n * FIXED1)).toBe(6n * FIXED1);
    // 1.5 × 1.5 = 2.25 exactly: the halves survive the cut.
    expect(fixidityMultiply((3n * FIXED1) / 2n, (3n * FIXED1) / 2n)).toBe((9n * FIXED1) / 4n);
    // A fraction below 1e-12 vanishes from the fractional product: 1e-13 × 1e-13 is 0, not 1e-26.
    expect(fixidityMultiply(10n ** 11n, 10n ** 11n)).toBe(0n);
  });

  it('resets the buckets to the median when the reset is due and the median is valid, and not a second before', () => {
    const exchange = state();
    expect(bucketsAt(exchange, 1_299n)).toEqual({ bucket0: exchange.bucket0, bucket1: exchange.bucket1, reset: false });
    // At 0.5 of asset0 per asset1: 1,000,000 of asset0 is worth 2,000,000 of asset1.
    expect(bucketsAt(exchange, 1_300n)).toEqual({ bucket0: 1_000_000n * e18, bucket1: 2_000_000n * e18, reset: true });
    // A median reported longer ago than the reset frequency is not valid: no reset, and a constant-sum exchange does not trade.
    expect(hasValidMedian(exchange, 1_400n)).toBe(false);
    expect(bucketsAt(exchange, 1_400n)?.reset).toBe(false);
    expect(mentoAmountOut(state({ pricing: 'ConstantSum' }), true, e18, 1_400n)).toBeUndefined();
  });

  it('refuses a swap past a trading limit, naming the limit and the room left, and counts a window anew once it passed', () => {
    // 1,001 whole tokens in against L0 = 1,000.
    expect(afterFlow(limit(), 1_001n * e18, 2_000n)).toEqual({ breach: { limit: 'L0', headroom: 1_000n } });
    const spent = afterFlow(limit(), 600n * e18, 2_000n);
    if (!('state' in spent)) throw new Error('refused');
    expect(afterFlow(spent.state, 600n * e18, 2_100n)).toEqual({ breach: { limit: 'L0', headroom: 400n } });
    // Past the window (timestep0 after its start) L0 counts from 0 again; L1 keeps the day's 600.
    const later = afterFlow(spent.state, 600n * e18, 2_301n);
    expect('state' in later && [later.state.netflow0, later.state.netflow1]).toEqual([600n, 1_200n]);
    // Less than a whole token still counts as one, and as the deployed Broker (v2.2.0) counts it, as +1 whichever way
    // it goes and when it is none: an outflow of dust adds to the inflow.
    const dust = afterFlow(limit(), 1n, 2_000n);
    expect('state' in dust && dust.state.netflow0).toBe(1n);
    const dustOut = afterFlow(limit(), -(e18 - 1n), 2_000n);
    expect('state' in dustOut && dustOut.state.netflow0).toBe(1n);
    const none = afterFlow(limit(), 0n, 2_000n);
    expect('state' in none && [none.state.netflow0, none.state.netflow1]).toEqual([1n, 1n]);
    // A whole token out still counts with its sign.
    const out = afterFlow(limit(), -(2n * e18 + 1n), 2_000n);
    expect('state' in out && out.state.netflow0).toBe(-2n);
  });

  it('refuses a halted rate feed and too little collateral in the Reserve; else moves the buckets by the full input', () => {
    expect(mentoSwap(state({ tradingMode: 3 }), true, e18, 1_200n)).toEqual({ refused: { kind: 'halted', tradingMode: 3 } });
    expect(mentoSwap(state({ reserve1: e18 }), true, 1_000n * e18, 1_200n)).toEqual({ refused: { kind: 'reserve', holds: e18 } });
    const swapped = mentoSwap(state(), true, 1_000n * e18, 1_200n);
    if (!('amountOut' in swapped)) throw new Error('refused');
    expect(swapped.state.bucket0).toBe(1_001_000n * e18);
    expect(swapped.state.bucket1).toBe(2_000_000n * e18 - swapped.amountOut);
  });
});

describe('the Mento pool kind', () => {
  const exchange: MentoExchange = {
    broker: '0x0000000000000000000000000000000000000b0b',
    provider: '0x0000000000000000000000000000000000000b1b',
    exchangeId: `0x${'ab'.repeat(32)}`,
    asset0: '0x0000000000000000000000000000000000000a00',
    asset1: '0x0000000000000000000000000000000000000a01',
    pricing: 'ConstantProduct',
    rateFeed: '0x0000000000000000000000000000000000000fee',
    sortedOracles: '0x0000000000000000000000000000000000000050',
    breakerBox: '0x0000000000000000000000000000000000000bb0',
    reserve: '0x0000000000000000000000000000000000000e5e',
    decimals0: 18,
    decimals1: 6,
    multiplier0: 1n,
    multiplier1: 10n ** 12n,
    collateral0: false,
    collateral1: true,
    spread: FIXED1 / 400n,
  };
  const pool = mentoV2.fromCache(
    {
      kind: 'mento-v2',
      address: '0x0000000000000000000000000000000000000001',
      token0: exchange.asset0,
      token1: exchange.asset1,
      factory: exchange.broker,
      index: -1,
      mento: JSON.parse(JSON.stringify(exchange, (_k, v) => (typeof v === 'bigint' ? { n: String(v) } : v))),
      state: { exchange: null, landsAt: { n: '0' } },
    },
    {
      address: exchange.broker,
      kind: 'mento-v2',
      protocol: 'mento',
      exchangeProviders: [exchange.provider],
      adapter: { address: '0x0000000000000000000000000000000000000ada', kind: 'mento-v2' },
    },
  ).pool;

  it('keeps an exchange and its state through the index file, amounts as they were', () => {
    const kept = { exchange: state({ limit1: limit(), reserve1: 7n }), landsAt: 1_201n };
    const restored = mentoV2.fromCache(JSON.parse(JSON.stringify(mentoV2.toCache(pool, kept))), {
      address: exchange.broker,
      kind: 'mento-v2',
      protocol: 'mento',
      exchangeProviders: [exchange.provider],
      adapter: pool.adapter,
    });
    expect(restored.state).toEqual(kept);
    expect(restored.pool.mento).toEqual(exchange);
  });

  it("writes extras as the adapter reads them, and names each hop's exchange by its provider and id", () => {
    expect(mentoV2.extras(pool.adapter, pool)).toBe(`0x${'0'.repeat(37)}b0b${'0'.repeat(37)}b1b${'ab'.repeat(32)}`);
    expect(mentoV2.readExtras(mentoV2.extras(pool.adapter, pool))).toEqual({ pool: pool.address });
    expect(mentoV2.readExtras('0x1234')).toBe('is 2 bytes, not a Mento exchange (broker 20, provider 20, exchange id 32)');
  });

  it('quotes nothing without a valid median, or for a halted feed', () => {
    expect(mentoV2.quote({ exchange: state(), landsAt: 1_200n }, pool, true, e18)).toBeGreaterThan(0n);
    expect(mentoV2.quote({ exchange: state(), landsAt: 1_460n }, pool, true, e18)).toBe(0n);
    expect(mentoV2.routable({ exchange: state({ tradingMode: 3 }), landsAt: 1_200n }, 1n)).toBe(false);
  });
});
