/**
 * The routing service while Mento's governance changes the venues under it, as it does on Celo (MGP-14 destroyed
 * exchanges; new exchanges and fixed-price pools are created): a venue whose views revert (its rate feed taken off the
 * BreakerBox) is that venue's alone, every other venue quoted and kept fresh in the same block; a destroyed exchange is
 * never proposed; an exchange or a fixed-price pool created while the service runs is routed as soon as it can trade,
 * without a reload. Every route taken is executed and pays exactly `expectedOut`: the service priced the chain as it is.
 */
import { type Address, type Hex, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { mentoExchangeKey, readMentoExtras } from '../../src/pools/mento/kind.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { onAWeekday } from '../helpers/fx-clock.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { createExchange, deployFixedPricePool, destroyExchange, exchangeIdOf, removeRateFeed, setOracleAdapter } from '../helpers/mento-governance.ts';
import { executeRoute, getJson, quoteRoute, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, mento: true });
type Route = Awaited<ReturnType<typeof quoteRoute>>;

const adapter = (name: 'mentoV2' | 'mentoFpmm') => (fork.addressBook.contracts.adapters[name] as Address).toLowerCase();
/** The exchange ids of a route's hops through Mento v2. */
const exchangesOf = (route: Route): Hex[] =>
  route.details.pairs.flatMap((pair, i) => {
    if (pair.toLowerCase() !== adapter('mentoV2')) return [];
    const hop = readMentoExtras(route.details.extras[i] as Hex);
    return typeof hop === 'string' ? [] : [hop.exchangeId.toLowerCase() as Hex];
  });
const rateFeed = (name: string) => fork.addressBook.mento?.rateFeeds.find((feed) => feed.name === name)?.id as Address;

async function mint(symbol: string, amount: bigint) {
  const me = trader(fork);
  await fork.confirm(
    await me.wallet.writeContract({ address: fork.token(symbol), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me.address, amount] }),
  );
}

/** A quote that the router then pays to the wei: the service priced the chain as it is at the quote's block. */
async function quotedAndPaid(tokenIn: string, tokenOut: string, amountIn: bigint): Promise<Route> {
  const route = await quoteRoute(fork, tokenIn, tokenOut, amountIn);
  expect(await executeRoute(fork, route)).toBe(route.expectedOut);
  return route;
}

describe('a venue that changes stops no other', () => {
  it('a rate feed taken off the BreakerBox: its exchange is left out, every other venue quoted and fresh in the next blocks', async () => {
    const celoExchange = exchangeIdOf(fork, 'cUSD/CELO').toLowerCase();
    const usdcExchange = exchangeIdOf(fork, 'cUSD/USDC').toLowerCase();
    expect(exchangesOf(await quoteRoute(fork, 'cUSD', 'CELO', parseUnits('1000', 18)))).toEqual([celoExchange]);
    // CELO's feed id is the dollar stable's address (as on Celo): its trading mode now reverts for the exchange.
    await removeRateFeed(fork, fork.token('cUSD'));
    const withoutMento = await quotedAndPaid('cUSD', 'CELO', parseUnits('1000', 18));
    expect(exchangesOf(withoutMento)).toEqual([]);
    // The service's health names what it leaves out, and why; it stays ready.
    const provider = fork.addressBook.mento?.biPoolManager as Address;
    const health = await getJson(fork, '/');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ alive: true, state: 'ready' });
    expect(health.body.unroutable).toEqual([
      { pool: mentoExchangeKey(provider, celoExchange as Hex), reason: expect.stringMatching(/^getRateFeedTradingMode on 0x[0-9a-fA-F]{40} reverted/) },
    ]);
    // The other feed's exchange is still quoted, and the pools the swap above moved are priced as they are now.
    expect(exchangesOf(await quotedAndPaid('cUSD', 'USDC', parseUnits('20000', 18)))).toEqual([usdcExchange]);
    const again = await quotedAndPaid('cUSD', 'CELO', parseUnits('1000', 18));
    expect(again.expectedOut).toBeLessThan(withoutMento.expectedOut);
  });

  it('an exchange destroyed by governance: never proposed again, the other exchanges and the pools quoted exactly', async () => {
    const celoExchange = exchangeIdOf(fork, 'cUSD/CELO').toLowerCase();
    expect(exchangesOf(await quoteRoute(fork, 'cUSD', 'CELO', parseUnits('1000', 18)))).toEqual([celoExchange]);
    await destroyExchange(fork, celoExchange as Hex);
    expect(exchangesOf(await quotedAndPaid('cUSD', 'CELO', parseUnits('1000', 18)))).toEqual([]);
    expect(exchangesOf(await quotedAndPaid('cUSD', 'USDC', parseUnits('20000', 18)))).toEqual([exchangeIdOf(fork, 'cUSD/USDC').toLowerCase()]);
  });
});

describe("a pool's settings that break it", () => {
  it('an owner sets a pool an oracle adapter whose views revert: that pool is left out, every other venue quoted; set back, it is routed again', async () => {
    await onAWeekday(fork);
    const usdPool = fork.addressBook.mento?.fixedPricePools.find((entry) => entry.name === 'cUSD/USDC')?.address as Address;
    const large = parseUnits('260000', 6);
    await mint('USDC', large * 3n);
    const throughPool = (route: Route) => route.details.extras.some((extras) => extras === usdPool.toLowerCase());
    expect(throughPool(await quoteRoute(fork, 'USDC', 'cUSD', large))).toBe(true);
    // The router has none of an oracle adapter's views: every one of them reverts.
    await setOracleAdapter(fork, usdPool, fork.addressBook.contracts.router);
    expect(exchangesOf(await quotedAndPaid('cUSD', 'CELO', parseUnits('1000', 18)))).toEqual([exchangeIdOf(fork, 'cUSD/CELO').toLowerCase()]);
    expect(throughPool(await quotedAndPaid('USDC', 'cUSD', large))).toBe(false);
    await setOracleAdapter(fork, usdPool, fork.addressBook.mento?.oracleAdapterCollateral as Address);
    expect(throughPool(await quotedAndPaid('USDC', 'cUSD', large))).toBe(true);
  });
});

describe('venues created while the service runs', () => {
  it('a Mento exchange created: routed in the block it was created in, paid exactly', async () => {
    // Warm: the service has followed the chain up to here, so the exchange can only come from the block's own logs.
    expect(exchangesOf(await quoteRoute(fork, 'cUSD', 'USDC', parseUnits('100', 18)))).toEqual([exchangeIdOf(fork, 'cUSD/USDC').toLowerCase()]);
    const created = await createExchange(fork, {
      asset0: fork.token('cUSD'),
      asset1: fork.token('USDC'),
      rateFeed: rateFeed('USDCUSD'),
      stablePoolResetSize: '50000000',
    });
    expect(await fork.publicClient.getBlockNumber()).toBe(created.blockNumber);
    const route = await quotedAndPaid('cUSD', 'USDC', parseUnits('100', 18));
    expect(exchangesOf(route)).toEqual([created.id.toLowerCase()]);
  });

  it('a Mento v3 fixed-price pool deployed: routed in the block it can first trade in (funded), paid exactly', async () => {
    await onAWeekday(fork);
    expect(await quoteRoute(fork, 'cUSD', 'USDC', parseUnits('100', 18))).toBeDefined();
    const [cUSD, USDC] = [fork.token('cUSD'), fork.token('USDC')];
    const [token0, token1] = BigInt(cUSD) < BigInt(USDC) ? [cUSD, USDC] : [USDC, cUSD];
    // The feed prices USDC in dollars: token1 per token0 only when USDC is token0.
    const pool = await deployFixedPricePool(fork, {
      token0,
      token1,
      rateFeed: rateFeed('USDCUSD'),
      invert: token0 !== USDC,
      lpFeeBps: 1,
      reserve: '1000000',
      decimals: token0 === USDC ? [6, 18] : [18, 6],
    });
    expect(await fork.publicClient.getBlockNumber()).toBe(pool.fundedAt);
    const route = await quotedAndPaid('cUSD', 'USDC', parseUnits('100', 18));
    expect(route.details.pairs.map((pair) => pair.toLowerCase())).toEqual([adapter('mentoFpmm')]);
    expect(route.details.extras).toEqual([pool.address.toLowerCase()]);
  });
});
