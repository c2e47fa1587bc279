import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createPublicClient, erc20Abi, http, parseUnits } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { forkChain } from '../../src/devnet/devnet.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';

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

  it("a node URL that may carry a key reaches anvil through this process: never on a command line, nor in anvil's environment", async () => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    const key = 'FORKKEY0123456789abcdef';
    process.env.ROUTEKEEPER_TEST_SECRET = 'ENVSECRET0123456789abcdef';
    const before = new Set(anvilProcesses());
    const node = await forkChain(`${proxy.url}/v3/${key}`);
    try {
      expect(await createPublicClient({ transport: http(node.rpcUrl) }).getChainId()).toBe(fork.addressBook.chainId);
      expect(proxy.requests()).toBeGreaterThan(0);
      // Every process's command line, anvil's among them (it listens on the fork's port).
      const commandLines = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
      expect(commandLines).not.toContain(key);
      const anvils = anvilProcesses().filter((pid) => !before.has(pid));
      expect(anvils).toHaveLength(1);
      const environment = safeRead(`/proc/${anvils[0]}/environ`).split('\0');
      expect(environment.some((entry) => entry.includes('ENVSECRET'))).toBe(false);
      expect(
        environment.map((entry) => entry.split('=')[0]).every((name) => ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'].includes(name as string) || name === ''),
      ).toBe(true);
    } finally {
      await node.stop();
      await proxy.close();
      delete process.env.ROUTEKEEPER_TEST_SECRET;
    }
  });
});

/** A /proc file's text, or nothing when the process is gone or not ours to read. */
function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The anvil processes this test process started, by pid. */
function anvilProcesses(): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter(
      (pid) =>
        safeRead(`/proc/${pid}/cmdline`).split('\0')[0]?.endsWith('/anvil') &&
        safeRead(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1] === String(process.pid),
    );
}
