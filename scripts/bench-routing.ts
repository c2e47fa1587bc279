/**
 * Prints, as JSON, what `routekeeper serve` does on generated graphs of Uniswap V2 pools with hub tokens (200 and
 * 2,000 pools by default), each deployed on a devnet of its own from the real Uniswap V2 bytecode:
 *  - indexFromScratchMs / indexFromCacheMs: from the process's start to its `{"url"}` line, without and with its
 *    index file;
 *  - exhaustive: for random questions, the service's answer against an unpruned enumeration of every simple path
 *    (written here), by output net of the same gas per hop: how many equal it, how many fall below;
 *  - routes: p50/p99 of GET /routes (max 3 hops) at 8 concurrent clients, for `--seconds` (8);
 *  - nodeRequestsPerBlock: JSON-RPC calls the node saw per block while blocks came every second under that load,
 *    counted by a proxy in front of the node (the service reads the head at most once per block time, 1 s);
 *  - healthDuringFourHops: the slowest GET / while 4-hop requests between hub tokens run;
 *  - peakRssMb: the serve process's peak resident memory (VmHWM), read from /proc.
 * With `--v3-share S`, that share of the pools are Uniswap V3 pools (0.3%, three positions each, from the real V3
 * bytecode); the exhaustive comparison, written for constant-product pools, is then left out.
 * Usage: tsx scripts/bench-routing.ts [--pools 200,2000] [--seconds N] [--concurrency N] [--questions N] [--v3-share S]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Hex, createPublicClient, createTestClient, http, parseUnits } from 'viem';
import { startDevnet } from '../src/devnet/devnet.ts';
import { swapOutput } from '../src/pools/uniswap-v2/math.ts';
import { seeded } from '../support/chaos.ts';
import { type PoolGraph, deployGraph, generateGraph } from '../support/pool-graph.ts';
import { startRpcProxy } from '../support/rpc-proxy.ts';
import { percentiles, startServe } from './serve-process.ts';

const { values } = parseArgs({
  options: {
    pools: { type: 'string', default: '200,2000' },
    seconds: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '8' },
    questions: { type: 'string', default: '200' },
    'v3-share': { type: 'string', default: '0' },
  },
});
const v3Share = Number(values['v3-share']);
const sizes = String(values.pools).split(',').map(Number);
const loadSeconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const questions = Number(values.questions);

const random = seeded;

/** The unpruned enumeration of every simple path, ranked as the service ranks (net of `hopCost` a hop). */
function exhaustiveBest(graph: PoolGraph, from: number, to: number, amountIn: bigint, maxHops: number, hopCost: bigint) {
  const adjacent = new Map<number, { other: number; reserveIn: bigint; reserveOut: bigint }[]>();
  for (const pool of graph.pools) {
    adjacent.set(pool.a, [...(adjacent.get(pool.a) ?? []), { other: pool.b, reserveIn: pool.reserveA, reserveOut: pool.reserveB }]);
    adjacent.set(pool.b, [...(adjacent.get(pool.b) ?? []), { other: pool.a, reserveIn: pool.reserveB, reserveOut: pool.reserveA }]);
  }
  let best: bigint | undefined;
  const walk = (token: number, amount: bigint, seen: Set<number>, hops: number) => {
    for (const edge of adjacent.get(token) ?? []) {
      if (seen.has(edge.other)) continue;
      const out = swapOutput(amount, edge.reserveIn, edge.reserveOut, 30);
      if (out === 0n) continue;
      if (edge.other === to) {
        const net = out - hopCost * BigInt(hops + 1);
        if (best === undefined || net > best) best = net;
      } else if (hops + 1 < maxHops) {
        seen.add(edge.other);
        walk(edge.other, out, seen, hops + 1);
        seen.delete(edge.other);
      }
    }
  };
  walk(from, amountIn, new Set([from]), 0);
  return best;
}

async function get(url: string) {
  const t0 = performance.now();
  const response = await fetch(url);
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, body, ms: performance.now() - t0 };
}

async function benchSize(poolCount: number) {
  const devnet = await startDevnet();
  const proxy = await startRpcProxy(devnet.addressBook.rpcUrl);
  const dir = mkdtempSync(join(tmpdir(), 'routekeeper-bench-routing-'));
  const stops: (() => Promise<void>)[] = [];
  try {
    const graph = generateGraph(poolCount, { uniswapV3Share: v3Share });
    const deployer = devnet.addressBook.accounts[0]?.privateKey as Hex;
    const deployedAt = performance.now();
    const { factory, tokens, uniswapV3 } = await deployGraph(devnet.addressBook.rpcUrl, deployer, graph);
    const deployMs = performance.now() - deployedAt;
    const book = {
      ...devnet.addressBook,
      rpcUrl: proxy.url,
      tokens: Object.fromEntries(tokens.map((address, i) => [`B${i}`, { address, decimals: 18 }])),
      contracts: {
        ...devnet.addressBook.contracts,
        uniswapV2Factory: factory,
        uniswapV2PairInitCodeHash: undefined,
        ...(uniswapV3 && { uniswapV3Factory: uniswapV3.factory }),
        adapters: { ...devnet.addressBook.contracts.adapters, ...(uniswapV3 && { uniswapV3: uniswapV3.adapter }) },
        gauges: {},
        farms: {},
      },
      pools: [],
      routingService: undefined,
    };
    const bookFile = join(dir, 'book.json');
    writeFileSync(bookFile, JSON.stringify(book));
    const cache = join(dir, 'index.json');
    const common = ['--address-book', bookFile, '--cache', cache, '--block-time', '1', '--min-reserve', '0', '--per-client', '0'];

    // Index from scratch, then again from the file.
    const scratch = await startServe(common);
    await scratch.stop();
    const service = await startServe(common);
    stops.push(service.stop);
    const baseFee = (await createPublicClient({ transport: http(devnet.addressBook.rpcUrl) }).getBlock()).baseFeePerGas ?? 0n;

    // Answers against the exhaustive best, by output net of the same hop cost (the gas token is not in this graph:
    // the service's hop cost is 0 here, as is the enumeration's).
    const next = random(9);
    let equal = 0;
    let below = 0;
    let above = 0;
    let noRoute = 0;
    for (let i = 0; i < (v3Share > 0 ? 0 : questions); i++) {
      const from = Math.floor(next() * graph.tokens);
      const to = Math.floor(next() * graph.tokens);
      if (from === to) continue;
      const amountIn = parseUnits(String(1 + Math.floor(next() * 100_000)), 18);
      const answer = await get(
        `${service.url}/routes?${new URLSearchParams({ tokenIn: tokens[from] as string, tokenOut: tokens[to] as string, amountIn: amountIn.toString() })}`,
      );
      const expected = exhaustiveBest(graph, from, to, amountIn, 3, 0n);
      if (answer.status !== 200) {
        if (expected === undefined) noRoute++;
        else below++;
        continue;
      }
      const got = BigInt(answer.body.expectedOut as string);
      if (expected === undefined || got > expected) above++;
      else if (got === expected) equal++;
      else below++;
    }

    // /routes at `concurrency` clients while a block comes every second; the node's calls per block counted.
    const blockTimer = setInterval(() => void createTestClient({ mode: 'anvil', transport: http(devnet.addressBook.rpcUrl) }).mine({ blocks: 1 }), 1_000);
    const client = createPublicClient({ transport: http(devnet.addressBook.rpcUrl) });
    const blockBefore = await client.getBlockNumber();
    const callsBefore = [...proxy.calls().values()].reduce((sum, count) => sum + count, 0);
    const samples: number[] = [];
    const statuses: Record<number, number> = {};
    const cpuBefore = service.cpuMs();
    const loadStarted = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() - loadStarted < loadSeconds * 1000) {
          const from = Math.floor(next() * graph.tokens);
          const to = (from + 1 + Math.floor(next() * (graph.tokens - 1))) % graph.tokens;
          const amountIn = parseUnits(String(1 + Math.floor(next() * 10_000)), 18);
          const answer = await get(
            `${service.url}/routes?${new URLSearchParams({ tokenIn: tokens[from] as string, tokenOut: tokens[to] as string, amountIn: amountIn.toString() })}`,
          );
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          samples.push(answer.ms);
        }
      }),
    );
    const loadTook = (performance.now() - loadStarted) / 1000;
    const serveCpuMs = service.cpuMs() - cpuBefore;
    clearInterval(blockTimer);
    const blocks = Number((await client.getBlockNumber()) - blockBefore);
    const calls = [...proxy.calls().values()].reduce((sum, count) => sum + count, 0) - callsBefore;

    // The slowest GET / while 4-hop requests between hub tokens run.
    const health: number[] = [];
    let fourHopsDone = false;
    const fourHops = Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        get(
          `${service.url}/routes?${new URLSearchParams({ tokenIn: tokens[i] as string, tokenOut: tokens[graph.hubs + i] as string, amountIn: parseUnits('1000', 18).toString(), maxHops: '4' })}`,
        ),
      ),
    ).finally(() => {
      fourHopsDone = true;
    });
    while (!fourHopsDone) health.push((await get(`${service.url}/`)).ms);
    const fourHopAnswers = await fourHops;

    return {
      pools: poolCount,
      uniswapV3Pools: graph.pools.filter((pool) => pool.v3).length,
      tokens: graph.tokens,
      hubTokens: graph.hubs,
      deployGraphMs: Math.round(deployMs),
      indexFromScratchMs: Math.round(scratch.startMs),
      indexFromCacheMs: Math.round(service.startMs),
      exhaustive: { questions: equal + below + above + noRoute, equal, below, above, noRouteEither: noRoute },
      routes: {
        requests: samples.length,
        concurrency,
        statuses,
        ...percentiles(samples),
        quotesPerSecond: Math.round(samples.length / loadTook),
        serveCpuMsPerRequest: Math.round((serveCpuMs / samples.length) * 100) / 100,
      },
      nodeRequestsPerBlock: { blocks, calls, perBlock: Math.round((calls / blocks) * 100) / 100, baseFeeWei: baseFee.toString() },
      healthDuringFourHops: {
        fourHopRequests: fourHopAnswers.length,
        fourHopMs: fourHopAnswers.map((answer) => Math.round(answer.ms)),
        incompleteSearches: fourHopAnswers.filter((answer) => (answer.body.search as { complete?: boolean } | undefined)?.complete === false).length,
        healthRequests: health.length,
        slowestHealthMs: Math.round(Math.max(...health) * 100) / 100,
      },
      peakRssMb: Math.round(service.peakRssMb()),
    };
  } finally {
    for (const stop of stops) await stop();
    await proxy.close();
    await devnet.stop();
  }
}

const results = [];
for (const size of sizes) results.push(await benchSize(size));
console.log(JSON.stringify({ measuredAt: new Date().toISOString(), graphs: results }, null, 2));
