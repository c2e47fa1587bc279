/**
 * A V3 position's arithmetic on its own (the devnet test in test/devnet/position-manager.test.ts holds it to the
 * position manager's answers): what amounts buy and hold, and the swap that brings two amounts to a range's ratio.
 */
import { describe, expect, it } from 'vitest';
import { amountsForLiquidity, liquidityForAmounts, swapToRangeRatio, token0InToken1 } from '../../src/pools/uniswap-v3/liquidity.ts';
import { sqrtRatioAtTick } from '../../src/pools/uniswap-v3/math.ts';

// CELO (18 decimals) at about 0.5 cUSD (18 decimals): tick ≈ -6932; a range 10% either side, on a 60-tick spacing.
const tick = -6932;
const price = sqrtRatioAtTick(tick);
const range = { tickLower: -7980, tickUpper: -5940 };
const e18 = 10n ** 18n;

describe('a V3 position in numbers', () => {
  it('never pulls more than the amounts that bought its liquidity, and burns back no more than it pulled', () => {
    for (const amounts of [
      { amount0: 1_000n * e18, amount1: 500n * e18 },
      { amount0: 3n, amount1: 10n * e18 },
      { amount0: 10n * e18, amount1: 1n },
    ]) {
      const liquidity = liquidityForAmounts(price, range, amounts);
      const pulled = amountsForLiquidity(price, range, liquidity, 'up');
      const returned = amountsForLiquidity(price, range, liquidity, 'down');
      expect(pulled.amount0 <= amounts.amount0 && pulled.amount1 <= amounts.amount1).toBe(true);
      expect(returned.amount0 <= pulled.amount0 && pulled.amount0 - returned.amount0 <= 1n).toBe(true);
      expect(returned.amount1 <= pulled.amount1 && pulled.amount1 - returned.amount1 <= 1n).toBe(true);
    }
  });

  it('holds one token only outside its range', () => {
    const below = amountsForLiquidity(sqrtRatioAtTick(range.tickLower - 100), range, 10n ** 20n, 'down');
    const above = amountsForLiquidity(sqrtRatioAtTick(range.tickUpper + 100), range, 10n ** 20n, 'down');
    expect(below.amount1).toBe(0n);
    expect(below.amount0 > 0n).toBe(true);
    expect(above.amount0).toBe(0n);
    expect(above.amount1 > 0n).toBe(true);
  });

  it('sells the surplus token so that what is left goes in whole, but for a few raw units', () => {
    for (const fees of [
      { amount0: 40n * e18, amount1: 0n },
      { amount0: 0n, amount1: 15n * e18 },
      { amount0: 7n * e18, amount1: 9n * e18 },
    ]) {
      const swap = swapToRangeRatio(price, range, fees);
      if (!swap) throw new Error('a swap was expected');
      // Sold at the same price, fee aside.
      const left =
        swap.sell === 'token0'
          ? { amount0: fees.amount0 - swap.amount, amount1: fees.amount1 + token0InToken1(price, swap.amount) }
          : { amount0: fees.amount0 + (swap.amount * (1n << 192n)) / (price * price), amount1: fees.amount1 - swap.amount };
      const pulled = amountsForLiquidity(price, range, liquidityForAmounts(price, range, left), 'up');
      // What does not go in is worth under a millionth of the whole.
      const value = (amounts: { amount0: bigint; amount1: bigint }) => token0InToken1(price, amounts.amount0) + amounts.amount1;
      expect((value(left) - value(pulled)) * 1_000_000n < value(left)).toBe(true);
    }
  });

  it('sells everything into the one token a range outside the price holds', () => {
    const fees = { amount0: 7n * e18, amount1: 9n * e18 };
    expect(swapToRangeRatio(sqrtRatioAtTick(range.tickLower - 60), range, fees)).toEqual({ sell: 'token1', amount: 9n * e18 });
    expect(swapToRangeRatio(sqrtRatioAtTick(range.tickUpper + 60), range, fees)).toEqual({ sell: 'token0', amount: 7n * e18 });
    expect(swapToRangeRatio(price, range, { amount0: 0n, amount1: 0n })).toBeUndefined();
  });
});
