/**
 * Our V3 swap arithmetic (src/pools/uniswap-v3/math.ts) against the real pool bytecode on the devnet: the sqrt
 * price of every tick bit, and quotes over many sizes in both directions of every V3 pool, equal to the wei to what
 * the adapter's view (Uniswap's own libraries) answers and to what the pool pays in a real swap, including swaps
 * that cross several initialized ticks.
 */
import { type Address, erc20Abi, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { seeded } from '../../support/chaos.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { MAX_TICK, MIN_TICK, sqrtRatioAtTick, swapExactIn } from '../../src/pools/uniswap-v3/math.ts';
import { readV3PoolState } from '../../src/pools/uniswap-v3/state.ts';
import { trader } from '../helpers/routing.ts';

describe('Uniswap V3 arithmetic against the pool bytecode', () => {
  const fork = useDevnetFork({ uniswapV3: true });
  const adapter = () => fork.addressBook.contracts.adapters.uniswapV3 as Address;
  const pools = () => fork.addressBook.uniswapV3?.pools ?? [];

  it('computes the sqrt price of every tick bit, both signs, and the ends, as TickMath does', async () => {
    const random = seeded(35);
    const ticks = [
      MIN_TICK,
      MAX_TICK,
      0,
      ...Array.from({ length: 20 }, (_, bit) => [1 << bit, -(1 << bit)])
        .flat()
        .filter((tick) => Math.abs(tick) <= MAX_TICK),
    ];
    for (let i = 0; i < 60; i++) ticks.push(Math.floor((random() * 2 - 1) * MAX_TICK));
    const onChain = await Promise.all(
      ticks.map((tick) =>
        fork.publicClient.readContract({ address: adapter(), abi: artifacts.UniswapV3Adapter.abi, functionName: 'sqrtRatioAtTick', args: [tick] }),
      ),
    );
    expect(ticks.map(sqrtRatioAtTick)).toEqual(onChain);
  });

  it('quotes every pool, both ways, over sizes from dust to a third of its depth, exactly as the adapter view', async () => {
    expect(pools().length).toBeGreaterThanOrEqual(3);
    let compared = 0;
    for (const pool of pools()) {
      const state = await readV3PoolState(fork.publicClient, pool.address, pool.tickSpacing, await fork.publicClient.getBlockNumber());
      expect(state.ticks.length).toBeGreaterThanOrEqual(4);
      for (const [symbolIn, symbolOut] of [
        [pool.token0, pool.token1],
        [pool.token1, pool.token0],
      ] as const) {
        const [tokenIn, tokenOut] = [fork.token(symbolIn), fork.token(symbolOut)];
        const depth = await fork.balanceOf(tokenIn, pool.address);
        const sizes = Array.from({ length: 24 }, (_, i) => (depth * BigInt(Math.round(10 ** (i / 4)))) / 3_000_000n + 1n);
        const viewed = await Promise.all(
          sizes.map((size) =>
            fork.publicClient.readContract({
              address: adapter(),
              abi: artifacts.UniswapV3Adapter.abi,
              functionName: 'getOutputAmount',
              args: [tokenIn, tokenOut, size, pool.address],
            }),
          ),
        );
        const ours = sizes.map((size) => swapExactIn(state, pool, getAddress(tokenIn) === getAddress(fork.token(pool.token0)), size)?.amountOut);
        expect(ours).toEqual(viewed);
        compared += sizes.length;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(144);
  });

  it('pays in a real swap exactly what it quotes, across several initialized ticks', async () => {
    const { address, wallet } = trader(fork);
    const pool = pools().find((candidate) => candidate.fee === 500);
    if (!pool) throw new Error('no 0.05% pool');
    const tokenIn = fork.token(pool.token0);
    const tokenOut = fork.token(pool.token1);
    const block = await fork.publicClient.getBlockNumber();
    const state = await readV3PoolState(fork.publicClient, pool.address, pool.tickSpacing, block);
    // As much token0 again as the pool holds: past the edges of its 1% and 5% positions.
    const amountIn = await fork.balanceOf(tokenIn, pool.address);
    await fork.confirm(await wallet.writeContract({ address: tokenIn, abi: artifacts.TestToken.abi, functionName: 'mint', args: [address, amountIn] }));
    const quoted = swapExactIn(state, pool, true, amountIn);
    if (!quoted) throw new Error('no quote');
    const crossed = state.ticks.filter((tick) => tick.tick <= state.tick && tick.tick > quoted.tick).length;
    expect(crossed).toBeGreaterThanOrEqual(2);
    const before = await fork.balanceOf(tokenOut, address);
    await fork.confirm(await wallet.writeContract({ address: tokenIn, abi: erc20Abi, functionName: 'transfer', args: [adapter(), amountIn] }));
    await fork.confirm(
      await wallet.writeContract({
        address: adapter(),
        abi: artifacts.UniswapV3Adapter.abi,
        functionName: 'swap',
        args: [tokenIn, tokenOut, address, pool.address],
      }),
    );
    expect((await fork.balanceOf(tokenOut, address)) - before).toBe(quoted.amountOut);
    const [sqrtPriceX96, tick] = await fork.publicClient.readContract({ address: pool.address, abi: artifacts.UniswapV3Pool.abi, functionName: 'slot0' });
    expect({ sqrtPriceX96, tick }).toEqual({ sqrtPriceX96: quoted.sqrtPriceX96, tick: quoted.tick });
    expect(await fork.publicClient.readContract({ address: pool.address, abi: artifacts.UniswapV3Pool.abi, functionName: 'liquidity' })).toBe(quoted.liquidity);
  });
});
