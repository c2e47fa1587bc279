/**
 * A pool's price now is read at the latest block in the same batch as that block: should a block be mined between
 * the reads, the pool's state is of a newer block than the time beside it, its reserves and its cumulative prices
 * maybe of different blocks. That is seen (the pool's last update is after the block's time), and both are read again.
 */
import { createPublicClient, http, numberToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { NoAverageError, PoolAverages } from '../../src/price/pool-average.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type RpcCall, startRpcProxy } from '../helpers/rpc-proxy.ts';

const fork = useDevnetFork();
const getReserves = '0x0902f1ac';

/**
 * A node whose first `times` answers of getReserves at the latest block come from a block mined after `headTime`:
 * the pool was updated then (a pair's state changes only with its last-update time).
 */
async function straddlingNode(times: number, headTime: bigint) {
  const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
  let left = times;
  const isLatestReserves = (call: RpcCall) => {
    const [request, tag] = (call.params ?? []) as [{ data?: string; input?: string }?, string?];
    return call.method === 'eth_call' && (request?.data ?? request?.input)?.startsWith(getReserves) && tag === 'latest';
  };
  proxy.faults.rewrite = (call, got) => {
    if (!isLatestReserves(call) || left-- <= 0 || typeof got.result !== 'string') return got;
    return { ...got, result: `${got.result.slice(0, 2 + 128)}${numberToHex(headTime + 5n, { size: 32 }).slice(2)}` };
  };
  const client = createPublicClient({ chain: fork.chain, transport: http(proxy.url, { batch: true }), cacheTime: 0 });
  return { proxy, client };
}

describe("a pool's price read while a block is mined", () => {
  it('is read again when its state is of a newer block than the time beside it; twice is no price, never a wrong one', async () => {
    const pool = fork.addressBook.contracts.gauges['CELO/cUSD']?.pool as `0x${string}`;
    const head = async () => {
      const block = await fork.publicClient.getBlock({ blockTag: 'latest' });
      return { number: block.number, timestamp: block.timestamp };
    };
    const honest = await new PoolAverages(fork.publicClient).read(pool, await head());

    const once = await straddlingNode(1, (await head()).timestamp);
    try {
      expect(await new PoolAverages(once.client).read(pool, await head())).toEqual(honest);
    } finally {
      await once.proxy.close();
    }
    const always = await straddlingNode(1_000, (await head()).timestamp);
    try {
      const read = new PoolAverages(always.client).read(pool, await head());
      await expect(read).rejects.toBeInstanceOf(NoAverageError);
      await expect(read).rejects.toThrow(/the chain moved on while its state was read, twice/);
    } finally {
      await always.proxy.close();
    }
  });
});
