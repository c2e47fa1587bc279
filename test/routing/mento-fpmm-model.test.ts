/**
 * Mento v3's fixed-price pool model (src/pools/mento-fpmm/math.ts) by hand: the FX market's hours at their edges, the
 * rate less the fees, the reserves and the trading limits.
 */
import { describe, expect, it } from 'vitest';
import { type FpmmState, fpmmSwap, isFXMarketOpen } from '../../src/pools/mento-fpmm/math.ts';

const at = (iso: string) => BigInt(Date.parse(iso) / 1000);
const state = (overrides: Partial<FpmmState> = {}): FpmmState => ({
  decimals0: 10n ** 6n,
  decimals1: 10n ** 18n,
  reserve0: 1_000_000n * 10n ** 6n,
  reserve1: 1_000_000n * 10n ** 18n,
  lpFee: 3n,
  protocolFee: 2n,
  // One token1 (the dollar stable) per token0 (USDC).
  rateNumerator: 10n ** 24n,
  rateDenominator: 10n ** 24n,
  medianTimestamp: at('2026-11-26T12:00:00Z'),
  reportExpiry: 300n,
  tradingMode: 0,
  invertRateFeed: false,
  marketHoursChecked: true,
  ...overrides,
});

describe('Mento v3 fixed-price pools, by hand', () => {
  it('is closed from Friday 21:00 to Sunday 23:00 UTC, late on 24 and 31 December, on 25 December and 1 January', () => {
    const open = ['2026-11-27T20:59:59Z', '2026-11-29T23:00:00Z', '2026-12-24T21:59:59Z', '2024-02-29T12:00:00Z', '2026-11-26T12:00:00Z'];
    const closed = [
      '2026-11-27T21:00:00Z',
      '2026-11-28T12:00:00Z',
      '2026-11-29T22:59:59Z',
      '2026-12-24T22:00:00Z',
      '2026-12-25T12:00:00Z',
      '2026-12-31T23:00:00Z',
      '2027-01-01T12:00:00Z',
    ];
    expect(open.map((iso) => isFXMarketOpen(at(iso)))).toEqual(open.map(() => true));
    expect(closed.map((iso) => isFXMarketOpen(at(iso)))).toEqual(closed.map(() => false));
  });

  it('pays the rate less 5 bps, both ways, and leaves the protocol its share of the input', () => {
    const now = at('2026-11-26T12:01:00Z');
    const usdcIn = fpmmSwap(state(), true, 1_000n * 10n ** 6n, now);
    expect('amountOut' in usdcIn && usdcIn.amountOut).toBe(999_500_000_000_000_000_000n);
    expect('state' in usdcIn && usdcIn.state.reserve0).toBe(1_000_000n * 10n ** 6n + 1_000n * 10n ** 6n - 200_000n);
    const dollarIn = fpmmSwap(state(), false, 1_000n * 10n ** 18n, now);
    expect('amountOut' in dollarIn && dollarIn.amountOut).toBe(999_500_000n);
  });

  it('refuses the market closed, a halted feed, a stale median, a reserve too small and a limit passed', () => {
    const now = at('2026-11-26T12:01:00Z');
    expect(fpmmSwap(state(), true, 10n ** 6n, at('2026-11-28T12:00:00Z'))).toEqual({ refused: { kind: 'market-closed' } });
    // A pool whose breaker has its checks off (Celo's USD pools) trades on the same Saturday, its median fresh.
    const saturday = at('2026-11-28T12:00:00Z');
    const unchecked = fpmmSwap(state({ marketHoursChecked: false, medianTimestamp: saturday - 60n }), true, 1_000n * 10n ** 6n, saturday);
    expect('amountOut' in unchecked && unchecked.amountOut).toBe(999_500_000_000_000_000_000n);
    expect(fpmmSwap(state({ tradingMode: 3 }), true, 10n ** 6n, now)).toEqual({ refused: { kind: 'halted', tradingMode: 3 } });
    expect(fpmmSwap(state(), true, 10n ** 6n, at('2026-11-26T12:05:01Z'))).toEqual({ refused: { kind: 'no-median' } });
    expect(fpmmSwap(state(), true, 1_001_000n * 10n ** 6n, now)).toEqual({ refused: { kind: 'liquidity', reserve: 1_000_000n * 10n ** 18n } });
    const limit = { limit0: 1_000n * 10n ** 15n, limit1: 0n, decimals: 6, lastUpdated0: 0n, lastUpdated1: 0n, netflow0: 0n, netflow1: 0n };
    // 1,001 USDC in, counted less the 5 bps fee (1,000.4995), past L0 = 1,000.
    expect(fpmmSwap(state({ limit0: limit }), true, 1_001n * 10n ** 6n, now)).toEqual({
      refused: { kind: 'limit', token: 0, limit: 'L0', headroom: 1_000n * 10n ** 15n },
    });
  });
});
