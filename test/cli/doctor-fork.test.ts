/**
 * `routekeeper doctor --fork` against the devnet as the forked chain: on an anvil fork of it, one swap through each
 * venue kind the chain data routes (Uniswap V2, Uniswap V3, Mento v2, Mento v3), from the strategy file's wallet,
 * each paid exactly what routekeeper's model says; an adapter that quotes honestly but keeps a wei of each swap's
 * output is reported on its venue's line, with exit 1. The forked chain itself is untouched.
 */
import { type Address, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { bookFiles, runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ mento: true });

function doctorWith(book: DeploymentAddressBook) {
  const { doctor, env } = bookFiles(book, fork.addressBook.accounts[0]?.privateKey as string, 'doctor-fork');
  return runCli([...doctor, '--fork'], env);
}

const forkLines = (stdout: string) => stdout.split('\n').filter((line) => line.includes('fork: '));

describe('routekeeper doctor --fork', () => {
  it('swaps through each venue kind on a fork of the devnet, each paid exactly what the model says; the chain itself untouched', async () => {
    const me = fork.addressBook.accounts[0]?.address as Address;
    const nonce = await fork.publicClient.getTransactionCount({ address: me });
    const blockNumber = await fork.publicClient.getBlockNumber();
    const { code, stdout, stderr } = await doctorWith(fork.addressBook);
    const lines = forkLines(stdout);
    expect(
      lines.map((line) => line.slice(0, 4)),
      stdout + stderr,
    ).toEqual(['ok  ', 'ok  ', 'ok  ', 'ok  ']);
    for (const name of ['Uniswap V2', 'Uniswap V3', 'Mento', 'Mento v3'])
      expect(lines.some((line) => line.includes(`fork: ${name} (factory`) && line.includes('exactly what the model says'))).toBe(true);
    expect(code, stdout + stderr).toBe(0);
    expect(await fork.publicClient.getTransactionCount({ address: me })).toBe(nonce);
    expect(await fork.publicClient.getBlockNumber()).toBe(blockNumber);
  });

  it('an adapter that keeps a wei of the output: its venue fails, by how much, exit 1', async () => {
    const { wallet } = trader(fork);
    const hash = await wallet.deployContract({ abi: artifacts.SkimmingAdapter.abi, bytecode: artifacts.SkimmingAdapter.bytecode, args: [0n, 1n] });
    const skimmer = getAddress((await fork.confirm(hash)).contractAddress as Address);
    const book = structuredClone(fork.addressBook);
    book.contracts.adapters.uniswapV2 = skimmer;
    const { code, stdout } = await doctorWith(book);
    const v2 = forkLines(stdout).find((line) => line.includes('fork: Uniswap V2 (factory'));
    expect(v2).toMatch(
      new RegExp(`^FAIL fork: Uniswap V2 \\(factory 0x[0-9a-fA-F]{40}, adapter ${skimmer}\\): swapped .* paid \\d+, 1 less than the model's \\d+`),
    );
    expect(code).toBe(1);
  });
});
