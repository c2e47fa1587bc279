/**
 * A pool's price now is read at the latest block in the same batch as that block: should a block be mined between
 * the reads, the pool's state is of a newer block than the time beside it. That is seen (the pool's last update is
 * after the block's time), and both are read again. So are cumulatives below those of the average's start (a chain
 * reverted, or a node answering from a state it should not). A pool's own state is one call, a deployless multicall,
 * so its cumulatives and its reserves are always of one block: read separately, a block mined between them once
 * made a false average 146 times the price.
 */
import { type Hex, createPublicClient, decodeFunctionResult, encodeFunctionResult, http, multicall3Abi, numberToHex, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { NoAverageError, PoolAverages } from '../../src/price/pool-average.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type RpcCall, startRpcProxy } from '../../support/rpc-proxy.ts';

const fork = useDevnetFork();
const getReserves = '0902f1ac';
const price0CumulativeLast = '5909c0d5';

type CallResult = { success: boolean; returnData: Hex };
/** A deployless multicall (no `to`) at the latest block that asks `selector`: the pool's state read at once. */
const isLatestStateRead = (call: RpcCall, selector: string) => {
  const [request, tag] = (call.params ?? []) as [{ to?: string; data?: string; input?: string }?, string?];
  return call.method === 'eth_call' && request?.to === undefined && (request?.data ?? request?.input ?? '').includes(selector) && tag === 'latest';
};

/**
 * A node whose first `times` answers to a read of the pool's state at the latest block are rewritten: `rewrite`
 * gets the three answers (price0CumulativeLast, price1CumulativeLast, getReserves) and gives them back changed.
 */
async function rewritingNode(times: number, rewrite: (results: CallResult[]) => CallResult[]) {
  const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
  let left = times;
  let rewritten = 0;
  proxy.faults.rewrite = (call, got) => {
    if (!isLatestStateRead(call, price0CumulativeLast) || left-- <= 0 || typeof got.result !== 'string') return got;
    rewritten++;
    const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: got.result as Hex });
    return { ...got, result: encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: rewrite([...results]) }) };
  };
  const client = createPublicClient({ chain: fork.chain, transport: http(proxy.url, { batch: true }), cacheTime: 0 });
  return { proxy, client, rewritten: () => rewritten };
}

/**
 * A node whose first `times` answers of the pool's state at the latest block come from a block mined after
 * `headTime`: the pool was updated then (a pair's state changes only with its last-update time).
 */
const straddlingNode = (times: number, headTime: bigint) =>
  rewritingNode(times, ([cumulative0, cumulative1, reserves]) => [
    cumulative0 as CallResult,
    cumulative1 as CallResult,
    { success: true, returnData: `${(reserves as CallResult).returnData.slice(0, 2 + 128)}${numberToHex(headTime + 5n, { size: 32 }).slice(2)}` as Hex },
  ]);

describe("a pool's price read while a block is mined", () => {
  it("reads a pool's cumulatives and reserves in one call, so they are of one block", async () => {
    const pool = fork.addressBook.contracts.gauges['CELO/cUSD']?.pool as `0x${string}`;
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    try {
      const stateReads: string[] = [];
      proxy.faults.rewrite = (call, got) => {
        const [request] = (call.params ?? []) as [{ to?: string; data?: string; input?: string }?];
        const data = request?.data ?? request?.input ?? '';
        if (call.method === 'eth_call' && (data.includes(price0CumulativeLast) || data.includes(getReserves))) stateReads.push(data);
        return got;
      };
      const client = createPublicClient({ chain: fork.chain, transport: http(proxy.url, { batch: true }), cacheTime: 0 });
      const block = await fork.publicClient.getBlock({ blockTag: 'latest' });
      const prices = await new PoolAverages(client).read(pool, { number: block.number, timestamp: block.timestamp }, 'uniswap-v2');
      expect('average0' in prices && prices.average0).toBeGreaterThan(0n);
      // Two reads (now, and the average's start): each asks all three of the pool at once.
      expect(stateReads).toHaveLength(2);
      for (const data of stateReads)
        expect([data.includes(price0CumulativeLast), data.includes('5a3d5493'), data.includes(getReserves)]).toEqual([true, true, true]);
    } finally {
      await proxy.close();
    }
  });

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

  it("is read again when its cumulatives are below those at the average's start; twice is no price", async () => {
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
    expect('average0' in honest && honest.average0).toBeGreaterThan(0n);
    // The first cumulative as it stood before the pool's first update (0): below the average's start.
    const stale = (times: number) =>
      rewritingNode(times, ([, cumulative1, reserves]) => [
        { success: true, returnData: numberToHex(0n, { size: 32 }) },
        cumulative1 as CallResult,
        reserves as CallResult,
      ]);

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
