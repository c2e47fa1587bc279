import { type Address, decodeFunctionData, parseEventLogs, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi } from '../../src/contracts/abi.ts';
import { swapPayloadFrom } from '../../src/contracts/payload.ts';
import { knownContractsFor, routingDataFor } from '../../src/config/chain-data.ts';
import type { PairAdapter } from '../../src/pools/kind.ts';
import { startRoutingService } from '../../src/routing/server.ts';
import { routingSetupFor } from '../../src/routing/setup.ts';
import { swapRouteSchema } from '../../src/routing-api/schemas.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { approve, getJson, partnerOf, quoteRoute, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true });

const quote = (tokenIn: string, tokenOut: string, amountIn: bigint, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  quoteRoute(fork, tokenIn, tokenOut, amountIn, extra, headers);

/** Executes a quote's details as the router's SwapPayload with minOutputAmount = expectedOut, and returns the balance change. */
async function execute(route: Awaited<ReturnType<typeof quote>>) {
  const me = trader(fork);
  const tokenIn = route.details.path[0] as Address;
  const tokenOut = route.details.path.at(-1) as Address;
  await approve(fork, me, tokenIn, route.routerAddress, route.details.inputAmount);
  const [inBefore, outBefore] = [await fork.balanceOf(tokenIn, me.address), await fork.balanceOf(tokenOut, me.address)];
  const receipt = await fork.confirm(
    await me.wallet.writeContract({
      address: route.routerAddress,
      abi: routerAbi,
      functionName: 'swapExactInputForOutput',
      args: [swapPayloadFrom(route.details, { minOutputAmount: route.expectedOut, to: me.address })],
    }),
  );
  const [event] = parseEventLogs({ abi: routerAbi, eventName: 'Swap', logs: receipt.logs });
  return {
    spent: inBefore - (await fork.balanceOf(tokenIn, me.address)),
    received: (await fork.balanceOf(tokenOut, me.address)) - outBefore,
    eventOutput: event?.args.outputAmount,
  };
}

describe('GET /routes executed on the devnet fork pays exactly expectedOut', () => {
  const matrix = [
    { tokenIn: 'CELO', tokenOut: 'cUSD', amount: parseUnits('1', 12), hops: 1, label: 'tiny, 18 decimals' },
    { tokenIn: 'cUSD', tokenOut: 'CELO', amount: parseUnits('95000', 18), hops: 1, label: 'large, 4.75% of the pool' },
    { tokenIn: 'USDC', tokenOut: 'cUSD', amount: 1n, hops: 1, label: 'one raw unit of a 6-decimal token' },
    { tokenIn: 'cUSD', tokenOut: 'USDC', amount: parseUnits('25000', 18), hops: 1, label: 'into 6 decimals' },
    { tokenIn: 'cEUR', tokenOut: 'CELO', amount: parseUnits('900', 18), hops: 2, label: 'two hops' },
    { tokenIn: 'WETH', tokenOut: 'RWD', amount: parseUnits('3', 18), hops: 2, label: 'two hops' },
    { tokenIn: 'cEUR', tokenOut: 'WETH', amount: parseUnits('1000', 18), hops: 3, label: 'three hops' },
    { tokenIn: 'USDC', tokenOut: 'RWD', amount: parseUnits('5000', 6), hops: 3, label: 'three hops from 6 decimals' },
    { tokenIn: 'RWD', tokenOut: 'cEUR', amount: parseUnits('2', 15), hops: 3, label: 'three hops, tiny' },
  ];
  for (const c of matrix) {
    it(`${c.tokenIn} → ${c.tokenOut}, ${c.label}`, async () => {
      const route = await quote(c.tokenIn, c.tokenOut, c.amount);
      expect(route.details.pairs).toHaveLength(c.hops);
      expect(route.details.path[0]).toBe(fork.token(c.tokenIn));
      expect(route.details.path.at(-1)).toBe(fork.token(c.tokenOut));
      expect(route.details.inputAmount).toBe(c.amount);
      expect(route.details.expectedOutputAmount).toBe(route.expectedOut);
      expect(route.expectedOut).toBeGreaterThan(0n);
      const { spent, received, eventOutput } = await execute(route);
      expect(spent).toBe(c.amount);
      expect(received).toBe(route.expectedOut);
      expect(eventOutput).toBe(route.expectedOut);
    });
  }

  it('uses at most maxHops hops, and says so when no route that short exists', async () => {
    const twoHops = await getJson(fork, '/routes', { tokenIn: fork.token('cEUR'), tokenOut: fork.token('WETH'), amountIn: 10n ** 18n, maxHops: 2 });
    expect(twoHops).toEqual({ status: 400, body: { error: 'No routes found' } });
    const route = await quote('WETH', 'RWD', 10n ** 18n, { maxHops: '3' });
    expect(route.details.pairs.length).toBeLessThanOrEqual(3);
  });

  it('refreshes reserves when a new block changes them, and the new quote is again exact', async () => {
    const first = await quote('CELO', 'cUSD', parseUnits('5000', 18));
    await execute(await quote('CELO', 'cUSD', parseUnits('80000', 18)));
    const second = await quote('CELO', 'cUSD', parseUnits('5000', 18));
    expect(second.expectedOut).toBeLessThan(first.expectedOut);
    expect((await execute(second)).received).toBe(second.expectedOut);
  });

  it('counts a deadline given as a duration from the latest block, and accepts absolute seconds and milliseconds', async () => {
    const now = (await fork.publicClient.getBlock()).timestamp;
    expect((await quote('CELO', 'cUSD', 10n ** 18n)).details.deadline).toBe(Number(now) + 300);
    expect((await quote('CELO', 'cUSD', 10n ** 18n, { deadlineMs: '60000' })).details.deadline).toBe(Number(now) + 60);
    const at = Number(now) + 1234;
    expect((await quote('CELO', 'cUSD', 10n ** 18n, { deadlineMs: String(at) })).details.deadline).toBe(at);
    expect((await quote('CELO', 'cUSD', 10n ** 18n, { deadlineMs: String(at * 1000 + 999) })).details.deadline).toBe(at);
  });

  it('reports minimumExpectedOut from slippage and a price impact that grows with size', async () => {
    const small = await quote('CELO', 'cUSD', parseUnits('10', 18), { slippage: '50', priceImpact: 'true' });
    expect(small.minimumExpectedOut).toBe((small.expectedOut * 9950n) / 10000n);
    const large = await quote('CELO', 'cUSD', parseUnits('400000', 18), { priceImpact: 'true' });
    expect(large.minimumExpectedOut).toBe((large.expectedOut * 9990n) / 10000n);
    // A tiny trade loses about the 0.3% pool fee; a tenth of the pool loses about 9% more.
    expect(Number(small.priceImpact?.numerator) / 1e18).toBeCloseTo(0.003, 4);
    expect(Number(large.priceImpact?.numerator) / 1e18).toBeGreaterThan(0.09);
    expect(large.priceImpact?.denominator).toBe(10n ** 18n);
  });
});

describe('partners', () => {
  it('with a key, the answer carries the partner id and a signature, and the router pays the partner its fee', async () => {
    const partner = partnerOf(fork);
    const amount = parseUnits('2000', 18);
    const unsigned = await quote('CELO', 'cUSD', amount);
    const signed = await quote('CELO', 'cUSD', amount, {}, { 'x-api-key': partner.apiKey });
    expect(signed.details.partner).toBe(partner.id);
    expect(signed.details.sig).toMatch(/^0x[0-9a-f]{130}$/);
    const gross = unsigned.expectedOut;
    const fee = (gross * partner.feeNumerator) / 10_000_000_000n;
    expect(fee).toBeGreaterThan(0n);
    expect(signed.expectedOut).toBe(gross - fee);

    const cUSD = fork.token('cUSD');
    const adminBefore = await fork.balanceOf(cUSD, partner.admin);
    expect((await execute(signed)).received).toBe(gross - fee);
    expect(await fork.balanceOf(cUSD, partner.admin)).toBe(adminBefore + fee);
  });

  it('without a key: partner 0, an empty sig, and nothing for the partner', async () => {
    const partner = partnerOf(fork);
    const route = await quote('CELO', 'cUSD', parseUnits('2000', 18));
    expect(route.details.partner).toBe(0);
    expect(route.details.sig).toBe('0x');
    const adminBefore = await fork.balanceOf(fork.token('cUSD'), partner.admin);
    expect((await execute(route)).received).toBe(route.expectedOut);
    expect(await fork.balanceOf(fork.token('cUSD'), partner.admin)).toBe(adminBefore);
  });

  it('counts quotes and input volume per key at GET /partners/volume', async () => {
    const partner = partnerOf(fork);
    const headers = { 'x-api-key': partner.apiKey };
    const before = await getJson(fork, '/partners/volume', {}, headers);
    await quote('CELO', 'cUSD', 10n ** 15n, {}, headers);
    await quote('CELO', 'cEUR', 2n * 10n ** 15n, {}, headers);
    await quote('cUSD', 'CELO', 5n * 10n ** 15n, {}, headers);
    const after = await getJson(fork, '/partners/volume', {}, headers);
    const volume = (body: typeof after.body, symbol: string) => BigInt((body.volume as Record<string, string>)[fork.token(symbol)] ?? '0');
    expect(after.body.partner).toBe(partner.id);
    expect(after.body.quotes).toBe((before.body.quotes as number) + 3);
    expect(volume(after.body, 'CELO') - volume(before.body, 'CELO')).toBe(3n * 10n ** 15n);
    expect(volume(after.body, 'cUSD') - volume(before.body, 'cUSD')).toBe(5n * 10n ** 15n);
    expect((await getJson(fork, '/partners/volume')).status).toBe(401);
  });
});

function decodeSwap(data: `0x${string}`) {
  const decoded = decodeFunctionData({ abi: routerAbi, data });
  if (decoded.functionName !== 'swapExactInputForOutput') throw new Error(`txn calls ${decoded.functionName}`);
  return decoded;
}

describe('the ready-to-sign transaction (`from` given)', () => {
  it('is the router call for this quote with our recipient and the slippage floor, and it executes', async () => {
    const me = trader(fork);
    const amount = parseUnits('750', 18);
    const route = await quote('cEUR', 'CELO', amount, { from: me.address, slippage: '100' });
    if (!route.txn || 'error' in route.txn) throw new Error('no ready transaction in the answer');
    expect(route.txn.to).toBe(route.routerAddress);
    expect(route.txn.from).toBe(me.address);
    const { args } = decodeSwap(route.txn.data);
    expect(args[0]).toEqual(swapPayloadFrom(route.details, { minOutputAmount: (route.expectedOut * 9900n) / 10000n, to: me.address }));

    await approve(fork, me, fork.token('cEUR'), route.routerAddress, amount);
    const celoBefore = await fork.balanceOf(fork.token('CELO'), me.address);
    await fork.confirm(await me.wallet.sendTransaction({ to: route.txn.to, data: route.txn.data, gas: route.txn.gas, value: route.txn.value }));
    expect(await fork.balanceOf(fork.token('CELO'), me.address)).toBe(celoBefore + route.expectedOut);
  });

  it('pays `to` when given instead of `from`', async () => {
    const me = trader(fork);
    const friend = trader(fork, 1).address;
    const route = await quote('CELO', 'cUSD', 10n ** 18n, { from: me.address, to: friend });
    if (!route.txn || 'error' in route.txn) throw new Error('no ready transaction in the answer');
    expect(decodeSwap(route.txn.data).args[0].to).toBe(friend);
  });
});

describe('GET /tokens', () => {
  it("lists every token of a routable pool, named where the chain's data names it, and refuses another chain", async () => {
    const { status, body } = await getJson(fork, '/tokens', { chainId: fork.addressBook.chainId });
    expect(status).toBe(200);
    const listed = body.tokens as { address: string; symbol?: string; decimals?: number; chainId: number }[];
    const pooled = new Set(fork.addressBook.pools.flatMap((pool) => [pool.token0, pool.token1]));
    expect(listed.map((token) => token.symbol).sort()).toEqual([...pooled].sort());
    expect(listed.find((token) => token.symbol === 'USDC')).toEqual({
      address: fork.token('USDC'),
      symbol: 'USDC',
      decimals: 6,
      chainId: fork.addressBook.chainId,
    });
    const other = await getJson(fork, '/tokens', { chainId: 1 });
    expect([other.status, other.body]).toEqual([
      400,
      { error: `Invalid chainId: 1 is not supported; this service quotes chain ${fork.addressBook.chainId}`, field: 'chainId' },
    ]);
  });
});

describe("Uniswap V2 as Celo's chain data gives it", () => {
  it("is routed through Swappa's published PairUniswapV2 (fee byte in bips) from the factory entry, and the route pays exactly its quote", async () => {
    // Celo's built-in entry: its own factory and the standard Uniswap V2 pair init code hash, protocol id uniswap-v2.
    const celo = routingDataFor(42220);
    const entry = celo.factories.find((factory) => factory.protocol === 'uniswap-v2');
    expect(entry).toEqual({ address: '0x79a530c8e2fA8748B7B40dd3629C0520c2cCf03f', protocol: 'uniswap-v2', kind: 'uniswap-v2', feeBps: 30 });
    const known = knownContractsFor(42220).factories.find((factory) => factory.address === entry?.address);
    // The devnet's factory is the same published build: its pairs are at the addresses Celo's hash gives.
    expect(known?.initCodeHash).toBe(fork.addressBook.contracts.uniswapV2PairInitCodeHash);
    expect(celo.adapters['uniswap-v2']).toEqual({ address: '0x202019eD34aBD85Af1e54Ec47E9AA558e6990b1C', kind: 'uniswap-v2', feeUnit: 'bips' });
    // That entry and adapter, at the devnet's addresses of the same code (Swappa's build of PairUniswapV2).
    const swappaV2 = fork.addressBook.routingService?.bipsAdapter as Address;
    const setup = routingSetupFor(fork.addressBook.chainId, fork.addressBook.rpcUrl, fork.addressBook);
    const factory = {
      ...(entry as NonNullable<typeof entry>),
      address: fork.addressBook.contracts.uniswapV2Factory as Address,
      adapter: { ...(celo.adapters['uniswap-v2'] as PairAdapter), address: swappaV2 },
    };
    const service = await startRoutingService({ ...setup, factories: [factory], adapterOverride: undefined, port: 0 });
    try {
      const amountIn = parseUnits('2500', 18);
      const response = await fetch(
        `${service.url}/routes?${new URLSearchParams({ tokenIn: fork.token('cUSD'), tokenOut: fork.token('CELO'), amountIn: amountIn.toString() })}`,
      );
      const route = swapRouteSchema.parse(await response.json());
      expect(route.details.pairs).toEqual([swappaV2]);
      // The fee byte counts basis points: 30 for 0.3% (0x1e).
      expect(route.details.extras[0]?.slice(-2)).toBe('1e');
      const { spent, received } = await execute(route);
      expect([spent, received]).toEqual([amountIn, route.expectedOut]);
    } finally {
      await service.close();
    }
  });
});
