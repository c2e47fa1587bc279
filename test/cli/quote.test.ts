import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseUnits } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRoutingClient } from '../../src/routing-client/client.ts';
import { runCli } from '../helpers/cli.ts';
import { runInProcess } from '../helpers/in-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ routing: true });
// Empty values count as unset: the address book then supplies the RPC and service URLs.
const cleanEnv = { RPC_URL: '', ROUTING_SERVICE_URL: '', ROUTING_API_KEY: '' };
let bookFile = '';
beforeAll(() => {
  bookFile = join(mkdtempSync(join(tmpdir(), 'routekeeper-quote-')), 'address-book.json');
  writeFileSync(bookFile, JSON.stringify(fork.addressBook));
});

const quote = (...args: string[]) => runCli(['quote', '--address-book', bookFile, ...args], cleanEnv);

describe('routekeeper quote', () => {
  it('--json prints the route in raw and human units, equal to the service quote', async () => {
    const { code, stdout, stderr } = await quote('--token-in', 'USDC', '--token-out', 'celo', '--amount', '1234.5', '--slippage-bps', '40', '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(stdout);
    const direct = await createRoutingClient({ baseUrl: fork.addressBook.routingServiceUrl }).getSwapRoute({
      tokenIn: fork.token('USDC'),
      tokenOut: fork.token('CELO'),
      amountIn: parseUnits('1234.5', 6),
      slippageBps: 40,
    });
    expect(printed.amountIn).toEqual({ raw: '1234500000', human: '1,234.5' });
    expect(printed.expectedOut.raw).toBe(direct.expectedOut.toString());
    expect(printed.minimumExpectedOut.raw).toBe(((direct.expectedOut * 9960n) / 10000n).toString());
    expect(printed.tokenOut).toEqual({ address: fork.token('CELO'), symbol: 'CELO', decimals: 18 });
    expect(printed.path.map((token: { symbol: string }) => token.symbol)).toEqual(['USDC', 'cUSD', 'CELO']);
  });

  it('prints a readable route by default, and takes raw amounts with --raw', async () => {
    const { code, stdout } = await quote('--token-in', 'cEUR', '--token-out', fork.token('WETH'), '--amount', '1000000000000000000000', '--raw');
    expect(code).toBe(0);
    expect(stdout).toContain('sell      1,000 cEUR  (raw 1000000000000000000000)');
    expect(stdout).toContain('route     cEUR → cUSD → CELO → WETH  (3 hops)');
  });

  const refusals: [string, string[], Record<string, string>, number, RegExp][] = [
    ['an unknown symbol', ['--token-in', 'FOO', '--token-out', 'CELO', '--amount', '1'], {}, 2, /--token-in: unknown token 'FOO'/],
    ['too many decimals', ['--token-in', 'USDC', '--token-out', 'CELO', '--amount', '1.0000001'], {}, 2, /has 7 decimals but USDC has only 6/],
    ['a zero amount', ['--token-in', 'USDC', '--token-out', 'CELO', '--amount', '0'], {}, 2, /more than zero/],
    ['a missing amount', ['--token-in', 'USDC', '--token-out', 'CELO'], {}, 2, /--amount is required/],
    ['a bad RPC_URL', ['--token-in', 'USDC', '--token-out', 'CELO', '--amount', '1'], { RPC_URL: 'localhost:8545' }, 2, /RPC_URL must be an http\(s\) URL/],
    ['no route', ['--token-in', 'CELO', '--token-out', 'cUSD', '--amount', '1', '--raw'], {}, 1, /no route: No routes found/],
  ];
  for (const [what, args, env, exitCode, message] of refusals) {
    it(`refuses ${what} with exit ${exitCode}, a message and no stack trace`, async () => {
      // In the test's process; test/cli/errors.test.ts shows such a line reaches a terminal from a real process.
      const { code, stderr } = await runInProcess(['quote', '--address-book', bookFile, ...args], { ...cleanEnv, ...env });
      expect(code).toBe(exitCode);
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/^\s+at /m);
    });
  }
});
