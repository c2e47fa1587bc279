import { createPublicClient, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi, sortedOraclesAbi } from '../../src/contracts/abi.ts';
import { aggregatorV3Abi } from '../../src/price/feed.ts';
import { encodePoolExtras } from '../../src/contracts/encoding.ts';
import { addressBookSchema, asDeploymentBook } from '../../src/config/address-book.ts';
import { firstStdoutLine, runCli, spawnCli } from '../helpers/cli.ts';

describe('routekeeper devnet --json', () => {
  it('prints one line of JSON once the world and its routing service are up, then stops both cleanly on SIGTERM', async () => {
    // With its dollar stable off its peg: the oracle reports cUSD at $0.95, CELO at its world price of $0.50.
    const child = spawnCli(['devnet', '--json', '--price', 'cUSD=0.95']);
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

    const book = asDeploymentBook(addressBookSchema.parse(JSON.parse(await firstStdoutLine(child))), 'the printed address book');
    expect(book.chainId).toBe(42220);
    expect(Object.keys(book.tokens).sort()).toEqual(['CELO', 'RWD', 'USDC', 'WETH', 'cEUR', 'cUSD']);
    expect(book.tokens.USDC?.decimals).toBe(6);
    expect(book.pools.length).toBeGreaterThanOrEqual(6);
    expect(book.accounts.length).toBeGreaterThan(0);

    const client = createPublicClient({ transport: http(book.rpcUrl) });
    expect(await client.getChainId()).toBe(42220);
    // The router answers on the advertised node: the world really is deployed there.
    const [first] = book.pools;
    if (!first) throw new Error('no pool');
    const quoted = await client.readContract({
      address: book.contracts.router,
      abi: routerAbi,
      functionName: 'getOutputAmount',
      args: [
        [book.tokens[first.token0]!.address, book.tokens[first.token1]!.address],
        [book.contracts.adapters.uniswapV2!],
        [encodePoolExtras(first.address, first.feePerMille)],
        10n ** 18n,
      ],
    });
    expect(quoted).toBeGreaterThan(0n);
    // The feeds say what was asked; SortedOracles' CELO rate feed (id: cUSD's address) is USD per CELO, unmoved.
    const feedOf = (symbol: string) => book.priceSources?.[symbol]?.find((source) => source.kind === 'feed')?.address as `0x${string}`;
    const answer = async (symbol: string) => (await client.readContract({ address: feedOf(symbol), abi: aggregatorV3Abi, functionName: 'latestRoundData' }))[1];
    expect([await answer('cUSD'), await answer('CELO')]).toEqual([95_000_000n, 50_000_000n]);
    const oracles = book.priceSources?.CELO?.find((source) => source.kind === 'sorted-oracles');
    if (oracles?.kind !== 'sorted-oracles') throw new Error('no SortedOracles source for CELO');
    const [rate] = await client.readContract({
      address: oracles.address,
      abi: sortedOraclesAbi,
      functionName: 'medianRateWithoutEquivalentMapping',
      args: [oracles.rateFeedId],
    });
    expect(rate).toBe(5n * 10n ** 23n);
    // The routing service came up with it.
    const serviceUrl = book.routingServiceUrl;
    if (!serviceUrl) throw new Error('the address book has no routingServiceUrl');
    expect(await (await fetch(serviceUrl)).json()).toEqual({ alive: true, state: 'ready' });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    // anvil and the service are gone with it: nothing answers on their ports any more.
    await expect(fetch(book.rpcUrl, { method: 'POST', body: '{}' })).rejects.toThrow();
    await expect(fetch(serviceUrl)).rejects.toThrow();
  });

  it('refuses an unknown option with exit code 2 and names it', async () => {
    const { code, stderr } = await runCli(['devnet', '--colour']);
    expect(code).toBe(2);
    expect(stderr).toContain("'--colour'");
    expect(stderr).not.toContain('    at ');
  });

  it('refuses a --price that is not SYMBOL=USD, or of a token without a feed, naming it', async () => {
    const malformed = await runCli(['devnet', '--price', 'cUSD:0.95']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr.trim()).toBe("routekeeper: --price must be SYMBOL=USD with a positive price, such as cUSD=0.95, got 'cUSD:0.95'");
    const unfed = await runCli(['devnet', '--price', 'RWD=1']);
    expect(unfed.code).toBe(2);
    expect(unfed.stderr.trim()).toBe('routekeeper: --price: RWD is not a devnet token with an oracle feed (those are CELO, cUSD, cEUR, USDC, WETH)');
  });

  it('refuses a port that is not a number', async () => {
    const { code, stderr } = await runCli(['devnet', '--port', 'eighty']);
    expect(code).toBe(2);
    expect(stderr).toContain("--port must be a whole number from 0 to 65535, got 'eighty'");
  });

  it('prints help with exit code 0', async () => {
    const { code, stdout } = await runCli(['devnet', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: routekeeper devnet');
  });
});
