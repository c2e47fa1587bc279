/**
 * The route search against a plain enumeration of every simple path (written here, with no pruning): equal on a
 * generated graph with hub tokens, with and without a gas cost per hop; within its budget on a dense graph while
 * the process keeps answering HTTP.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Address, getAddress, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { uniswapV2 } from '../../src/pools/uniswap-v2/kind.ts';
import { swapOutput } from '../../src/pools/uniswap-v2/math.ts';
import { type Hop, Market, type PoolInfo, type PoolReserves } from '../../src/routing/market.ts';
import { QuoteEngine } from '../../src/routing/quotes.ts';
import { bestPathNow, searchWithin } from '../../src/routing/search.ts';
import { swapRouteQuerySchema } from '../../src/routing-api/schemas.ts';
import { seeded } from '../../support/chaos.ts';

const adapter = { address: getAddress(`0x${'ad'.repeat(20)}`), kind: 'uniswap-v2' as const, feeUnit: 'bips' as const };
const kind = uniswapV2;

const random = seeded;

/** `tokens` tokens, the first `hubs` of them paired with most others; the rest paired at random; two fee tiers. */
function hubGraph(seed: number, tokens: number, pools: number, hubs: number) {
  const next = random(seed);
  const addresses = Array.from({ length: tokens }, (_, i) => getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`));
  const list: PoolInfo[] = [];
  const reserves = new Map<string, PoolReserves>();
  const add = (a: number, b: number) => {
    const address = getAddress(`0x${(0xb000000 + list.length).toString(16).padStart(40, '0')}`);
    list.push({
      address,
      token0: addresses[a] as Address,
      token1: addresses[b] as Address,
      feeBps: next() < 0.5 ? 30 : 25,
      protocol: next() < 0.5 ? 'ubeswap' : 'sushiswap',
      adapter,
      kind,
    });
    const depth = () => parseUnits(String(Math.floor(1_000 + next() * 5_000_000)), 18);
    reserves.set(address.toLowerCase(), { reserve0: depth(), reserve1: depth() });
  };
  while (list.length < pools) {
    const a = next() < 0.6 ? Math.floor(next() * hubs) : Math.floor(next() * tokens);
    const b = Math.floor(next() * tokens);
    if (a !== b) add(a, b);
  }
  return { market: new Market(list, reserves), tokens: addresses, next };
}

/** Every simple path of at most `maxHops` hops, priced, the best kept: the exhaustive answer, by brute force. */
function bruteForce(market: Market, tokenIn: Address, tokenOut: Address, amountIn: bigint, maxHops: number, hopCost = 0n) {
  let best: { amountOut: bigint; hops: number } | undefined;
  const walk = (token: Address, amount: bigint, seen: string[], hops: number) => {
    for (const pool of market.pools) {
      const side = pool.token0.toLowerCase() === token.toLowerCase() ? 0 : pool.token1.toLowerCase() === token.toLowerCase() ? 1 : -1;
      if (side < 0) continue;
      const other = side === 0 ? pool.token1 : pool.token0;
      if (seen.includes(other.toLowerCase())) continue;
      const { reserve0, reserve1 } = market.reserves(pool);
      const out = swapOutput(amount, side === 0 ? reserve0 : reserve1, side === 0 ? reserve1 : reserve0, pool.feeBps);
      if (out === 0n) continue;
      if (other.toLowerCase() === tokenOut.toLowerCase()) {
        const net = out - hopCost * BigInt(hops + 1);
        const bestNet = best && best.amountOut - hopCost * BigInt(best.hops);
        if (bestNet === undefined || net > bestNet || (net === bestNet && hops + 1 < (best?.hops ?? 99))) best = { amountOut: out, hops: hops + 1 };
      } else if (hops + 1 < maxHops) walk(other, out, [...seen, other.toLowerCase()], hops + 1);
    }
  };
  walk(tokenIn, amountIn, [tokenIn.toLowerCase()], 0);
  return best;
}

const priced = (market: Market, hops: readonly Hop[], amountIn: bigint) => market.pathOutput(hops, amountIn);

describe('route search', () => {
  it('equals the exhaustive best path on a generated hub graph of 200 pools, by output and net of gas', () => {
    const { market, tokens, next } = hubGraph(7, 60, 200, 4);
    let compared = 0;
    for (let i = 0; i < 150; i++) {
      const tokenIn = tokens[Math.floor(next() * tokens.length)] as Address;
      const tokenOut = tokens[Math.floor(next() * tokens.length)] as Address;
      if (tokenIn === tokenOut) continue;
      const amountIn = parseUnits(String(1 + Math.floor(next() * 50_000)), 18);
      const hopCost = i % 2 === 0 ? 0n : parseUnits(String(Math.floor(next() * 20)), 18);
      const expected = bruteForce(market, tokenIn, tokenOut, amountIn, 3, hopCost);
      const found = bestPathNow(market, tokenIn, tokenOut, amountIn, { maxHops: 3, hopCost });
      expect(found?.amountOut).toBe(expected?.amountOut);
      expect(found?.hops.length).toBe(expected?.hops);
      if (found) expect(priced(market, found.hops, amountIn)).toBe(found.amountOut);
      if (found) compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('excludes a protocol by its id: no pool of it on any path', () => {
    const { market, tokens } = hubGraph(11, 30, 120, 3);
    const [tokenIn, tokenOut] = [tokens[5] as Address, tokens[20] as Address];
    const found = bestPathNow(market, tokenIn, tokenOut, parseUnits('100', 18), { maxHops: 3, exclude: ['sushiswap'] });
    expect(found).toBeDefined();
    expect(found?.hops.every((hop) => hop.pool.protocol === 'ubeswap')).toBe(true);
    expect(found?.amountOut).toBe(
      bruteForce(
        new Market(
          market.pools.filter((pool) => pool.protocol !== 'sushiswap'),
          new Map(market.pools.map((pool) => [pool.address.toLowerCase(), market.reserves(pool)])),
        ),
        tokenIn,
        tokenOut,
        parseUnits('100', 18),
        3,
      )?.amountOut,
    );
  });

  it('excludes pools by address, and passes only through the tokens allowed: each equal to the exhaustive best of the market without them', () => {
    const { market, tokens } = hubGraph(13, 30, 120, 3);
    const [tokenIn, tokenOut] = [tokens[5] as Address, tokens[20] as Address];
    const amountIn = parseUnits('100', 18);
    const reservesOf = (pools: readonly PoolInfo[]) => new Map(pools.map((pool) => [pool.address.toLowerCase(), market.reserves(pool)]));
    const best = bestPathNow(market, tokenIn, tokenOut, amountIn, { maxHops: 3 });
    const used = (best?.hops ?? []).map((hop) => hop.pool.address);
    expect(used.length).toBeGreaterThan(0);
    // Without the best path's pools.
    const avoiding = bestPathNow(market, tokenIn, tokenOut, amountIn, { maxHops: 3, excludePools: used });
    expect(avoiding?.hops.some((hop) => used.includes(hop.pool.address))).toBe(false);
    const rest = market.pools.filter((pool) => !used.includes(pool.address));
    expect(avoiding?.amountOut).toBe(bruteForce(new Market(rest, reservesOf(rest)), tokenIn, tokenOut, amountIn, 3)?.amountOut);
    // Through the hubs only: a middle token that is not one is never on the path, and the answer is the best of
    // the pools whose tokens are hubs or an end.
    const hubs = tokens.slice(0, 3);
    const through = new Set(hubs.map((token) => token.toLowerCase()));
    const viaHubs = bestPathNow(market, tokenIn, tokenOut, amountIn, { maxHops: 3, through });
    expect(viaHubs?.hops.slice(1).every((hop) => through.has(hop.tokenIn.toLowerCase()))).toBe(true);
    const allowed = (token: Address) => through.has(token.toLowerCase()) || token === tokenIn || token === tokenOut;
    const hubPools = market.pools.filter((pool) => allowed(pool.token0) && allowed(pool.token1));
    const expected = bruteForce(new Market(hubPools, reservesOf(hubPools)), tokenIn, tokenOut, amountIn, 3);
    expect(viaHubs?.amountOut).toBe(expected?.amountOut);
  });

  it('takes an extra hop only when it pays more than its gas', () => {
    const [a, b, c] = [1, 2, 3].map((i) => getAddress(`0x${i.toString(16).padStart(40, '0')}`)) as [Address, Address, Address];
    const pool = (n: number, token0: Address, token1: Address): PoolInfo => ({
      address: getAddress(`0x${(0xc00 + n).toString(16).padStart(40, '0')}`),
      token0,
      token1,
      feeBps: 30,
      protocol: 'ubeswap',
      adapter,
      kind,
    });
    const direct = pool(1, a, c);
    const [first, second] = [pool(2, a, b), pool(3, b, c)];
    const unit = 10n ** 18n;
    // The direct pool is a little thinner: through b pays slightly more.
    const reserves = new Map<string, PoolReserves>([
      [direct.address.toLowerCase(), { reserve0: 1_000_000n * unit, reserve1: 990_000n * unit }],
      [first.address.toLowerCase(), { reserve0: 1_000_000n * unit, reserve1: 1_000_000n * unit }],
      [second.address.toLowerCase(), { reserve0: 1_000_000n * unit, reserve1: 1_000_000n * unit }],
    ]);
    const market = new Market([direct, first, second], reserves);
    const amountIn = 1_000n * unit;
    const free = bestPathNow(market, a, c, amountIn, { maxHops: 3 });
    const gain = (free?.amountOut ?? 0n) - market.pathOutput([{ pool: direct, tokenIn: a, tokenOut: c }], amountIn);
    expect(free?.hops.length).toBe(2);
    expect(gain).toBeGreaterThan(0n);
    // A hop costing more than the second hop gains: the direct pool.
    expect(bestPathNow(market, a, c, amountIn, { maxHops: 3, hopCost: gain + 1n })?.hops.length).toBe(1);
    expect(bestPathNow(market, a, c, amountIn, { maxHops: 3, hopCost: gain - 1n })?.hops.length).toBe(2);
  });

  it('a 4-hop search on a dense graph stops at its budget with the best found so far, and HTTP is answered meanwhile', async () => {
    // 150 tokens, every pair pooled: over 6 million hops to price for an exhaustive 4-hop search, far past the budget.
    const tokens = Array.from({ length: 150 }, (_, i) => getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`));
    const list: PoolInfo[] = [];
    const reserves = new Map<string, PoolReserves>();
    for (let i = 0; i < tokens.length; i++) {
      for (let j = i + 1; j < tokens.length; j++) {
        const address = getAddress(`0x${(0xd000000 + list.length).toString(16).padStart(40, '0')}`);
        list.push({ address, token0: tokens[i] as Address, token1: tokens[j] as Address, feeBps: 30, protocol: 'ubeswap', adapter, kind });
        reserves.set(address.toLowerCase(), { reserve0: BigInt(1_000_000 + i * 7919) * 10n ** 18n, reserve1: BigInt(1_000_000 + j * 104729) * 10n ** 18n });
      }
    }
    const market = new Market(list, reserves);
    const server = createServer((_, response) => response.end('{"alive":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      let searchDone = false;
      const search = searchWithin(market, tokens[0] as Address, tokens[149] as Address, 10n ** 21n, { maxHops: 4 }, { budgetMs: 1_000 }).finally(() => {
        searchDone = true;
      });
      const health = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await health.json()).toEqual({ alive: true });
      expect(searchDone).toBe(false);
      const outcome = await search;
      expect(outcome.complete).toBe(false);
      expect(outcome.best).toBeDefined();
      // What it answers is what the path pays.
      expect(market.pathOutput(outcome.best?.hops ?? [], 10n ** 21n)).toBe(outcome.best?.amountOut);
      expect(outcome.priced).toBeLessThan(6_000_000);
    } finally {
      server.close();
    }
  });

  it('identical requests at once on the same block share one search; a later one searches again', async () => {
    const { market, tokens } = hubGraph(5, 40, 150, 4);
    let priced = 0;
    class CountingMarket extends Market {
      override neighborOutput(...args: Parameters<Market['neighborOutput']>) {
        priced++;
        return super.neighborOutput(...args);
      }
    }
    const counting = new CountingMarket(market.pools, new Map(market.pools.map((pool) => [pool.address.toLowerCase(), market.reserves(pool)])));
    const snapshot = {
      blockNumber: 7n,
      blockHash: '0xab',
      blockTimestamp: 1_800_000_000n,
      gasPrice: 0n,
      market: counting,
      partnerFees: new Map<number, bigint>(),
      unpriced: new Map<string, string>(),
    };
    const engine = new QuoteEngine({ router: adapter.address });
    const query = swapRouteQuerySchema.parse({ tokenIn: tokens[7], tokenOut: tokens[30], amountIn: parseUnits('250', 18).toString() });
    const [first, second] = await Promise.all([engine.swap(snapshot, query), engine.swap(snapshot, query)]);
    expect(second).toEqual(first);
    const once = priced;
    expect(once).toBeGreaterThan(0);
    await engine.swap(snapshot, query);
    expect(priced).toBe(2 * once);
  });
});
