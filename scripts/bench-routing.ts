/**
 * Prints, as JSON, the local routing service's route-search latency (p50/p99) and quotes per second:
 *  - the search alone (Market.bestPath, max 3 hops) on the devnet graph and on a generated graph of
 *    200 pools over 60 tokens;
 *  - whole quotes over HTTP against the devnet service (validation, chain check, search, JSON), at a
 *    fixed concurrency.
 * Usage: tsx scripts/bench-routing.ts [--searches N] [--requests N] [--concurrency N]
 */
import { parseArgs } from 'node:util';
import { type Address, getAddress, parseUnits } from 'viem';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { ChainState } from '../src/devnet/routing/chain-state.ts';
import { Market, type PoolInfo, type PoolReserves } from '../src/devnet/routing/market.ts';
import { createPublicClient, http } from 'viem';

const { values } = parseArgs({
  options: {
    searches: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
  },
});
const searches = Number(values.searches);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);

function percentiles(samplesMs: number[]) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), maxMs: round(at(1)) };
}
const round = (value: number) => Math.round(value * 1000) / 1000;

/** A small deterministic PRNG so every run benchmarks the same generated graph. */
function mulberry32(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedMarket(tokenCount: number, poolCount: number) {
  const random = mulberry32(42);
  const tokens = Array.from({ length: tokenCount }, (_, i) => getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`));
  const pools: PoolInfo[] = [];
  const reserves = new Map<string, PoolReserves>();
  const seen = new Set<string>();
  while (pools.length < poolCount) {
    const a = Math.floor(random() * tokenCount);
    const b = Math.floor(random() * tokenCount);
    if (a === b || seen.has(`${Math.min(a, b)}-${Math.max(a, b)}`)) continue;
    seen.add(`${Math.min(a, b)}-${Math.max(a, b)}`);
    const address = getAddress(`0x${(0xa000000 + pools.length).toString(16).padStart(40, '0')}`);
    pools.push({ address, token0: tokens[a] as Address, token1: tokens[b] as Address, feePerMille: 3, protocol: 'uniswap-v2' });
    const depth = () => parseUnits(String(Math.floor(1_000 + random() * 10_000_000)), 18);
    reserves.set(address.toLowerCase(), { reserve0: depth(), reserve1: depth(), totalSupply: parseUnits('1000', 18) });
  }
  return { market: new Market(pools, reserves), tokens };
}

function benchSearch(market: Market, tokens: Address[]) {
  const random = mulberry32(7);
  const samples: number[] = [];
  let found = 0;
  const started = performance.now();
  for (let i = 0; i < searches; i++) {
    const tokenIn = tokens[Math.floor(random() * tokens.length)] as Address;
    let tokenOut = tokens[Math.floor(random() * tokens.length)] as Address;
    if (tokenOut === tokenIn) tokenOut = tokens[(tokens.indexOf(tokenIn) + 1) % tokens.length] as Address;
    const amount = parseUnits(String(1 + Math.floor(random() * 10_000)), 18);
    const t0 = performance.now();
    if (market.bestPath(tokenIn, tokenOut, amount, { maxHops: 3 })) found++;
    samples.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  return { searches, routesFound: found, ...percentiles(samples), searchesPerSecond: Math.round(searches / seconds) };
}

async function benchHttp(url: string, tokens: Address[], decimalsOf: (token: Address) => number) {
  const random = mulberry32(9);
  const samples: number[] = [];
  let next = 0;
  const statuses: Record<number, number> = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        const tokenIn = tokens[Math.floor(random() * tokens.length)] as Address;
        const tokenOut = tokens[(tokens.indexOf(tokenIn) + 1 + Math.floor(random() * (tokens.length - 1))) % tokens.length] as Address;
        const amountIn = parseUnits(String(1 + Math.floor(random() * 1000)), decimalsOf(tokenIn)).toString();
        const query = new URLSearchParams({ tokenIn, tokenOut, amountIn });
        const t0 = performance.now();
        const response = await fetch(`${url}/routes?${query}`);
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        samples.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { requests, concurrency, statuses, ...percentiles(samples), quotesPerSecond: Math.round(requests / seconds) };
}

const devnet = await startDevnet();
const routing = await startDevnetRoutingService(devnet.addressBook);
try {
  const book = routing.addressBook;
  const devnetTokens = Object.values(book.tokens).map((token) => token.address);
  const pools: PoolInfo[] = book.pools.map((pool) => ({
    address: pool.address,
    token0: book.tokens[pool.token0]?.address as Address,
    token1: book.tokens[pool.token1]?.address as Address,
    feePerMille: pool.feePerMille,
    protocol: 'uniswap-v2',
  }));
  const client = createPublicClient({ transport: http(book.rpcUrl) });
  const { market: devnetMarket } = await new ChainState(client, pools, book.contracts.router, []).current();
  const generated = generatedMarket(60, 200);
  console.log(
    JSON.stringify(
      {
        searchDevnetGraph: { pools: pools.length, tokens: devnetTokens.length, ...benchSearch(devnetMarket, devnetTokens) },
        searchGenerated200Pools60Tokens: { pools: 200, tokens: 60, ...benchSearch(generated.market, generated.tokens) },
        httpQuotesDevnet: await benchHttp(book.routingServiceUrl as string, devnetTokens, (token) =>
          Object.values(book.tokens).find((entry) => entry.address === token)?.decimals ?? 18,
        ),
      },
      null,
      2,
    ),
  );
} finally {
  await routing.service.close();
  await devnet.stop();
}
