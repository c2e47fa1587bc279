/**
 * GET /routes/split (our extension): an amount shared among routes through disjoint pools, in one block. On the
 * devnet's Uniswap V2 world, 100,000 cUSD into CELO: the direct CELO/cUSD pool and the path through USDC and WETH
 * share it, paying more than the best single route; each route is the one GET /routes gives for its part without the
 * other's pools, and executed one after the other on the same block's state they pay what they quoted.
 */
import { parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { splitRouteSchema } from '../../src/routing-api/schemas.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { executeRoute, getJson, quoteRoute } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true });
/** A hop's pool: the first 20 bytes of its extras, as every adapter here packs them. */
const poolsOf = (route: { details: { extras: readonly string[] } }) => route.details.extras.map((extra) => extra.slice(0, 42).toLowerCase());

const split = async (amountIn: bigint, extra: Record<string, string> = {}) => {
  const { status, body } = await getJson(fork, '/routes/split', { tokenIn: fork.token('cUSD'), tokenOut: fork.token('CELO'), amountIn, ...extra });
  expect(status, JSON.stringify(body)).toBe(200);
  return splitRouteSchema.parse(body);
};

describe('an amount split across routes in one block', () => {
  it('shares 100,000 cUSD between disjoint routes, paying more than the best one route; each pays what it quoted', async () => {
    const amountIn = parseUnits('100000', 18);
    const single = await quoteRoute(fork, 'cUSD', 'CELO', amountIn);
    const answer = await split(amountIn);
    expect(answer.routes.length).toBeGreaterThanOrEqual(2);
    expect(answer.routes.reduce((sum, { amountIn: part }) => sum + part, 0n)).toBe(amountIn);
    expect(answer.expectedOut).toBeGreaterThan(single.expectedOut);
    // Disjoint: no pool in two routes.
    const pools = answer.routes.flatMap(({ pools: named }) => named.map((pool) => pool.toLowerCase()));
    expect(answer.routes.flatMap(({ route }) => poolsOf(route))).toEqual(pools);
    expect(new Set(pools).size).toBe(pools.length);
    // Each route is GET /routes' answer for its part without the other routes' pools.
    for (const { amountIn: part, route } of answer.routes) {
      const others = answer.routes.filter((other) => other.route !== route).flatMap((other) => poolsOf(other.route));
      const alone = await quoteRoute(fork, 'cUSD', 'CELO', part, { excludePools: others.join(',') });
      expect(alone.expectedOut).toBe(route.expectedOut);
      expect(alone.details.path).toEqual(route.details.path);
    }
    // Sent one after the other, each pays what it quoted: their pools are not each other's.
    let received = 0n;
    for (const { route } of answer.routes) received += await executeRoute(fork, route);
    expect(received).toBe(answer.expectedOut);
  });

  it('keeps a small amount on one route, the answer of GET /routes', async () => {
    const amountIn = parseUnits('100', 18);
    const [single, answer] = [await quoteRoute(fork, 'cUSD', 'CELO', amountIn), await split(amountIn)];
    expect(answer.routes.map(({ amountIn: part, route }) => [part, route.expectedOut, route.details.path])).toEqual([
      [amountIn, single.expectedOut, single.details.path],
    ]);
  });
});
