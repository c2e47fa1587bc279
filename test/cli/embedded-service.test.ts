/**
 * With no routing service named (no ROUTING_SERVICE_URL, none in the address book), `run` on a chain routes through
 * a service of its own in its process, says so in its banner, and trades; `doctor` says the hosted service does not
 * answer and checks the adapter and the router's fees.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { type Address, parseAbiItem, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { daemonHome, dcaYaml, spawnDaemon } from '../helpers/daemon-process.ts';

const fork = useDevnetFork();
const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);

describe('the embedded routing service', () => {
  it('run without ROUTING_SERVICE_URL trades through a service in its own process, and its banner says so', async () => {
    const home = daemonHome(fork, 'embedded');
    expect(fork.addressBook.routingServiceUrl).toBeUndefined();
    const me = fork.addressBook.accounts[0]?.address as Address;
    const fromBlock = await fork.publicClient.getBlockNumber();
    const [usdBefore, celoBefore] = [await fork.balanceOf(fork.token('cUSD'), me), await fork.balanceOf(fork.token('CELO'), me)];
    const daemon = spawnDaemon(home, home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '4', every: '1h' }])), {
      ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
    });
    await daemon.waitFor(() => daemon.lines.some((line) => line.strategy === 'dca' && line.status === 'confirmed'), 'the DCA confirmed');
    const banner = daemon.lines.map((line) => String(line.msg)).join('\n');
    expect(banner).toMatch(/routing service http:\/\/127\.0\.0\.1:\d+ \(embedded: run in this process over the chain node;/);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    // One swap through the devnet's router, paying the wallet exactly what its event says.
    const swaps = await fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: me }, fromBlock });
    expect(swaps).toHaveLength(1);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(usdBefore - parseUnits('4', 18));
    expect(await fork.balanceOf(fork.token('CELO'), me)).toBe(celoBefore + (swaps[0]?.args.outputAmount as bigint));
  });

  it('doctor: the hosted service does not answer (a warning), the service in use does, the adapter prices a real pool exactly', async () => {
    const home = daemonHome(fork, 'doctor-routing');
    // A host that takes the connection and hangs up without a word: a hosted service that is gone.
    const silent = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const hosted = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const config = home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '4', every: '1h' }]));
      const { code, stdout } = await runCli(['doctor', '--config', config, '--address-book', home.book, '--hosted-service', hosted], {
        RPC_URL: '',
        ROUTING_SERVICE_URL: '',
        ROUTEKEEPER_DATA_DIR: home.dataDir,
        ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
      });
      expect(code, stdout).toBe(0);
      expect(stdout).toMatch(new RegExp(`warn hosted routing service ${hosted} does not answer \\(fetch failed: [^)]+\\); routekeeper quotes with its own`));
      expect(stdout).toMatch(/ok {3}routing service http:\/\/127\.0\.0\.1:\d+ \(embedded\): ready/);
      const adapter = fork.addressBook.contracts.adapters.uniswapV2 as Address;
      expect(stdout).toMatch(
        new RegExp(
          `ok {3}adapter ${adapter} \\(Uniswap V2, fee byte in per-mille\\) for uniswap-v2: quotes 4 pools \\(0\\.3%\\) as their state says, both ways at [1-9]\\d* sizes`,
        ),
      );
      expect(stdout).toContain(`ok   router ${fork.addressBook.contracts.router}: fee denominator 1e10`);
      expect(stdout).toContain(`ok   router ${fork.addressBook.contracts.router}: getPartnerFee(0) = 0`);
    } finally {
      silent.close();
    }
  });
});
