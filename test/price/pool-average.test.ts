/**
 * A pool's price now is read at the latest block in the same batch as that block: should a block be mined between
 * the reads, the pool's state is of a newer block than the time beside it, its reserves and its cumulative prices
 * maybe of different blocks. That is seen (the pool's last update is after the block's time), and both are read again.
 * So are cumulatives from an older state than the reserves beside them (below those of the average's start).
 */
import { createPublicClient, http, numberToHex, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { NoAverageError, PoolAverages } from '../../src/price/pool-average.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type RpcCall, startRpcProxy } from '../helpers/rpc-proxy.ts';

const fork = useDevnetFork();
const getReserves = '0x0902f1ac';
const price0CumulativeLast = '0x5909c0d5';

/** A node whose first `times` answers to a call at the latest block starting with `selector` are rewritten. */
async function rewritingNode(selector: string, times: number, rewrite: (result: string) => string) {
  const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
  let left = times;
  const isLatestCall = (call: RpcCall) => {
    const [request, tag] = (call.params ?? []) as [{ data?: string; input?: string }?, string?];
    return call.method === 'eth_call' && (request?.data ?? request?.input)?.startsWith(selector) && tag === 'latest';
  };
  proxy.faults.rewrite = (call, got) => {
    if (!isLatestCall(call) || left-- <= 0 || typeof got.result !== 'string') return got;
    return { ...got, result: rewrite(got.result) };
  };
  const client = createPublicClient({ chain: fork.chain, transport: http(proxy.url, { batch: true }), cacheTime: 0 });
  return { proxy, client };
}

/**
 * A node whose first `times` answers of getReserves at the latest block come from a block mined after `headTime`:
 * the pool was updated then (a pair's state changes only with its last-update time).
 */
const straddlingNode = (times: number, headTime: bigint) =>
  rewritingNode(getReserves, times, (result) => `${result.slice(0, 2 + 128)}${numberToHex(headTime + 5n, { size: 32 }).slice(2)}`);

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

  it('is read again when its cumulatives are of an older state than the reserves beside them; twice is no price', async () => {
    const pool = fork.addressBook.contracts.gauges['CELO/cUSD']?.pool as `0x${string}`;
    const head = async () => {
      const block = await fork.publicClient.getBlock({ blockTag: 'latest' });
      return { number: block.number, timestamp: block.timestamp };
    };
    // The pool's cumulatives grow from an update an hour in; the average's start (a minute back) is after it.
    const account = fork.addressBook.accounts[0]?.privateKey as `0x${string}`;
    await fork.testClient.increaseTime({ seconds: 3_600 });
    await fork.confirm(await fork.wallet(account).writeContract({ address: pool, abi: parseAbi(['function sync()']), functionName: 'sync' }));
    await fork.testClient.increaseTime({ seconds: 120 });
    await fork.testClient.mine({ blocks: 1 });
    const averages = (client: typeof fork.publicClient) => new PoolAverages(client, { windowSeconds: 60 });
    const honest = await averages(fork.publicClient).read(pool, await head());
    expect(honest.average0).toBeGreaterThan(0n);
    // The first cumulative as it stood before the pool's first update (0): below the average's start.
    const stale = (times: number) => rewritingNode(price0CumulativeLast, times, () => numberToHex(0n, { size: 32 }));

    const once = await stale(1);
    try {
      expect(await averages(once.client).read(pool, await head())).toEqual(honest);
    } finally {
      await once.proxy.close();
    }
    const always = await stale(1_000);
    try {
      const read = averages(always.client).read(pool, await head());
      await expect(read).rejects.toBeInstanceOf(NoAverageError);
      await expect(read).rejects.toThrow(/its cumulative prices at block \d+ are below those a window earlier/);
    } finally {
      await always.proxy.close();
    }
  });
});
