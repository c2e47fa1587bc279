/**
 * The routing service routes through Mento's exchanges (src/pools/mento/kind.ts) beside the pools, mixed in one path,
 * through Swappa's PairMentoV2 as Swappa built it, and the router pays exactly `expectedOut` on the devnet's real
 * Mento; a swap that a trading limit or the breaker would stop is not routed through Mento.
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { readMentoExtras } from '../../src/pools/mento/kind.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { executeRoute, quoteRoute, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, mento: true });
const mentoAdapter = () => fork.addressBook.contracts.adapters.mentoV2 as Address;

/** Which hops of a route go through Mento: their exchange ids. */
const mentoHops = (route: Awaited<ReturnType<typeof quoteRoute>>) =>
  route.details.pairs.flatMap((pair, i) =>
    pair.toLowerCase() === mentoAdapter().toLowerCase() ? [readMentoExtras(route.details.extras[i] as `0x${string}`)] : [],
  );

describe('routes through Mento', () => {
  for (const c of [
    { tokenIn: 'cUSD', tokenOut: 'USDC', amount: parseUnits('20000', 18), mento: 1 },
    { tokenIn: 'USDC', tokenOut: 'cUSD', amount: parseUnits('20000', 6), mento: 1 },
    // Mento's 0.25% spread beats the pools' 0.3% fee while its bucket is deep enough (the V3 pool wins large sizes).
    { tokenIn: 'cUSD', tokenOut: 'CELO', amount: parseUnits('1000', 18), mento: 1 },
    { tokenIn: 'cEUR', tokenOut: 'cUSD', amount: parseUnits('10000', 18), mento: 1 },
    { tokenIn: 'cEUR', tokenOut: 'WETH', amount: parseUnits('10000', 18), mento: 1 },
  ]) {
    it(`${c.tokenIn} → ${c.tokenOut}: through Mento, paid exactly expectedOut`, async () => {
      const route = await quoteRoute(fork, c.tokenIn, c.tokenOut, c.amount);
      expect(mentoHops(route)).toHaveLength(c.mento);
      expect(await executeRoute(fork, route)).toBe(route.expectedOut);
    });
  }

  it('does not route through an exchange whose rate feed the breaker halts, nor past a trading limit', async () => {
    const me = trader(fork);
    expect(mentoHops(await quoteRoute(fork, 'cUSD', 'CELO', parseUnits('1000', 18)))).toHaveLength(1);
    // 260,000 USDC into the Reserve within five minutes is past the USDC limit L0 (250,000): the pools take it.
    const large = parseUnits('260000', 6);
    await fork.confirm(
      await me.wallet.writeContract({ address: fork.token('USDC'), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me.address, large] }),
    );
    const pastLimit = await quoteRoute(fork, 'USDC', 'cUSD', large);
    expect(mentoHops(pastLimit)).toHaveLength(0);
    expect(await executeRoute(fork, pastLimit)).toBe(pastLimit.expectedOut);
    // CELO's rate jumps 10%: the median-delta breaker halts the CELO feed, and with it Mento's cUSD/CELO exchange.
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.55 });
    const halted = await quoteRoute(fork, 'cUSD', 'CELO', parseUnits('1000', 18));
    expect(mentoHops(halted)).toHaveLength(0);
    expect(await executeRoute(fork, halted)).toBe(halted.expectedOut);
  });
});
