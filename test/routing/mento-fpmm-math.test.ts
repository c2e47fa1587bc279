/**
 * Mento v3's fixed-price pool model (src/pools/mento-fpmm/math.ts over src/pools/mento-fpmm/state.ts) against the
 * devnet's pool (our contract with their interface): quotes both ways equal its `getAmountOut`, a real swap pays
 * what the model says and leaves the reserves it predicts. The chain's clock is set to a weekday: the FX market is
 * closed on weekends.
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { mentoFpmmAbi } from '../../src/contracts/abi.ts';
import { type FpmmState, fpmmAmountOut, fpmmRate, fpmmSwap } from '../../src/pools/mento-fpmm/math.ts';
import { discoverFpmmPools, readFpmmStates } from '../../src/pools/mento-fpmm/state.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { onAWeekday } from '../helpers/fx-clock.ts';
import { trader } from '../helpers/routing.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { erc20Abi } from 'viem';

describe("Mento v3's fixed-price pool model against the devnet's pool", () => {
  const fork = useDevnetFork({ mento: true });

  it('quotes both ways as the pool does, and a swap pays it and leaves the reserves predicted', async () => {
    await onAWeekday(fork);
    const factory = fork.addressBook.mento?.fpmmFactory as Address;
    const block = await fork.publicClient.getBlock();
    const [pool] = await discoverFpmmPools(fork.publicClient, factory, block.number);
    if (!pool) throw new Error('no pool');
    const [state] = (await readFpmmStates(fork.publicClient, [pool], block.number)) as [FpmmState];
    const rate = fpmmRate(state, block.timestamp);
    if ('kind' in rate) throw new Error(`no rate: ${rate.kind}`);
    for (const [inIs0, token, decimals] of [
      [true, pool.token0, 6],
      [false, pool.token1, 18],
    ] as const) {
      const sizes = [1n, 999n, ...[1, 17, 1_000, 250_000].map((human) => parseUnits(String(human), decimals))];
      const onChain = await Promise.all(
        sizes.map((size) =>
          fork.publicClient.readContract({
            address: pool.pool,
            abi: mentoFpmmAbi,
            functionName: 'getAmountOut',
            args: [size, token],
            blockNumber: block.number,
          }),
        ),
      );
      expect(sizes.map((size) => fpmmAmountOut(state, rate, inIs0, size))).toEqual(onChain);
    }
    const { address, wallet } = trader(fork);
    const amountIn = parseUnits('5000', 6);
    const modelled = fpmmSwap(state, true, amountIn, block.timestamp + 1n);
    if (!('amountOut' in modelled)) throw new Error(`refused: ${JSON.stringify(modelled.refused)}`);
    const before = await fork.balanceOf(pool.token1, address);
    await fork.testClient.setNextBlockTimestamp({ timestamp: block.timestamp + 1n });
    await fork.confirm(await wallet.writeContract({ address: pool.token0, abi: erc20Abi, functionName: 'transfer', args: [pool.pool, amountIn] }));
    await fork.confirm(
      await wallet.writeContract({ address: pool.pool, abi: artifacts.DevnetFPMM.abi, functionName: 'swap', args: [0n, modelled.amountOut, address, '0x'] }),
    );
    expect((await fork.balanceOf(pool.token1, address)) - before).toBe(modelled.amountOut);
    const [after] = (await readFpmmStates(fork.publicClient, [pool], await fork.publicClient.getBlockNumber())) as [FpmmState];
    expect([after.reserve0, after.reserve1, after.limit1]).toEqual([modelled.state.reserve0, modelled.state.reserve1, modelled.state.limit1]);
  });
});
