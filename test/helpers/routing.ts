/** Talking to the local routing service over real HTTP, and acting on its answers as a user would. */
import { expect } from 'vitest';
import { type Address, type Hex, erc20Abi } from 'viem';
import { routerAbi } from '../../src/contracts/abi.ts';
import { swapPayloadFrom } from '../../src/contracts/payload.ts';
import { swapRouteSchema } from '../../src/routing-api/schemas.ts';
import type { DevnetFork } from './devnet.ts';

export type HttpAnswer = { status: number; body: Record<string, unknown> & { error?: string; field?: string } };

export async function getJson(
  fork: DevnetFork,
  path: string,
  params: Record<string, string | number | bigint> = {},
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const url = new URL(path, fork.addressBook.routingServiceUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  expect(response.headers.get('content-type')).toContain('application/json');
  return { status: response.status, body: (await response.json()) as HttpAnswer['body'] };
}

import { trader } from '../../support/traders.ts';

export { trader };

export async function approve(fork: DevnetFork, owner: { wallet: ReturnType<DevnetFork['wallet']> }, token: Address, spender: Address, amount: bigint) {
  await fork.confirm(await owner.wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [spender, amount] }));
}

export function partnerOf(fork: DevnetFork) {
  const partner = fork.addressBook.partners?.[0];
  if (!partner?.apiKey) throw new Error('the devnet has no partner with an API key');
  return { ...partner, apiKey: partner.apiKey, feeNumerator: BigInt(partner.feeNumerator) };
}

export const hexOf = (value: unknown) => value as Hex;

/** A swap quote from GET /routes for two tokens by symbol, which must answer 200. */
export async function quoteRoute(
  fork: DevnetFork,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const { status, body } = await getJson(fork, '/routes', { tokenIn: fork.token(tokenIn), tokenOut: fork.token(tokenOut), amountIn, ...extra }, headers);
  expect(status, JSON.stringify(body)).toBe(200);
  return swapRouteSchema.parse(body);
}

/** Executes a quoted route through the router from the first funded account (approving it first): what it received. */
export async function executeRoute(fork: DevnetFork, route: Awaited<ReturnType<typeof quoteRoute>>): Promise<bigint> {
  const me = trader(fork);
  const tokenIn = route.details.path[0] as Address;
  const tokenOut = route.details.path.at(-1) as Address;
  await approve(fork, me, tokenIn, route.routerAddress, route.details.inputAmount);
  const before = await fork.balanceOf(tokenOut, me.address);
  await fork.confirm(
    await me.wallet.writeContract({
      address: route.routerAddress,
      abi: routerAbi,
      functionName: 'swapExactInputForOutput',
      args: [swapPayloadFrom(route.details, { minOutputAmount: route.expectedOut, to: me.address })],
    }),
  );
  return (await fork.balanceOf(tokenOut, me.address)) - before;
}
