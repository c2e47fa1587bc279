/**
 * The routing service routes through Mento v3's fixed-price pool (src/pools/mento-fpmm.ts) through our adapter
 * (PairMentoFPMM), and the router pays exactly `expectedOut`, what the pool's own `getAmountOut` gives: v2's cUSD/USDC
 * exchange (5 bps) takes what it can, the pool (8 bps on the devnet) what v2's trading limit stops; while the FX market
 * is closed the pool is not routed at all. The chain's clock is set to the day each case needs.
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { mentoFpmmAbi } from '../../src/contracts/abi.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { onAWeekday, onAWeekend } from '../helpers/fx-clock.ts';
import { executeRoute, quoteRoute, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, mento: true });
const adapterOf = (name: 'mentoV2' | 'mentoFpmm') => (fork.addressBook.contracts.adapters[name] as Address).toLowerCase();
const fixedPricePool = () => fork.addressBook.mento?.fixedPricePools[0]?.address as Address;

type Route = Awaited<ReturnType<typeof quoteRoute>>;

/** The adapters a route's hops go through, by address-book name. */
const venues = (route: Route) =>
  route.details.pairs.map(
    (pair) => Object.entries(fork.addressBook.contracts.adapters).find(([, address]) => address.toLowerCase() === pair.toLowerCase())?.[0] ?? pair,
  );

async function mintUsdc(amount: bigint) {
  const me = trader(fork);
  await fork.confirm(
    await me.wallet.writeContract({ address: fork.token('USDC'), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me.address, amount] }),
  );
}

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

  it('on a weekend (the FX market closed): the pool is not routed, the pools take the swap', async () => {
    await onAWeekend(fork);
    const large = parseUnits('260000', 6);
    await mintUsdc(large);
    const route = await quoteRoute(fork, 'USDC', 'cUSD', large);
    expect(route.details.pairs.map((pair) => pair.toLowerCase())).not.toContain(adapterOf('mentoFpmm'));
    expect(route.details.pairs.map((pair) => pair.toLowerCase())).not.toContain(adapterOf('mentoV2'));
    expect(await executeRoute(fork, route)).toBe(route.expectedOut);
  });
});
