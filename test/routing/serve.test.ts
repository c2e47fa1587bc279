/**
 * `routekeeper serve` as a process over the devnet, given an address book that lists no pool: it finds the pools
 * from the factory, follows each block from its logs (no pool read again), routes through a pool created after it
 * started, prices a pool moved in the last block at its new state, and a restart reads only what it missed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, erc20Abi, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi, routerFeeAbi } from '../../src/contracts/abi.ts';
import { encodePoolExtras } from '../../src/contracts/encoding.ts';
import { swapPayloadFrom } from '../../src/contracts/payload.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { swapRouteSchema } from '../../src/routing-api/schemas.ts';
import { firstStdoutLine, spawnCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { useServeProcesses } from '../helpers/serve-process.ts';
import { deployGraph, generateGraph } from '../../support/pool-graph.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import { approve, trader } from '../helpers/routing.ts';
import { constantProductOut, readPool, reservesFrom } from '../helpers/uniswap.ts';

const fork = useDevnetFork();
const served = useServeProcesses(fork, 'serve');
const { serve } = served;

async function quote(
  url: string,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const query = new URLSearchParams({ tokenIn, tokenOut, amountIn: amountIn.toString(), ...extra });
  const response = await fetch(`${url}/routes?${query}`, { headers });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return swapRouteSchema.parse(body);
}

describe('routekeeper serve', () => {
  it('finds the pools from the factory, prices a pool moved in the last block at its new state, and routes a new pool at once', async () => {
    const { url, stop } = await serve();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [celo, cusd, ceur, weth] = ['CELO', 'cUSD', 'cEUR', 'WETH'].map((symbol) => fork.token(symbol)) as [Address, Address, Address, Address];
    const adapter = fork.addressBook.contracts.adapters.uniswapV2 as Address;

    // A pool no list names, found from the factory, at its reserves to the wei.
    const amountIn = parseUnits('1000', 18);
    const first = await quote(url, celo, cusd, amountIn);
    const pool = await readPool(fork, 'CELO/cUSD');
    expect(first.details.pairs).toEqual([adapter]);
    expect(first.details.extras).toEqual([encodePoolExtras(pool.address, 3).toLowerCase()]);
    expect(BigInt(first.expectedOut)).toBe(constantProductOut(amountIn, ...reservesFrom(pool, celo)));

    // Someone trades the pool: the next quote is at the block's new reserves.
    const me = trader(fork);
    await approve(fork, me, celo, first.routerAddress, amountIn);
    await fork.confirm(
      await me.wallet.writeContract({
        address: first.routerAddress,
        abi: routerAbi,
        functionName: 'swapExactInputForOutput',
        args: [swapPayloadFrom(first.details, { minOutputAmount: 1n, to: me.address })],
      }),
    );
    const moved = await readPool(fork, 'CELO/cUSD');
    expect(moved.reserve0).not.toBe(pool.reserve0);
    const second = await quote(url, celo, cusd, amountIn);
    expect(BigInt(second.expectedOut)).toBe(constantProductOut(amountIn, ...reservesFrom(moved, celo)));
    // The answer names the block whose pools it was made on: the trade's own.
    expect(second.blockNumber).toBe(await fork.publicClient.getBlockNumber());
    expect(first.blockNumber).toBe((second.blockNumber as bigint) - 2n);

    // A pool created after the service started: cEUR/WETH, which the devnet does not have.
    const factory = fork.addressBook.contracts.uniswapV2Factory as Address;
    const owner = me.wallet;
    await fork.confirm(await owner.writeContract({ address: factory, abi: artifacts.UniswapV2Factory.abi, functionName: 'createPair', args: [ceur, weth] }));
    const pair = await fork.publicClient.readContract({ address: factory, abi: artifacts.UniswapV2Factory.abi, functionName: 'getPair', args: [ceur, weth] });
    const [ceurIn, wethIn] = [parseUnits('30000', 18), parseUnits('10', 18)];
    await fork.confirm(await owner.writeContract({ address: ceur, abi: erc20Abi, functionName: 'transfer', args: [pair, ceurIn] }));
    await fork.confirm(await owner.writeContract({ address: weth, abi: erc20Abi, functionName: 'transfer', args: [pair, wethIn] }));
    const minted = await fork.confirm(await owner.writeContract({ address: pair, abi: artifacts.UniswapV2Pair.abi, functionName: 'mint', args: [me.address] }));

    const direct = await quote(url, ceur, weth, parseUnits('100', 18), { maxHops: '1' });
    expect(await fork.publicClient.getBlockNumber()).toBe(minted.blockNumber);
    expect(direct.details.extras).toEqual([encodePoolExtras(pair, 3).toLowerCase()]);
    expect(BigInt(direct.expectedOut)).toBe(constantProductOut(parseUnits('100', 18), ceurIn, wethIn));

    // Executed through the router, the new pool pays exactly what was quoted.
    await approve(fork, me, ceur, direct.routerAddress, BigInt(direct.details.inputAmount));
    const before = await fork.balanceOf(weth, me.address);
    await fork.confirm(
      await me.wallet.writeContract({
        address: direct.routerAddress,
        abi: routerAbi,
        functionName: 'swapExactInputForOutput',
        args: [swapPayloadFrom(direct.details, { minOutputAmount: BigInt(direct.expectedOut), to: me.address })],
      }),
    );
    expect((await fork.balanceOf(weth, me.address)) - before).toBe(BigInt(direct.expectedOut));
    expect(await stop()).toBe(0);
  });

  it('leaves out pools under its liquidity floor', async () => {
    const [usdc, weth] = [fork.token('USDC'), fork.token('WETH')];
    const direct = { maxHops: '1' };
    const open = await serve();
    await quote(open.url, usdc, weth, parseUnits('100', 6), direct);
    // 150 WETH: the USDC/WETH pool (100 WETH) is under it, CELO/WETH (200 WETH, 1.2M CELO) is not.
    const floored = await serve(['--no-cache', '--min-reserve', parseUnits('150', 18).toString()]);
    const query = new URLSearchParams({ tokenIn: usdc, tokenOut: weth, amountIn: parseUnits('100', 6).toString(), ...direct });
    const refused = await fetch(`${floored.url}/routes?${query}`);
    expect([refused.status, await refused.json()]).toEqual([400, { error: 'Unsupported tokens', field: 'tokenIn', tokens: [usdc] }]);
    const celoWeth = await quote(floored.url, fork.token('CELO'), weth, parseUnits('1000', 18), direct);
    expect(celoWeth.details.extras[0]?.slice(0, 42)).toBe((await readPool(fork, 'CELO/WETH')).address.toLowerCase());
    expect([await open.stop(), await floored.stop()]).toEqual([0, 0]);
  });

  it('a 4-hop request on a hub-heavy graph answers at its search budget, saying so, while GET / keeps answering', async () => {
    // 250 pools over 24 tokens, 4 of them hubs: about 15,000 hops to price for a 4-hop search between two hubs,
    // 16 ms in a warm process here; its budget is 1 ms.
    const graph = generateGraph(250, { tokens: 24, hubs: 4, seed: 3 });
    const { factory, tokens } = await deployGraph(fork.addressBook.rpcUrl, fork.addressBook.accounts[1]?.privateKey as `0x${string}`, graph);
    const graphBook = join(served.home.dir, 'hub-graph.json');
    const { routingServiceUrl: _url, routingService: _second, ...book } = fork.addressBook;
    // Its tokens on the book's token list: a route's middle tokens are held to it, by the daemon and so by the service.
    const graphTokens = Object.fromEntries(tokens.map((address, i) => [`G${i}`, { address, decimals: 18 }]));
    writeFileSync(
      graphBook,
      JSON.stringify({
        ...book,
        tokens: { ...book.tokens, ...graphTokens },
        pools: [],
        contracts: { ...book.contracts, uniswapV2Factory: factory, gauges: {}, farms: {} },
      }),
    );
    const child = spawnCli(
      [
        'serve',
        '--address-book',
        graphBook,
        '--port',
        '0',
        '--no-cache',
        '--min-reserve',
        '0',
        '--search-budget',
        '1',
        '--partner-store',
        join(served.home.dir, 'graph.sqlite'),
      ],
      { RPC_URL: '' },
    );
    served.track(child);
    const { url } = JSON.parse(await firstStdoutLine(child)) as { url: string };

    let searching = true;
    const fourHops = Promise.all(
      [0, 1, 2, 3].map((hub) =>
        fetch(
          `${url}/routes?${new URLSearchParams({ tokenIn: tokens[hub] as string, tokenOut: tokens[(hub + 1) % 4] as string, amountIn: parseUnits('1000', 18).toString(), maxHops: '4' })}`,
        ),
      ),
    ).finally(() => {
      searching = false;
    });
    const health: number[] = [];
    while (searching) health.push((await fetch(`${url}/`)).status);
    const answers = await Promise.all(
      (await fourHops).map(async (response) => ({ status: response.status, body: swapRouteSchema.parse(await response.json()) })),
    );
    expect(health.length).toBeGreaterThan(0);
    expect(new Set(health)).toEqual(new Set([200]));
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body.search).toMatchObject({ complete: false, budgetMs: 1 });
      expect(body.details.path.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('follows each new block with two node requests and reads no pool again; a restart reads only the blocks it missed', async () => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    const cache = join(served.home.dir, 'index.json');
    try {
      const first = await serve(['--rpc', proxy.url, '--cache', cache]);
      const [celo, cusd] = [fork.token('CELO'), fork.token('cUSD')];
      await quote(first.url, celo, cusd, parseUnits('1', 18));
      const atStart = proxy.calls();
      const blocks = 5;
      for (let i = 0; i < blocks; i++) {
        await fork.testClient.mine({ blocks: 1 });
        await quote(first.url, celo, cusd, parseUnits(String(i + 1), 18));
      }
      const since = (method: string) => (proxy.calls().get(method) ?? 0) - (atStart.get(method) ?? 0);
      // Per block: its header, then one eth_getLogs for every pool's Sync (and new pairs); not one pool read.
      expect([since('eth_getBlockByNumber'), since('eth_getLogs'), since('eth_call')]).toEqual([blocks, blocks, 0]);
      expect(await first.stop()).toBe(0);
      const saved = JSON.parse(readFileSync(cache, 'utf8')) as { pools: unknown[]; head: { number: string } };
      expect(saved.pools.length).toBe(fork.addressBook.pools.length);

      // Two blocks pass while it is down; the restart reads its cached block's hash, the logs it missed, and no pool.
      await fork.testClient.mine({ blocks: 2 });
      const beforeRestart = proxy.calls();
      const second = await serve(['--rpc', proxy.url, '--cache', cache]);
      const answer = await quote(second.url, celo, cusd, parseUnits('5', 18));
      const pool = await readPool(fork, 'CELO/cUSD');
      expect(BigInt(answer.expectedOut)).toBe(constantProductOut(parseUnits('5', 18), ...reservesFrom(pool, celo)));
      const calls = (method: string) => (proxy.calls().get(method) ?? 0) - (beforeRestart.get(method) ?? 0);
      expect(calls('eth_getLogs')).toBe(1);
      // eth_chainId at start, and nothing read of any pool or factory.
      expect(calls('eth_call')).toBe(0);
      expect(await second.stop()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("with a key: the partner's fee read through the router's getPartnerFee, paid exactly; the key's volume survives a restart", async () => {
    const partner = fork.addressBook.partners?.[0];
    const signer = fork.addressBook.serviceSigner;
    if (!partner || !signer) throw new Error('the devnet has no partner or service signer');
    const keysFile = join(served.home.dir, 'keys.json');
    const key = 'serve-test-key-0123456789abcdef';
    writeFileSync(keysFile, JSON.stringify([{ key, partner: partner.id, feeRecipient: partner.admin, label: 'test' }]));
    const store = join(served.home.dir, 'partners.sqlite');
    const args = ['--no-cache', '--api-keys', keysFile, '--partner-store', store];
    const env = { ROUTING_SIGNER_KEY: signer.privateKey };
    const first = await serve(args, env);
    const [celo, cusd] = [fork.token('CELO'), fork.token('cUSD')];
    const amountIn = parseUnits('2000', 18);
    const feeNumerator = await fork.publicClient.readContract({
      address: fork.addressBook.contracts.router,
      abi: routerFeeAbi,
      functionName: 'getPartnerFee',
      args: [BigInt(partner.id)],
    });
    expect(feeNumerator).toBe(BigInt(partner.feeNumerator));
    const route = await quote(first.url, celo, cusd, amountIn, {}, { 'x-api-key': key });
    const gross = constantProductOut(amountIn, ...reservesFrom(await readPool(fork, 'CELO/cUSD'), celo));
    expect(route.details.partner).toBe(partner.id);
    expect(BigInt(route.expectedOut)).toBe(gross - (gross * feeNumerator) / 10n ** 10n);

    const me = trader(fork);
    await approve(fork, me, celo, route.routerAddress, amountIn);
    const [mine, theirs] = [await fork.balanceOf(cusd, me.address), await fork.balanceOf(cusd, partner.admin)];
    await fork.confirm(
      await me.wallet.writeContract({
        address: route.routerAddress,
        abi: routerAbi,
        functionName: 'swapExactInputForOutput',
        args: [swapPayloadFrom(route.details, { minOutputAmount: BigInt(route.expectedOut), to: me.address })],
      }),
    );
    expect((await fork.balanceOf(cusd, me.address)) - mine).toBe(BigInt(route.expectedOut));
    expect((await fork.balanceOf(cusd, partner.admin)) - theirs).toBe((gross * feeNumerator) / 10n ** 10n);

    const volume = async (url: string) => (await fetch(`${url}/partners/volume`, { headers: { 'x-api-key': key } })).json();
    const expected = {
      partner: partner.id,
      feeNumerator: feeNumerator.toString(),
      feeRecipient: partner.admin,
      quotes: 1,
      volume: { [celo]: amountIn.toString() },
    };
    expect(await volume(first.url)).toMatchObject(expected);
    expect(await first.stop()).toBe(0);
    const second = await serve(args, env);
    expect(await volume(second.url)).toMatchObject(expected);
    // The key is kept as its digest, never itself.
    expect(readFileSync(store).includes(Buffer.from(key))).toBe(false);
    expect(await second.stop()).toBe(0);
  });

  // Celo itself, when a node is given: the built-in chain data's factories and Swappa's adapter, a real quote.
  it.skipIf(!process.env.CELO_RPC_URL)(
    'on Celo: indexes Ubeswap, SushiSwap and Uniswap V3 from their factories and quotes CELO for USDm through the published adapters',
    async () => {
      const child = spawnCli(
        ['serve', '--rpc', process.env.CELO_RPC_URL as string, '--port', '0', '--no-cache', '--partner-store', join(served.home.dir, 'celo.sqlite')],
        { RPC_URL: '' },
      );
      served.track(child);
      const { url } = JSON.parse(await firstStdoutLine(child, 600_000)) as { url: string };
      const [celo, usdm] = ['0x471EcE3750Da237f93B8E339c536989b8978a438', '0x765DE816845861e75A25fCA122bb6898B8B1282a'] as const;
      const route = await quote(url, celo, usdm, parseUnits('10', 18));
      expect(route.routerAddress.toLowerCase()).toBe('0xa730b463395f5ca07ece5cefeccf7f45e1e2c9bf');
      const published = ['0x202019ed34abd85af1e54ec47e9aa558e6990b1c', '0xcfbb9619258aad38a68b62d11f2458c9191dbf3c'];
      for (const pair of route.details.pairs) expect(published).toContain(pair.toLowerCase());
      expect(BigInt(route.expectedOut)).toBeGreaterThan(0n);
      child.kill('SIGTERM');
    },
    660_000,
  );

  it('refuses a node that does not answer, and a bad option, with one line and exit 2', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawnCli(['serve', ...args], { RPC_URL: '' });
        let stderr = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const rpc = ['--rpc', fork.addressBook.rpcUrl, '--address-book', served.home.bookFile, '--port', '0', '--no-cache'];
    const shortKey = join(served.home.dir, 'short-key.json');
    writeFileSync(shortKey, JSON.stringify([{ key: 'tooshort', partner: 1 }]));
    const keys = join(served.home.dir, 'good-keys.json');
    writeFileSync(keys, JSON.stringify([{ key: 'a-good-key-0123456789', partner: 1 }]));
    // Five processes, each its own start-up: side by side, so a busy machine pays one start-up's time, not five.
    const [noNode, badPort, noKeysFile, badKey, noSigner] = await Promise.all([
      run(['--rpc', 'http://127.0.0.1:1', '--port', '0']),
      run(['--port', 'eighty']),
      run([...rpc, '--api-keys', join(served.home.dir, 'missing.json')]),
      run([...rpc, '--api-keys', shortKey]),
      run([...rpc, '--api-keys', keys]),
    ]);
    expect(noNode.code).toBe(2);
    expect(noNode.stderr.trim().split('\n')).toHaveLength(1);
    expect(noNode.stderr).toContain('did not answer eth_chainId');
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port must be a whole number');
    expect([noKeysFile.code, noKeysFile.stderr.trim()]).toEqual([2, `routekeeper: --api-keys ${join(served.home.dir, 'missing.json')}: no such file`]);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain(`--api-keys ${shortKey}: 0.key must be at least 16 characters`);
    expect(badKey.stderr).not.toContain('tooshort');
    expect(noSigner.code).toBe(2);
    expect(noSigner.stderr).toContain('--api-keys needs ROUTING_SIGNER_KEY');
  });
});
