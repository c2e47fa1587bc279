/**
 * A position trade in words, as `once`, `history`, the logs and the status page show it: both tokens' amounts, the
 * new NFT's id where one was opened, and no "at least" of one token where the call's minimums are one per token.
 */
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { TokenNames, describeTrade } from '../../src/trade/describe.ts';

const celo = '0x0000000000000000000000000000000000000001' as Address;
const cusd = '0x0000000000000000000000000000000000000002' as Address;
const names = new TokenNames([
  { address: celo, symbol: 'CELO', decimals: 18 },
  { address: cusd, symbol: 'cUSD', decimals: 18 },
]);
const e18 = 10n ** 18n;
const filled = (kind: 'collect' | 'remove-liquidity' | 'add-liquidity' | 'mint' | 'move-position', moved?: Parameters<typeof describeTrade>[0]['moved']) =>
  describeTrade({ trade: { kind, tokenIn: celo, tokenOut: cusd, amountIn: 0n }, status: 'confirmed', minOut: 5n * e18, amountOut: 1n, moved }, names);

describe('a position trade in words', () => {
  it("names both tokens' amounts it moved", () => {
    const moved = { amount0: 2n * e18, amount1: (1_471_064n * e18) / 1_000_000n };
    expect(filled('collect', moved)).toBe('filled: collected 2 CELO and 1.471064 cUSD from a position');
    expect(filled('remove-liquidity', moved)).toBe('filled: removed 2 CELO and 1.471064 cUSD from a position, fees with it');
    expect(filled('add-liquidity', moved)).toBe('filled: added 2 CELO and 1.471064 cUSD to a position');
    expect(filled('mint', { ...moved, positionId: 42n })).toBe('filled: opened position 42 with 2 CELO and 1.471064 cUSD');
  });

  it('says what a move collected and what it opened, or that it paid the wallet', () => {
    const collected = { amount0: 10n * e18, amount1: 3n * e18 };
    expect(filled('move-position', { ...collected, positionId: 7n, liquidity: 1n, added0: 4n * e18, added1: 5n * e18 })).toBe(
      'filled: moved a position in one transaction: collected 10 CELO and 3 cUSD, opened position 7 with 4 CELO and 5 cUSD',
    );
    expect(filled('move-position', collected)).toBe('filled: moved a position in one transaction: collected 10 CELO and 3 cUSD, paid to the wallet');
  });

  it('names the pair when what it moved is not known', () => {
    expect(filled('collect')).toBe('filled: collected CELO and cUSD from a position');
  });
});
