import { describe, expect, it } from 'vitest';
import { parseTokenAmount, resolveTokenAddress } from '../../src/chain/tokens.ts';
import { formatTokenAmount } from '../../src/units.ts';
import { ConfigError } from '../../src/errors.ts';
import { parseRetryAfter } from '../../src/routing-client/http.ts';

const usdc = { address: '0x0000000000000000000000000000000000000001' as const, symbol: 'USDC', decimals: 6 };

describe('token amounts', () => {
  it('parses human amounts exactly, never rounding', () => {
    expect(parseTokenAmount('12.5', usdc, 'amount')).toBe(12_500_000n);
    expect(parseTokenAmount('0.000001', usdc, 'amount')).toBe(1n);
    expect(parseTokenAmount('1000000', usdc, 'amount')).toBe(1_000_000_000_000n);
    expect(() => parseTokenAmount('0.0000001', usdc, 'sell.amount')).toThrow(/sell.amount: '0.0000001' has 7 decimals but USDC has only 6/);
    for (const bad of ['', '1,5', '-1', '1e6', '.5', 'ten']) expect(() => parseTokenAmount(bad, usdc, 'amount')).toThrow(ConfigError);
    expect(() => parseTokenAmount('0.000', usdc, 'amount')).toThrow(/more than zero/);
  });

  it('formats raw amounts with grouping and every significant decimal', () => {
    expect(formatTokenAmount(1_234_567_890_000n, 6)).toBe('1,234,567.89');
    expect(formatTokenAmount(1n, 18)).toBe('0.000000000000000001');
    expect(formatTokenAmount(0n, 18)).toBe('0');
  });

  it('resolves symbols through an address book, in any case, and addresses as given', () => {
    const book = { tokens: { cUSD: { address: '0x765DE816845861e75A25fCA122bb6898B8B1282a', decimals: 18 } } } as never;
    expect(resolveTokenAddress('cUSD', book, 'buy')).toBe('0x765DE816845861e75A25fCA122bb6898B8B1282a');
    expect(resolveTokenAddress('CUSD', book, 'buy')).toBe('0x765DE816845861e75A25fCA122bb6898B8B1282a');
    expect(resolveTokenAddress('0x765de816845861e75a25fca122bb6898b8b1282a', undefined, 'buy')).toBe('0x765DE816845861e75A25fCA122bb6898B8B1282a');
    expect(() => resolveTokenAddress('DOGE', book, 'strategies.0.buy')).toThrow(/strategies.0.buy: unknown token 'DOGE'; give an address or one of cUSD/);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
