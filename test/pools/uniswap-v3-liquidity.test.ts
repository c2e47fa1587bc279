/**
 * A V3 position's arithmetic on its own (the devnet test in test/devnet/position-manager.test.ts holds it to the
 * position manager's answers): what amounts buy and hold, and the swap that brings two amounts to a range's ratio.
 */
import { describe, expect, it } from 'vitest';
import {
  type RangeSale,
  type TokenAmounts,
  amountsForLiquidity,
  liquidityForAmounts,
  saleToRangeRatio,
  swapToRangeRatio,
  token0InToken1,
} from '../../src/pools/uniswap-v3/liquidity.ts';
import { type V3PoolState, sqrtRatioAtTick, swapExactIn } from '../../src/pools/uniswap-v3/math.ts';

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

  describe('a ratio swap sized for its fee and impact', () => {
    const fees = { amount0: 40n * e18, amount1: 2n * e18 };
    const value = (at: bigint, amounts: TokenAmounts) => token0InToken1(at, amounts.amount0) + amounts.amount1;
    /** What selling `amount` of token0 leaves, and what of it the range does not take at the price the mint meets. */
    const idleAfter = (sale: RangeSale, amount: bigint) => {
      const sold = sale(amount);
      if (!sold) throw new Error('the sale was expected to be known');
      const left = { amount0: fees.amount0 - amount, amount1: fees.amount1 + sold.out };
      const pulled = amountsForLiquidity(sold.sqrtPriceX96, range, liquidityForAmounts(sold.sqrtPriceX96, range, left), 'up');
      return { share: Number(value(sold.sqrtPriceX96, left) - value(sold.sqrtPriceX96, pulled)) / Number(value(sold.sqrtPriceX96, left)) };
    };
    const atReference = swapToRangeRatio(price, range, fees);
    if (atReference?.sell !== 'token0') throw new Error('token0 was expected to be sold');

    it('through another pool at its 0.3% fee: sells more than the split at the reference, and leaves nothing idle', () => {
      const elsewhere: RangeSale = (amount) => ({ out: (token0InToken1(price, amount) * 997n) / 1000n, sqrtPriceX96: price });
      const sized = saleToRangeRatio(range, fees, 'token0', elsewhere, fees.amount0);
      expect(sized > atReference.amount).toBe(true);
      expect(idleAfter(elsewhere, atReference.amount).share).toBeGreaterThan(0.0005);
      expect(idleAfter(elsewhere, sized).share).toBeLessThan(1e-12);
    });

    it("through the position's own thin pool: sells less, since the sale moves the price the mint meets", () => {
      // A pool holding about 300 CELO and 150 cUSD from tick -12000 to -1200 (0.3%, 60-tick spacing).
      const wide = { tickLower: -12000, tickUpper: -1200 };
      const liquidity = liquidityForAmounts(price, wide, { amount0: 300n * e18, amount1: 150n * e18 });
      const state: V3PoolState = {
        sqrtPriceX96: price,
        tick,
        liquidity,
        ticks: [
          { tick: wide.tickLower, liquidityNet: liquidity, liquidityGross: liquidity },
          { tick: wide.tickUpper, liquidityNet: -liquidity, liquidityGross: liquidity },
        ],
        words: { low: -2, high: 0 },
      };
      const ownPool: RangeSale = (amount) => {
        const swapped = swapExactIn(state, { fee: 3000, tickSpacing: 60 }, true, amount);
        return swapped && { out: swapped.amountOut, sqrtPriceX96: swapped.sqrtPriceX96 };
      };
      const sized = saleToRangeRatio(range, fees, 'token0', ownPool, fees.amount0);
      expect(sized < atReference.amount).toBe(true);
      expect(idleAfter(ownPool, atReference.amount).share).toBeGreaterThan(0.01);
      expect(idleAfter(ownPool, sized).share).toBeLessThan(1e-12);
    });

    it('sells nothing when what is held already fits at the price the sale would leave, and no more than its cap', () => {
      const elsewhere: RangeSale = (amount) => ({ out: token0InToken1(price, amount), sqrtPriceX96: price });
      expect(saleToRangeRatio(range, { amount0: 0n, amount1: 5n * e18 }, 'token0', elsewhere, 0n)).toBe(0n);
      expect(saleToRangeRatio(range, fees, 'token0', elsewhere, 1_000n)).toBe(1_000n);
    });
  });
});
