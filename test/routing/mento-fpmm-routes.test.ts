/**
 * The routing service routes through Mento v3's fixed-price pool (src/pools/mento-fpmm/kind.ts) through our adapter
 * (PairMentoFPMM), and the router pays exactly `expectedOut`, what the pool's own `getAmountOut` gives: v2's cUSD/USDC
 * exchange (5 bps) takes what it can, the pool (8 bps on the devnet) what v2's trading limit stops. As on Celo, the
 * collateral pool trades at weekends (its adapter's market-hours breaker has its checks off) and an FX pool does not;
 * an owner's change of adapter or breaker is followed in the next block. The chain's clock is set to the day each case
 * needs.
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { mentoFpmmAbi } from '../../src/contracts/abi.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { onAWeekday, onAWeekend } from '../helpers/fx-clock.ts';
import { setMarketHoursChecks, setOracleAdapter } from '../helpers/mento-governance.ts';
import { executeRoute, quoteRoute, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, mento: true });
const poolNamed = (name: string) => fork.addressBook.mento?.fixedPricePools.find((entry) => entry.name === name)?.address as Address;
const fixedPricePool = () => poolNamed('cUSD/USDC');
const fxPool = () => poolNamed('cUSD/cEUR');

type Route = Awaited<ReturnType<typeof quoteRoute>>;

/** The adapters a route's hops go through, by address-book name. */
const venues = (route: Route) =>
  route.details.pairs.map(
    (pair) => Object.entries(fork.addressBook.contracts.adapters).find(([, address]) => address.toLowerCase() === pair.toLowerCase())?.[0] ?? pair,
  );

async function mint(symbol: string, amount: bigint) {
  const me = trader(fork);
  await fork.confirm(
    await me.wallet.writeContract({ address: fork.token(symbol), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me.address, amount] }),
  );
}
const mintUsdc = (amount: bigint) => mint('USDC', amount);

describe("routes through Mento v3's fixed-price pool", () => {
  it("on a weekday: a swap within v2's limit goes through v2; one past it through the pool, quoted as the pool quotes and paid exactly", async () => {
    await onAWeekday(fork);
    expect(venues(await quoteRoute(fork, 'cUSD', 'USDC', parseUnits('20000', 18)))).toEqual(['mentoV2']);
    // 260,000 USDC into Mento's Reserve within five minutes is past v2's USDC limit L0 (250,000); the pool's is 300,000.
    const large = parseUnits('260000', 6);
    await mintUsdc(large);
    const route = await quoteRoute(fork, 'USDC', 'cUSD', large);
    expect(venues(route)).toEqual(['mentoFpmm']);
    expect(route.details.extras).toEqual([fixedPricePool().toLowerCase()]);
    const poolQuote = await fork.publicClient.readContract({
      address: fixedPricePool(),
      abi: mentoFpmmAbi,
      functionName: 'getAmountOut',
      args: [large, fork.token('USDC')],
    });
    expect(route.expectedOut).toBe(poolQuote);
    // 8 bps less than the rate (1 USDC = 1 cUSD on the devnet), to the wei of the pool's arithmetic.
    expect(route.expectedOut).toBe((parseUnits('260000', 18) * 9_992n) / 10_000n);
    expect(await executeRoute(fork, route)).toBe(route.expectedOut);
  });

  it('on a weekend: the collateral pool is routed (its breaker has its checks off, as on Celo), paid exactly', async () => {
    await onAWeekend(fork);
    const large = parseUnits('260000', 6);
    await mintUsdc(large);
    const route = await quoteRoute(fork, 'USDC', 'cUSD', large);
    expect(venues(route)).toEqual(['mentoFpmm']);
    expect(route.details.extras).toEqual([fixedPricePool().toLowerCase()]);
    expect(route.expectedOut).toBe((parseUnits('260000', 18) * 9_992n) / 10_000n);
    expect(await executeRoute(fork, route)).toBe(route.expectedOut);
  });

  it('an FX pool: routed on a weekday past what the v2 exchange prices well, not on a weekend', async () => {
    await onAWeekday(fork);
    const amount = parseUnits('200000', 18);
    await mint('cEUR', amount * 2n);
    const weekday = await quoteRoute(fork, 'cEUR', 'cUSD', amount);
    expect(weekday.details.extras).toEqual([fxPool().toLowerCase()]);
    expect(await executeRoute(fork, weekday)).toBe(weekday.expectedOut);
    await onAWeekend(fork);
    const weekend = await quoteRoute(fork, 'cEUR', 'cUSD', amount);
    expect(weekend.details.extras).not.toContain(fxPool().toLowerCase());
    expect(await executeRoute(fork, weekend)).toBe(weekend.expectedOut);
  });

  it("an owner's change is followed in the next block: the adapter switched, the breaker's checks turned on", async () => {
    await onAWeekend(fork);
    const large = parseUnits('260000', 6);
    await mintUsdc(large * 2n);
    const through = async () => (await quoteRoute(fork, 'USDC', 'cUSD', large)).details.extras.some((extras) => extras === fixedPricePool().toLowerCase());
    expect(await through()).toBe(true);
    await setOracleAdapter(fork, fixedPricePool(), fork.addressBook.mento?.oracleAdapter as Address);
    expect(await through()).toBe(false);
    await setOracleAdapter(fork, fixedPricePool(), fork.addressBook.mento?.oracleAdapterCollateral as Address);
    expect(await through()).toBe(true);
    await setMarketHoursChecks(fork, true);
    expect(await through()).toBe(false);
    await setMarketHoursChecks(fork, false);
    const route = await quoteRoute(fork, 'USDC', 'cUSD', large);
    expect(route.details.extras).toEqual([fixedPricePool().toLowerCase()]);
    expect(await executeRoute(fork, route)).toBe(route.expectedOut);
  });
});
