/**
 * A V3 position observed as its strategy sees it, on the real position manager: fees valued at the reference, the
 * reference price in the pool's terms, the owner held to the wallet, and how long the price has been out of range
 * told by the chain alone, on a busy pool whose own oracle keeps one observation.
 */
import { describe, expect, it } from 'vitest';
import { type MarketView, ValuationError, observeV3Position } from '../../src/engine/observe.ts';
import { readV3Position } from '../../src/pools/uniswap-v3/position.ts';
import { type V3PositionStrategy, decideV3Position } from '../../src/strategy/v3-position.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { useTestExecutor } from '../helpers/engine.ts';
import {
  cusdCeloPool,
  oneObservationPool,
  openPosition,
  positionManagerOf,
  positionStrategy,
  swapInPool,
  tradeBusily,
  tradeVolume,
} from '../../support/positions.ts';
import { uniswapV3PoolAbi } from '../../src/contracts/abi.ts';
import { trader } from '../helpers/routing.ts';

const e18 = 10n ** 18n;

describe('a V3 position observed', () => {
  const fork = useDevnetFork({ uniswapV3: true });
  const executor = useTestExecutor(fork);

  const pool = () => cusdCeloPool(fork);
  const info = (symbol: string) => ({ symbol, address: fork.token(symbol), decimals: 18 });
  const strategyOf = (positionId: bigint, overrides: Partial<V3PositionStrategy> = {}) => positionStrategy(fork, positionId, overrides);
  const view = (account = 0): MarketView => ({
    client: executor().wallet.client,
    prices: executor().prices,
    wallet: trader(fork, account).address,
    nativeToken: info('CELO'),
    now: Date.now,
  });

  it('values the uncollected fees and the gas at the reference, and decides to compound once they are worth it', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const strategy = strategyOf(opened.tokenId);
    const quiet = await observeV3Position(strategy, view(), opened.tokenId);
    expect(quiet.feesValue).toBe(0n);
    expect(decideV3Position(strategy, quiet).steps).toEqual([]);

    await tradeVolume(fork, pool(), { account: 1, size: 2_000n * e18, rounds: 4 });
    const observed = await observeV3Position(strategy, view(), opened.tokenId);
    const read = await readV3Position(executor().wallet.client, positionManagerOf(fork), opened.tokenId, await executor().wallet.client.getBlockNumber());
    expect(observed.position).toEqual(read);
    const at = (token: `0x${string}`, amount: bigint) =>
      executor()
        .prices.convert(token, fork.token('cUSD'), amount)
        .then((converted) => converted.amountOut);
    expect(observed.feesValue).toBe((await at(read.token0, read.uncollected.amount0)) + (await at(read.token1, read.uncollected.amount1)));
    // The reference price (the feeds) and the pool's, in the pool's own terms, agree within the pool's drift.
    const gap =
      observed.referenceSqrtPriceX96 > read.sqrtPriceX96
        ? observed.referenceSqrtPriceX96 - read.sqrtPriceX96
        : read.sqrtPriceX96 - observed.referenceSqrtPriceX96;
    expect(gap * 1_000n < read.sqrtPriceX96).toBe(true);
    expect(observed.compoundGasValue > 0n && observed.feesValue > observed.compoundGasValue * 3n).toBe(true);
    expect(decideV3Position(strategy, observed).steps.map((step) => step.kind)).toEqual(['collect', 'ratio-swap', 'add-liquidity']);
  });

  it("refuses to look at a position that is not the wallet's", async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    await expect(observeV3Position(strategyOf(opened.tokenId), view(1), opened.tokenId)).rejects.toThrow(ValuationError);
    await expect(observeV3Position(strategyOf(opened.tokenId), view(1), opened.tokenId)).rejects.toThrow(/belongs to 0x[0-9a-fA-F]{40}, not to the wallet/);
  });

  it('tells out of range for the window from the chain on a busy pool of one observation: outside the whole hour, not long enough, or not known', async () => {
    const busy = oneObservationPool(fork);
    const opened = await openPosition(fork, busy, { halfWidthTicks: 60, amount0: 2_000n * e18, amount1: 2_000n * e18 });
    const keep = positionStrategy(fork, opened.tokenId, { keepInRange: { outsideMs: 3_600_000, oldPosition: 'keep' } }, busy);
    const observe = async (strategy = keep) => observeV3Position(strategy, view(), opened.tokenId);
    // Traded both ways every five minutes for an hour, each swap a block of its own, the price inside the range.
    const busily = { everySeconds: 300, usd: 200 };
    await tradeBusily(fork, busy, { ...busily, seconds: 3_600 });
    expect((await observe()).rangeHistory).toEqual({ outside: false });
    // Then CELO sold out of the range, and the trading goes on: the price stays outside.
    const sold = busy.token0 === 'CELO' ? 'token0' : 'token1';
    await swapInPool(fork, busy, { account: 1, sell: sold, amount: 40_000n * e18 });
    await tradeBusily(fork, busy, { ...busily, seconds: 600 });
    const tenMinutes = await observe();
    expect(sold === 'token0' ? tenMinutes.position.tick < tenMinutes.position.tickLower : tenMinutes.position.tick >= tenMinutes.position.tickUpper).toBe(true);
    // Inside for part of the window: not out of range for all of it.
    expect(tenMinutes.rangeHistory).toEqual({ outside: false });
    await tradeBusily(fork, busy, { ...busily, seconds: 3_600 });
    // The pool's own oracle keeps one observation, the last swap's: it cannot say where the price was an hour ago.
    await expect(fork.publicClient.readContract({ address: busy.address, abi: uniswapV3PoolAbi, functionName: 'observe', args: [[3_600, 0]] })).rejects.toThrow(
      /OLD/,
    );
    const outside = await observe();
    const side = sold === 'token0' ? 'below' : 'above';
    expect(outside.rangeHistory).toEqual({ outside: side });
    expect(decideV3Position(keep, outside).steps.map((step) => step.kind)).toEqual(['remove-liquidity', 'ratio-swap', 'mint']);
    // A window longer than the position has lived: its range held no liquidity then, so how long is not known, and
    // the position is not moved on a guess (only its fees compounded).
    const day = await observe(positionStrategy(fork, opened.tokenId, { keepInRange: { outsideMs: 86_400_000, oldPosition: 'keep' } }, busy));
    expect(day.rangeHistory).toMatchObject({
      unknown: expect.stringMatching(/^the range's seconds inside cannot be read at block \d+, 1440 min ago: no liquidity held its ticks then/),
    });
    const undecided = decideV3Position(keep, day);
    expect(undecided.note).toMatch(/^out of range, for how long not known: the range's seconds inside cannot be read/);
    expect(undecided.steps.map((step) => step.kind)).toEqual(['collect', 'ratio-swap', 'add-liquidity']);
    // And not one the chain itself is younger than.
    const years = await observe(positionStrategy(fork, opened.tokenId, { keepInRange: { outsideMs: 1_000 * 86_400_000, oldPosition: 'keep' } }, busy));
    expect(years.rangeHistory).toMatchObject({ unknown: expect.stringMatching(/^no block of 1440000 min ago was found/) });
  });
});
