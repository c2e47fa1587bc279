/**
 * A V3 position observed as its strategy sees it, on the real position manager: fees valued at the reference, the
 * reference price in the pool's terms, the owner held to the wallet, and how long the price has been out of range
 * told by the pool's own oracle alone.
 */
import { describe, expect, it } from 'vitest';
import { type MarketView, ValuationError, observeV3Position } from '../../src/engine/observe.ts';
import { readV3Position } from '../../src/pools/uniswap-v3/position.ts';
import { type V3PositionStrategy, decideV3Position } from '../../src/strategy/v3-position.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { useTestExecutor } from '../helpers/engine.ts';
import { openPosition, pushPoolDown, positionManagerOf, tradeVolume, cusdCeloPool, positionStrategy } from '../../support/positions.ts';
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

  it('tells out of range for the window from the pool oracle: outside the whole hour, not long enough, or not known', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 60, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    const keep = strategyOf(opened.tokenId, { keepInRange: { outsideMs: 3_600_000, oldPosition: 'keep' } });
    expect((await observeV3Position(keep, view(), opened.tokenId)).rangeHistory).toEqual({ outside: false });
    // A large sale of token0 takes the price below the range (token0 cheaper in token1): the devnet's tokens mint to anyone.
    await pushPoolDown(fork, pool(), 1_000_000n * e18);
    const justOut = await observeV3Position(keep, view(), opened.tokenId);
    expect(justOut.position.tick < justOut.position.tickLower).toBe(true);
    await fork.testClient.increaseTime({ seconds: 600 });
    await fork.testClient.mine({ blocks: 1 });
    expect((await observeV3Position(keep, view(), opened.tokenId)).rangeHistory).toEqual({ outside: false });
    await fork.testClient.increaseTime({ seconds: 3_600 });
    await fork.testClient.mine({ blocks: 1 });
    const outside = await observeV3Position(keep, view(), opened.tokenId);
    expect(outside.rangeHistory).toEqual({ outside: 'below' });
    expect(decideV3Position(keep, outside).steps.map((step) => step.kind)).toEqual(['remove-liquidity', 'ratio-swap', 'mint']);
    const farBack = await observeV3Position(
      strategyOf(opened.tokenId, { keepInRange: { outsideMs: 1_000 * 86_400_000, oldPosition: 'keep' } }),
      view(),
      opened.tokenId,
    );
    expect(farBack.rangeHistory).toMatchObject({ unknown: expect.stringMatching(/^the pool's oracle does not reach back/) });
  });
});
