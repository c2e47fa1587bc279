import { type Address, type Hex, parseUnits, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { oneClickFarmAbi, oneClickWithdrawAbi } from '../../src/contracts/abi.ts';
import { encodeGaugeFarmData, encodePoolExtras } from '../../src/contracts/encoding.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type PoolState, constantProductOut, readPool } from '../helpers/uniswap.ts';

const fork = useDevnetFork();
const POOL = 'CELO/cUSD';

function setup() {
  const account = fork.addressBook.accounts[0];
  const pool = fork.addressBook.pools.find((p) => p.name === POOL);
  const gauge = fork.addressBook.contracts.gauges[POOL];
  if (!account || !pool || !gauge) throw new Error('devnet is missing the CELO/cUSD pool, its gauge or a funded account');
  const { uniswapV2: adapter } = fork.addressBook.contracts.adapters;
  const { uniswapV2: v2Farm, gauge: gaugeFarm } = fork.addressBook.contracts.farms;
  if (!adapter || !v2Farm || !gaugeFarm) throw new Error('devnet is missing an adapter or a farm');
  return { me: account.address, wallet: fork.wallet(account.privateKey), pool, gauge: gauge.address, adapter, v2Farm, gaugeFarm };
}

async function approve(token: Address, spender: Address, amount: bigint) {
  const { wallet } = setup();
  await fork.confirm(await wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'approve', args: [spender, amount] }));
}

async function deadline() {
  return (await fork.publicClient.getBlock()).timestamp + 300n;
}

function payload(path: Address[], inputAmount: bigint, expectedOutputAmount: bigint, time: bigint) {
  const { adapter, pool } = setup();
  const hops = path.length - 1;
  return {
    path,
    pairs: Array<Address>(hops).fill(adapter),
    extras: Array<Hex>(hops).fill(encodePoolExtras(pool.address, pool.feePerMille)),
    inputAmount,
    minOutputAmount: expectedOutputAmount,
    expectedOutputAmount,
    to: zeroAddress, // OneClickFarm sets the recipient itself
    deadline: time,
    partner: 0n,
    sig: '0x' as Hex,
  };
}

/** Test oracle: what the farm's add-liquidity step mints and leaves over, from the pool state after the swap. */
function addLiquidityOutcome(pool: PoolState, balance0: bigint, balance1: bigint) {
  let [amount0, amount1] = [balance0, balance1];
  const matching1 = (balance0 * pool.reserve1) / pool.reserve0;
  if (matching1 <= balance1) amount1 = matching1;
  else amount0 = (balance1 * pool.reserve0) / pool.reserve1;
  const a = (amount0 * pool.totalSupply) / pool.reserve0;
  const b = (amount1 * pool.totalSupply) / pool.reserve1;
  return { liquidity: a < b ? a : b, leftover0: balance0 - amount0, leftover1: balance1 - amount1 };
}

/** Deposit CELO into the CELO/cUSD position: half stays CELO, half is swapped to cUSD in the same pool. */
async function expectedDeposit(celoIn: bigint) {
  const pool = await readPool(fork, POOL);
  const celo = fork.token('CELO');
  const celoIs0 = pool.token0.toLowerCase() === celo.toLowerCase();
  const swapped = celoIn / 2n;
  const kept = celoIn - swapped;
  const [rCelo, rUsd] = celoIs0 ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
  const usdOut = constantProductOut(swapped, rCelo, rUsd);
  const after: PoolState = celoIs0
    ? { ...pool, reserve0: rCelo + swapped, reserve1: rUsd - usdOut }
    : { ...pool, reserve0: rUsd - usdOut, reserve1: rCelo + swapped };
  const outcome = celoIs0 ? addLiquidityOutcome(after, kept, usdOut) : addLiquidityOutcome(after, usdOut, kept);
  return {
    routes: [payload([celo], kept, kept, await deadline()), payload([celo, fork.token('cUSD')], swapped, usdOut, await deadline())],
    liquidity: outcome.liquidity,
    leftoverCelo: celoIs0 ? outcome.leftover0 : outcome.leftover1,
    leftoverUsd: celoIs0 ? outcome.leftover1 : outcome.leftover0,
  };
}

async function oneClickDeposit(celoIn: bigint, farm: Address, data: Hex, minExpected: bigint) {
  const { wallet, me } = setup();
  const { routes } = await expectedDeposit(celoIn);
  await approve(fork.token('CELO'), fork.addressBook.contracts.oneClickFarm, celoIn);
  const args = [routes, fork.addressBook.contracts.router, farm, minExpected, me, data] as const;
  return {
    args,
    send: async () =>
      fork.confirm(
        await wallet.writeContract({ address: fork.addressBook.contracts.oneClickFarm, abi: oneClickFarmAbi, functionName: 'oneClickDeposit', args }),
      ),
  };
}

describe('OneClickFarm deposit', () => {
  it('mints exactly the expected LP to `to` and returns the leftovers (Uniswap V2 farm)', async () => {
    const { me, pool, v2Farm } = setup();
    const celoIn = parseUnits('10000', 18);
    const expected = await expectedDeposit(celoIn);
    const [celo, usd] = [fork.token('CELO'), fork.token('cUSD')];
    const before = { lp: await fork.balanceOf(pool.address, me), celo: await fork.balanceOf(celo, me), usd: await fork.balanceOf(usd, me) };

    const { send } = await oneClickDeposit(celoIn, v2Farm, encodePoolExtras(pool.address, pool.feePerMille), expected.liquidity);
    await send();

    expect(expected.liquidity).toBeGreaterThan(0n);
    expect(await fork.balanceOf(pool.address, me)).toBe(before.lp + expected.liquidity);
    expect(await fork.balanceOf(celo, me)).toBe(before.celo - celoIn + expected.leftoverCelo);
    expect(await fork.balanceOf(usd, me)).toBe(before.usd + expected.leftoverUsd);
    expect(await fork.balanceOf(celo, v2Farm)).toBe(0n);
    expect(await fork.balanceOf(usd, v2Farm)).toBe(0n);
  });

  it('reverts when fewer than minExpected LP tokens would be minted', async () => {
    const { pool, v2Farm, me } = setup();
    const celoIn = parseUnits('10000', 18);
    const expected = await expectedDeposit(celoIn);
    const { args } = await oneClickDeposit(celoIn, v2Farm, encodePoolExtras(pool.address, pool.feePerMille), expected.liquidity + 1n);
    await expect(
      fork.publicClient.simulateContract({
        account: me,
        address: fork.addressBook.contracts.oneClickFarm,
        abi: oneClickFarmAbi,
        functionName: 'oneClickDeposit',
        args,
      }),
    ).rejects.toThrow('Farm: insufficient liquidity minted');
  });

  it('stakes the new LP in the gauge and gives the gauge token to `to` (gauge farm)', async () => {
    const { me, pool, gauge, gaugeFarm } = setup();
    const celoIn = parseUnits('4000', 18);
    const expected = await expectedDeposit(celoIn);
    const [gaugeBefore, lpBefore, stakedBefore] = [
      await fork.balanceOf(gauge, me),
      await fork.balanceOf(pool.address, me),
      await fork.balanceOf(pool.address, gauge),
    ];
    const { send } = await oneClickDeposit(celoIn, gaugeFarm, encodeGaugeFarmData(pool.address, gauge), expected.liquidity);
    await send();
    expect(await fork.balanceOf(gauge, me)).toBe(gaugeBefore + expected.liquidity);
    expect(await fork.balanceOf(pool.address, me)).toBe(lpBefore);
    expect(await fork.balanceOf(pool.address, gauge)).toBe(stakedBefore + expected.liquidity);
  });
});

describe('OneClickFarm one-transaction withdraw', () => {
  /** Unwinds `lp` of CELO/cUSD and swaps the CELO half to cUSD in the same pool. */
  async function expectedWithdrawToUsd(lp: bigint) {
    const pool = await readPool(fork, POOL);
    const celo = fork.token('CELO');
    const celoIs0 = pool.token0.toLowerCase() === celo.toLowerCase();
    const [rCelo, rUsd] = celoIs0 ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
    const celoOut = (lp * rCelo) / pool.totalSupply;
    const usdOut = (lp * rUsd) / pool.totalSupply;
    const swapped = constantProductOut(celoOut, rCelo - celoOut, rUsd - usdOut);
    const time = await deadline();
    return {
      amountOut: usdOut + swapped,
      routes: [payload([fork.token('cUSD')], usdOut, usdOut, time), payload([celo, fork.token('cUSD')], celoOut, swapped, time)],
    };
  }

  async function depositFirst(farm: 'v2' | 'gauge') {
    const { pool, gauge, v2Farm, gaugeFarm } = setup();
    const celoIn = parseUnits('20000', 18);
    const data = farm === 'v2' ? encodePoolExtras(pool.address, pool.feePerMille) : encodeGaugeFarmData(pool.address, gauge);
    const { send } = await oneClickDeposit(celoIn, farm === 'v2' ? v2Farm : gaugeFarm, data, 0n);
    await send();
  }

  function withdrawArgs(position: Address, amount: bigint, farm: Address, farmData: Hex, routes: ReturnType<typeof payload>[], minOut: bigint) {
    const { me } = setup();
    return [position, amount, farm, farmData, routes, fork.addressBook.contracts.router, fork.token('cUSD'), minOut, me] as const;
  }

  it('pays exactly the unwound and swapped amount of the target token, in one transaction (LP token)', async () => {
    const { me, wallet, pool, v2Farm } = setup();
    await depositFirst('v2');
    const lp = await fork.balanceOf(pool.address, me);
    const { amountOut, routes } = await expectedWithdrawToUsd(lp);
    const usd = fork.token('cUSD');
    const usdBefore = await fork.balanceOf(usd, me);
    await approve(pool.address, fork.addressBook.contracts.oneClickFarm, lp);
    const args = withdrawArgs(pool.address, lp, v2Farm, encodePoolExtras(pool.address, pool.feePerMille), routes, amountOut);
    await fork.confirm(
      await wallet.writeContract({ address: fork.addressBook.contracts.oneClickFarm, abi: oneClickWithdrawAbi, functionName: 'oneClickWithdraw', args }),
    );
    expect(await fork.balanceOf(pool.address, me)).toBe(0n);
    expect(await fork.balanceOf(usd, me)).toBe(usdBefore + amountOut);
    expect(await fork.balanceOf(usd, fork.addressBook.contracts.oneClickFarm)).toBe(0n);
    expect(await fork.balanceOf(fork.token('CELO'), fork.addressBook.contracts.oneClickFarm)).toBe(0n);
  });

  it('unstakes a gauge token and pays the target token', async () => {
    const { me, wallet, pool, gauge, gaugeFarm } = setup();
    await depositFirst('gauge');
    const staked = await fork.balanceOf(gauge, me);
    const { amountOut, routes } = await expectedWithdrawToUsd(staked);
    const usd = fork.token('cUSD');
    const usdBefore = await fork.balanceOf(usd, me);
    await approve(gauge, fork.addressBook.contracts.oneClickFarm, staked);
    const args = withdrawArgs(gauge, staked, gaugeFarm, encodeGaugeFarmData(pool.address, gauge), routes, amountOut);
    await fork.confirm(
      await wallet.writeContract({ address: fork.addressBook.contracts.oneClickFarm, abi: oneClickWithdrawAbi, functionName: 'oneClickWithdraw', args }),
    );
    expect(await fork.balanceOf(gauge, me)).toBe(0n);
    expect(await fork.balanceOf(usd, me)).toBe(usdBefore + amountOut);
  });

  it('reverts when the target token paid would be below minOut', async () => {
    const { me, pool, v2Farm } = setup();
    await depositFirst('v2');
    const lp = await fork.balanceOf(pool.address, me);
    const { amountOut, routes } = await expectedWithdrawToUsd(lp);
    await approve(pool.address, fork.addressBook.contracts.oneClickFarm, lp);
    const args = withdrawArgs(pool.address, lp, v2Farm, encodePoolExtras(pool.address, pool.feePerMille), routes, amountOut + 1n);
    await expect(
      fork.publicClient.simulateContract({
        account: me,
        address: fork.addressBook.contracts.oneClickFarm,
        abi: oneClickWithdrawAbi,
        functionName: 'oneClickWithdraw',
        args,
      }),
    ).rejects.toThrow('OneClickFarm: Insufficient output amount!');
    expect(await fork.balanceOf(pool.address, me)).toBe(lp);
  });
});
