/**
 * `routekeeper serve` as a process over the devnet with Uniswap V3, given an address book that lists no pool: it
 * finds the V3 pools from their factory's `PoolCreated` logs, follows each block that swaps in them with two node
 * requests (its header and one `eth_getLogs`) and no pool read, and a restart from its index file reads only the logs
 * it missed; its quotes stay what the pool's own libraries say, to the wei.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, type Hex, encodeFunctionData, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { swapRouteSchema } from '../../src/routing-api/schemas.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { useServeProcesses } from '../helpers/serve-process.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import { trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ uniswapV3: true });
const served = useServeProcesses(fork, 'serve-v3');
const serve = (rpcUrl: string, cache: string) => served.serve(['--rpc', rpcUrl, '--cache', cache]);

const v3Adapter = () => fork.addressBook.contracts.adapters.uniswapV3 as Address;
const deepPool = () => fork.addressBook.uniswapV3?.pools.find((pool) => pool.name === 'CELO/WETH 0.05%')?.address as Address;

async function quoteCeloForWeth(url: string, amountIn: bigint) {
  const query = new URLSearchParams({ tokenIn: fork.token('CELO'), tokenOut: fork.token('WETH'), amountIn: amountIn.toString(), maxHops: '1' });
  const response = await fetch(`${url}/routes?${query}`);
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return swapRouteSchema.parse(body);
}

/**
 * What the adapter's view (Uniswap's own libraries over the pool's storage) says the pool an answer names pays now
 * (the 0.05% pool, or the 0.3% one once enough CELO was sold into the first).
 */
const viewed = (answer: { details: { extras: readonly Hex[] } }, amountIn: bigint) =>
  fork.publicClient.readContract({
    address: v3Adapter(),
    abi: artifacts.UniswapV3Adapter.abi,
    functionName: 'getOutputAmount',
    args: [fork.token('CELO'), fork.token('WETH'), amountIn, answer.details.extras[0] as Hex],
  });

/** One block holding a swap of `celo` CELO straight into the 0.05% pool through the adapter, as another trader's. */
async function blockWithSwap(celo: bigint) {
  const me = trader(fork);
  await fork.testClient.setAutomine(false);
  try {
    const hashes: Hex[] = [
      await me.wallet.sendTransaction({
        to: fork.token('CELO'),
        data: encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [v3Adapter(), celo] }),
        gas: 200_000n,
      }),
      await me.wallet.sendTransaction({
        to: v3Adapter(),
        data: encodeFunctionData({
          abi: artifacts.UniswapV3Adapter.abi,
          functionName: 'swap',
          args: [fork.token('CELO'), fork.token('WETH'), me.address, deepPool()],
        }),
        gas: 1_000_000n,
      }),
    ];
    await fork.testClient.mine({ blocks: 1 });
    for (const hash of hashes) await fork.confirm(hash);
  } finally {
    await fork.testClient.setAutomine(true);
  }
}

describe('serve over Uniswap V3 pools', () => {
  it('follows blocks that swap in a V3 pool with two node requests each and no pool read; a restart reads only the logs it missed', async () => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    const cache = join(served.home.dir, 'index.json');
    const amountIn = parseUnits('2000', 18);
    try {
      const first = await serve(proxy.url, cache);
      const start = await quoteCeloForWeth(first.url, amountIn);
      expect(start.details.extras).toEqual([deepPool().toLowerCase()]);
      expect(start.expectedOut).toBe(await viewed(start, amountIn));
      const atStart = proxy.calls();
      const blocks = 4;
      for (let i = 0; i < blocks; i++) {
        await blockWithSwap(parseUnits(String(20_000 * (i + 1)), 18));
        const answer = await quoteCeloForWeth(first.url, amountIn);
        expect(answer.expectedOut).toBe(await viewed(answer, amountIn));
      }
      const since = (method: string) => (proxy.calls().get(method) ?? 0) - (atStart.get(method) ?? 0);
      // Per block: its header, then one eth_getLogs whose Swap logs carry the pool's new price, tick and liquidity.
      expect([since('eth_getBlockByNumber'), since('eth_getLogs'), since('eth_call')]).toEqual([blocks, blocks, 0]);
      expect(await first.stop()).toBe(0);
      const saved = JSON.parse(readFileSync(cache, 'utf8')) as { pools: { kind: string; address: string; ticks?: unknown[] }[] };
      const savedV3 = saved.pools.filter((pool) => pool.kind === 'uniswap-v3');
      expect(savedV3.map((pool) => pool.address).sort()).toEqual((fork.addressBook.uniswapV3?.pools ?? []).map((pool) => pool.address).sort());
      expect(savedV3.every((pool) => (pool.ticks?.length ?? 0) >= 4)).toBe(true);

      // A swap in the pool while it is down; the restart reads the logs it missed, and no pool.
      await blockWithSwap(parseUnits('50000', 18));
      const beforeRestart = proxy.calls();
      const second = await serve(proxy.url, cache);
      const answer = await quoteCeloForWeth(second.url, amountIn);
      expect(answer.expectedOut).toBe(await viewed(answer, amountIn));
      const calls = (method: string) => (proxy.calls().get(method) ?? 0) - (beforeRestart.get(method) ?? 0);
      expect([calls('eth_getLogs'), calls('eth_call')]).toEqual([1, 0]);
      expect(await second.stop()).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
