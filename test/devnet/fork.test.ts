import { createPublicClient, erc20Abi, http, parseUnits } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork();

describe('a fork of the devnet', () => {
  it('sees the base state, and its writes do not touch the base', async () => {
    const base = inject('devnet');
    expect(fork.addressBook.rpcUrl).not.toBe(base.rpcUrl);
    const baseClient = createPublicClient({ transport: http(base.rpcUrl) });
    const [alice, bob] = fork.addressBook.accounts;
    if (!alice || !bob) throw new Error('need two funded accounts');
    const cusd = fork.token('cUSD');
    const baseBalance = () => baseClient.readContract({ address: cusd, abi: erc20Abi, functionName: 'balanceOf', args: [alice.address] });

    const before = await baseBalance();
    expect(await fork.balanceOf(cusd, alice.address)).toBe(before);
    expect(await fork.publicClient.getChainId()).toBe(base.chainId);

    const amount = parseUnits('123.45', 18);
    await fork.confirm(
      await fork.wallet(alice.privateKey).writeContract({ address: cusd, abi: artifacts.TestToken.abi, functionName: 'transfer', args: [bob.address, amount] }),
    );
    expect(await fork.balanceOf(cusd, alice.address)).toBe(before - amount);
    expect(await baseBalance()).toBe(before);
  });
});
