import { parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork();
const DAY = 24n * 3600n;

/** Two accounts anvil funds with native coin only: no tokens and, unlike the devnet's users, no stake yet. */
function setup() {
  const [alice, bob] = [devnetAccount(8), devnetAccount(9)];
  const gauge = fork.addressBook.contracts.gauges['CELO/cUSD'];
  if (!gauge) throw new Error('devnet lacks the gauge');
  return { alice, bob, gauge: gauge.address, lp: gauge.pool, reward: fork.token(gauge.rewardToken) };
}

const readGauge = <const F extends 'rewardRate' | 'totalSupply' | 'periodFinish'>(functionName: F) =>
  fork.publicClient.readContract({ address: setup().gauge, abi: artifacts.StakingGauge.abi, functionName });

/** Gives `account` LP tokens of the gauge's pool by minting both underlyings into the pair. */
async function giveLp(privateKey: `0x${string}`, address: `0x${string}`) {
  const pool = fork.addressBook.pools.find((p) => p.name === 'CELO/cUSD');
  if (!pool) throw new Error('no CELO/cUSD pool');
  const wallet = fork.wallet(privateKey);
  for (const symbol of [pool.token0, pool.token1]) {
    await fork.confirm(
      await wallet.writeContract({
        address: fork.token(symbol),
        abi: artifacts.TestToken.abi,
        functionName: 'mint',
        args: [pool.address, parseUnits('1000', 18)],
      }),
    );
  }
  await fork.confirm(await wallet.writeContract({ address: pool.address, abi: artifacts.UniswapV2Pair.abi, functionName: 'mint', args: [address] }));
  return fork.balanceOf(pool.address, address);
}

describe('staking gauge', () => {
  it('is already streaming rewards on the seeded devnet, to the deployer and every funded account', async () => {
    const now = (await fork.publicClient.getBlock()).timestamp;
    expect(await readGauge('rewardRate')).toBeGreaterThan(0n);
    expect(await readGauge('periodFinish')).toBeGreaterThan(now + 300n * DAY);
    expect(await readGauge('totalSupply')).toBeGreaterThan(0n);
    for (const account of fork.addressBook.accounts) expect(await fork.balanceOf(setup().gauge, account.address)).toBeGreaterThan(0n);
  });

  it('accrues rewards with time and pays them on claim, to the wei', async () => {
    const { alice, gauge, lp, reward } = setup();
    const wallet = fork.wallet(alice.privateKey);
    const staked = await giveLp(alice.privateKey, alice.address);
    await fork.confirm(await wallet.writeContract({ address: lp, abi: artifacts.UniswapV2Pair.abi, functionName: 'approve', args: [gauge, staked] }));
    const stake = await fork.confirm(
      await wallet.writeContract({ address: gauge, abi: artifacts.StakingGauge.abi, functionName: 'deposit', args: [staked, alice.address] }),
    );
    expect(await fork.balanceOf(gauge, alice.address)).toBe(staked);

    const [rate, supply] = [await readGauge('rewardRate'), await readGauge('totalSupply')];
    await fork.testClient.increaseTime({ seconds: Number(DAY) });
    await fork.testClient.mine({ blocks: 1 });
    expect(
      await fork.publicClient.readContract({ address: gauge, abi: artifacts.StakingGauge.abi, functionName: 'earned', args: [alice.address] }),
    ).toBeGreaterThan(0n);

    const before = await fork.balanceOf(reward, alice.address);
    const claim = await fork.confirm(await wallet.writeContract({ address: gauge, abi: artifacts.StakingGauge.abi, functionName: 'claim' }));
    const [t0, t1] = [
      (await fork.publicClient.getBlock({ blockNumber: stake.blockNumber })).timestamp,
      (await fork.publicClient.getBlock({ blockNumber: claim.blockNumber })).timestamp,
    ];
    expect(t1 - t0).toBeGreaterThanOrEqual(DAY);
    // Synthetix-style accounting: the reward per staked token grew by elapsed·rate/supply since Alice staked.
    const expected = (staked * (((t1 - t0) * rate * 10n ** 18n) / supply)) / 10n ** 18n;
    expect(await fork.balanceOf(reward, alice.address)).toBe(before + expected);
  });

  it('keeps rewards earned before a transfer of the gauge token with the sender', async () => {
    const { alice, bob, gauge, lp } = setup();
    const wallet = fork.wallet(alice.privateKey);
    const staked = await giveLp(alice.privateKey, alice.address);
    await fork.confirm(await wallet.writeContract({ address: lp, abi: artifacts.UniswapV2Pair.abi, functionName: 'approve', args: [gauge, staked] }));
    await fork.confirm(await wallet.writeContract({ address: gauge, abi: artifacts.StakingGauge.abi, functionName: 'deposit', args: [staked, alice.address] }));
    await fork.testClient.increaseTime({ seconds: Number(DAY) });
    await fork.confirm(await wallet.writeContract({ address: gauge, abi: artifacts.StakingGauge.abi, functionName: 'transfer', args: [bob.address, staked] }));
    const earned = (who: `0x${string}`) =>
      fork.publicClient.readContract({ address: gauge, abi: artifacts.StakingGauge.abi, functionName: 'earned', args: [who] });
    const aliceEarned = await earned(alice.address);
    expect(aliceEarned).toBeGreaterThan(0n);
    expect(await earned(bob.address)).toBe(0n);
    await fork.testClient.increaseTime({ seconds: Number(DAY) });
    await fork.testClient.mine({ blocks: 1 });
    expect(await earned(alice.address)).toBe(aliceEarned);
    expect(await earned(bob.address)).toBeGreaterThan(0n);
  });
});
