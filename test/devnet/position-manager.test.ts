/**
 * The devnet's Uniswap position manager is the published build over the devnet's factory, and a position behaves as
 * on a real chain: opened with exactly the liquidity and amounts our arithmetic says, it earns fees from swap volume,
 * its uncollected fees read as `collect` pays them, and compounding them (the surplus token sold to the range's ratio,
 * the rest added) grows its liquidity by exactly what the amounts buy.
 */
import { type Address, maxUint128, maxUint256 } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { positionManagerAbi } from '../../src/contracts/abi.ts';
import { amountsForLiquidity, liquidityForAmounts, swapToRangeRatio } from '../../src/pools/uniswap-v3/liquidity.ts';
import { inRange } from '../../src/pools/uniswap-v3/position.ts';
import { knownContractsFor } from '../../src/config/chain-data.ts';
import { positionManagerFindings } from '../../src/doctor/chain.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { openPosition, positionManagerOf, tradeVolume, cusdCeloPool, readPosition, swapInPool } from '../../support/positions.ts';
import { trader } from '../helpers/routing.ts';

const e18 = 10n ** 18n;

describe("the devnet's Uniswap V3 position manager", () => {
  const fork = useDevnetFork({ uniswapV3: true });
  const pool = () => cusdCeloPool(fork);
  const read = (tokenId: bigint) => readPosition(fork, tokenId);
  const balances = (owner: Address) => Promise.all([fork.balanceOf(fork.token(pool().token0), owner), fork.balanceOf(fork.token(pool().token1), owner)]);

  it("is Uniswap's, over the devnet's factory and its wrapped coin", async () => {
    const manager = positionManagerOf(fork).address;
    const at = { address: manager, abi: positionManagerAbi } as const;
    expect(await fork.publicClient.readContract({ ...at, functionName: 'factory' })).toBe(fork.addressBook.contracts.uniswapV3Factory);
    expect(await fork.publicClient.readContract({ ...at, functionName: 'WETH9' })).toBe(fork.token('WETH'));
  });

  it('is confirmed by doctor against the chain data: its factory() the one named beside it, and a wrong pairing failed', async () => {
    const { address, factory, poolInitCodeHash } = positionManagerOf(fork);
    const known = knownContractsFor(fork.addressBook.chainId, fork.addressBook);
    // Each manager carries its factory's pool init code hash, from the chain data's factory (its pools' addresses).
    expect(known.positionManagers).toEqual([{ address, factory, poolInitCodeHash }]);
    expect(await positionManagerFindings(fork.publicClient, known)).toEqual([
      { level: 'ok', message: `position manager ${address}: its factory() is the chain data's ${factory}` },
    ]);
    const v2Factory = fork.addressBook.contracts.uniswapV2Factory as Address;
    const wrong = {
      ...known,
      positionManagers: [
        { address, factory: v2Factory },
        { address: v2Factory, factory },
      ],
    };
    expect(await positionManagerFindings(fork.publicClient, wrong)).toEqual([
      { level: 'fail', message: `position manager ${address}: its factory() is ${factory}, not the chain data's ${v2Factory}` },
      { level: 'fail', message: expect.stringMatching(new RegExp(`^position manager ${v2Factory}: cannot be read \\(`)) },
    ]);
  });

  it('opens a position with the liquidity and amounts the arithmetic says, earns fees from volume, and pays them exactly', async () => {
    const owner = trader(fork, 0).address;
    const sqrtPriceX96 = await poolPrice();
    const before = await balances(owner);
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const range = { tickLower: opened.tickLower, tickUpper: opened.tickUpper };
    const desired = { amount0: 10_000n * e18, amount1: 10_000n * e18 };
    expect(opened.liquidity).toBe(liquidityForAmounts(sqrtPriceX96, range, desired));
    const pulled = amountsForLiquidity(sqrtPriceX96, range, opened.liquidity, 'up');
    const after = await balances(owner);
    expect([before[0] - after[0], before[1] - after[1]]).toEqual([pulled.amount0, pulled.amount1]);

    const fresh = await read(opened.tokenId);
    expect(fresh).toMatchObject({ owner, liquidity: opened.liquidity, pool: pool().address, uncollected: { amount0: 0n, amount1: 0n }, ...range });
    expect(inRange(fresh)).toBe(true);

    const volume = await tradeVolume(fork, pool(), { account: 1, size: 2_000n * e18, rounds: 4 });
    const earned = (await read(opened.tokenId)).uncollected;
    // Fees on both sides, never more than the pool's 0.3% of what crossed it.
    expect(earned.amount0 > 0n && earned.amount1 > 0n).toBe(true);
    expect(earned.amount0 * 1_000n <= volume.volume0 * 3n && earned.amount1 * 1_000n <= volume.volume1 * 3n).toBe(true);

    const { wallet } = trader(fork, 0);
    const beforeCollect = await balances(owner);
    await fork.confirm(
      await wallet.writeContract({
        address: positionManagerOf(fork).address,
        abi: positionManagerAbi,
        functionName: 'collect',
        args: [{ tokenId: opened.tokenId, recipient: owner, amount0Max: maxUint128, amount1Max: maxUint128 }],
      }),
    );
    const afterCollect = await balances(owner);
    expect([afterCollect[0] - beforeCollect[0], afterCollect[1] - beforeCollect[1]]).toEqual([earned.amount0, earned.amount1]);
    expect((await read(opened.tokenId)).uncollected).toEqual({ amount0: 0n, amount1: 0n });
  });

  it('compounds collected fees: the surplus sold to the range ratio, the rest added, liquidity grown by what they buy', async () => {
    const { address: owner, wallet } = trader(fork, 0);
    const manager = positionManagerOf(fork).address;
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    await tradeVolume(fork, pool(), { account: 1, size: 2_000n * e18, rounds: 4 });
    const position = await read(opened.tokenId);
    const fees = position.uncollected;
    await fork.confirm(
      await wallet.writeContract({
        address: manager,
        abi: positionManagerAbi,
        functionName: 'collect',
        args: [{ tokenId: opened.tokenId, recipient: owner, amount0Max: maxUint128, amount1Max: maxUint128 }],
      }),
    );
    const swap = swapToRangeRatio(position.sqrtPriceX96, position, fees);
    if (!swap) throw new Error('fees of both tokens in a range around the price need a swap to its ratio, however small');
    const got = await swapInPool(fork, pool(), { account: 0, sell: swap.sell, amount: swap.amount });
    const toAdd =
      swap.sell === 'token0'
        ? { amount0: fees.amount0 - swap.amount, amount1: fees.amount1 + got }
        : { amount0: fees.amount0 + got, amount1: fees.amount1 - swap.amount };
    const priced = await read(opened.tokenId);
    const expected = liquidityForAmounts(priced.sqrtPriceX96, priced, toAdd);
    const before = await balances(owner);
    await fork.confirm(
      await wallet.writeContract({
        address: manager,
        abi: positionManagerAbi,
        functionName: 'increaseLiquidity',
        args: [{ tokenId: opened.tokenId, amount0Desired: toAdd.amount0, amount1Desired: toAdd.amount1, amount0Min: 0n, amount1Min: 0n, deadline: maxUint256 }],
      }),
    );
    const after = await balances(owner);
    expect((await read(opened.tokenId)).liquidity).toBe(position.liquidity + expected);
    const spent = amountsForLiquidity(priced.sqrtPriceX96, priced, expected, 'up');
    expect([before[0] - after[0], before[1] - after[1]]).toEqual([spent.amount0, spent.amount1]);
    // What did not go in: the swap's fee and impact, a small part of the fees.
    const left = { amount0: toAdd.amount0 - spent.amount0, amount1: toAdd.amount1 - spent.amount1 };
    expect(left.amount0 * 100n <= fees.amount0 + 1n && left.amount1 * 100n <= fees.amount1 + 1n).toBe(true);
  });

  async function poolPrice(): Promise<bigint> {
    const [sqrtPriceX96] = await fork.publicClient.readContract({ address: pool().address, abi: artifacts.UniswapV3Pool.abi, functionName: 'slot0' });
    return sqrtPriceX96;
  }
});
