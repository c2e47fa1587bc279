import { parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi } from '../../src/contracts/abi.ts';
import { createRoutingClient } from '../../src/routing-client/client.ts';
import { BadRequestError, NoRouteError, UnauthorizedError } from '../../src/routing-client/errors.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { partnerOf } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true });
const client = (apiKey?: string) =>
  createRoutingClient({ baseUrl: fork.addressBook.routingServiceUrl, apiKey, rateLimit: { requestsPerSecond: 500, maxConcurrent: 8 } });

describe('the client against the local routing service', () => {
  it('gets a swap route with bigint amounts that the router confirms', async () => {
    const amountIn = parseUnits('1500', 18);
    const route = await client().getSwapRoute({ tokenIn: fork.token('cEUR'), tokenOut: fork.token('CELO'), amountIn, slippageBps: 25 });
    expect(route.details.inputAmount).toBe(amountIn);
    expect(route.minimumExpectedOut).toBe((route.expectedOut * 9975n) / 10000n);
    const onChain = await fork.publicClient.readContract({
      address: route.routerAddress,
      abi: routerAbi,
      functionName: 'getOutputAmount',
      args: [route.details.path, route.details.pairs, route.details.extras, amountIn],
    });
    expect(route.expectedOut).toBe(onChain);
  });

  it('gets deposit and withdraw routes, and health', async () => {
    const pool = fork.addressBook.pools.find((p) => p.name === 'CELO/cUSD');
    if (!pool) throw new Error('no pool');
    const deposit = await client().getDepositRoute({ tokenIn: fork.token('CELO'), tokenOut: pool.address, inputAmount: parseUnits('100', 18) });
    expect(deposit.underlyingRoutes.reduce((sum, r) => sum + r.inputAmount, 0n)).toBe(parseUnits('100', 18));
    expect(deposit.depositData?.addr).toBe(fork.addressBook.contracts.farms.uniswapV2);
    const withdraw = await client().getWithdrawRoute({ tokenIn: pool.address, tokenOut: fork.token('cUSD'), inputAmount: 10n ** 18n });
    expect(withdraw.expectedOut).toBeGreaterThan(0n);
    expect(await client().health()).toEqual({ alive: true, state: 'ready' });
  });

  it('signs for a partner with a key, and maps the service refusals to typed errors', async () => {
    const partner = partnerOf(fork);
    const signed = await client(partner.apiKey).getSwapRoute({ tokenIn: fork.token('CELO'), tokenOut: fork.token('cUSD'), amountIn: 10n ** 18n });
    expect(signed.details.partner).toBe(partner.id);

    await expect(client('wrong').getSwapRoute({ tokenIn: fork.token('CELO'), tokenOut: fork.token('cUSD'), amountIn: 1n })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await expect(
      client().getSwapRoute({ tokenIn: fork.token('CELO'), tokenOut: fork.token('cUSD'), amountIn: 10n ** 18n, exclude: ['uniswap-v2'] }),
    ).rejects.toBeInstanceOf(NoRouteError);
    const refused = await client()
      .getSwapRoute({ tokenIn: fork.token('CELO'), tokenOut: fork.token('CELO'), amountIn: 1n })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).field).toBe('tokenOut');
  });
});
