import { type Address, parseUnits, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { oneClickFarmAbi, oneClickWithdrawAbi } from '../../src/contracts/abi.ts';
import { swapPayloadFrom } from '../../src/contracts/payload.ts';
import { type EarnRoute, earnRouteSchema } from '../../src/routing-api/schemas.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { approve, getJson, partnerOf, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true });

const poolAddress = (name: string) => {
  const pool = fork.addressBook.pools.find((p) => p.name === name);
  if (!pool) throw new Error(`no pool ${name}`);
  return pool;
};
const gaugeAddress = (name: string) => {
  const gauge = fork.addressBook.contracts.gauges[name];
  if (!gauge) throw new Error(`no gauge ${name}`);
  return gauge.address;
};

async function earnQuote(kind: 'deposit' | 'withdraw', tokenIn: Address, tokenOut: Address, inputAmount: bigint, headers: Record<string, string> = {}) {
  const { status, body } = await getJson(fork, `/earn/${kind}`, { tokenIn, tokenOut, inputAmount }, headers);
  expect(status, JSON.stringify(body)).toBe(200);
  return earnRouteSchema.parse(body);
}

const payloads = (route: EarnRoute) =>
  route.underlyingRoutes.map((detail) => swapPayloadFrom(detail, { minOutputAmount: detail.expectedOutputAmount, to: zeroAddress }));

function farmCall(route: EarnRoute) {
  if (!route.depositData) throw new Error('the answer has no depositData');
  return route.depositData;
}

async function executeDeposit(route: EarnRoute, tokenIn: Address) {
  const me = trader(fork);
  const total = route.underlyingRoutes.reduce((sum, detail) => sum + detail.inputAmount, 0n);
  await approve(fork, me, tokenIn, route.oneClickFarmAddress, total);
  const { addr, extra } = farmCall(route);
  await fork.confirm(
    await me.wallet.writeContract({
      address: route.oneClickFarmAddress,
      abi: oneClickFarmAbi,
      functionName: 'oneClickDeposit',
      args: [payloads(route), route.routerAddress, addr, route.expectedOut, me.address, extra],
    }),
  );
  return total;
}

async function executeWithdraw(route: EarnRoute, position: Address, amount: bigint, tokenOut: Address) {
  const me = trader(fork);
  await approve(fork, me, position, route.oneClickFarmAddress, amount);
  const { addr, extra } = farmCall(route);
  await fork.confirm(
    await me.wallet.writeContract({
      address: route.oneClickFarmAddress,
      abi: oneClickWithdrawAbi,
      functionName: 'oneClickWithdraw',
      args: [position, amount, addr, extra, payloads(route), route.routerAddress, tokenOut, route.expectedOut, me.address],
    }),
  );
}

const balances = (tokens: Address[]) => Promise.all(tokens.map((token) => fork.balanceOf(token, trader(fork).address)));

describe('GET /earn/deposit executed through OneClickFarm', () => {
  const cases = [
    { tokenIn: 'cEUR', pool: 'CELO/cUSD', gauge: false, amount: parseUnits('5000', 18), label: 'two swap legs into an LP' },
    {
      tokenIn: 'CELO',
      pool: 'CELO/cUSD',
      gauge: true,
      amount: parseUnits('30000', 18),
      label: 'one underlying kept, one swapped through the same pool, into the gauge',
    },
    { tokenIn: 'USDC', pool: 'CELO/WETH', gauge: false, amount: parseUnits('12000', 6), label: 'from 6 decimals over multi-hop legs' },
  ];
  for (const c of cases) {
    it(`mints exactly expectedOut and leaves almost nothing over: ${c.tokenIn}, ${c.label}`, async () => {
      const pool = poolAddress(c.pool);
      const target = c.gauge ? gaugeAddress(c.pool) : pool.address;
      const tokenIn = fork.token(c.tokenIn);
      const route = await earnQuote('deposit', tokenIn, target, c.amount);
      expect(route.underlyingRoutes).toHaveLength(2);
      expect(route.underlyingRoutes.map((d) => d.path.at(-1))).toEqual([fork.token(pool.token0), fork.token(pool.token1)]);

      const watched = [target, tokenIn, fork.token(pool.token0), fork.token(pool.token1)];
      const before = await balances(watched);
      expect(await executeDeposit(route, tokenIn)).toBe(c.amount);
      const after = await balances(watched);
      expect((after[0] as bigint) - (before[0] as bigint)).toBe(route.expectedOut);

      // Leftovers come back to the user; the split leaves at most a millionth of either leg unused.
      for (const [i, detail] of route.underlyingRoutes.entries()) {
        const token = detail.path.at(-1) as Address;
        const spentHere = token === tokenIn ? c.amount : 0n;
        const leftover = (after[watched.indexOf(token)] as bigint) - (before[watched.indexOf(token)] as bigint) + spentHere;
        expect(leftover, `leftover of leg ${i}`).toBeGreaterThanOrEqual(0n);
        expect(leftover * 1_000_000n, `leftover of leg ${i}`).toBeLessThanOrEqual(detail.expectedOutputAmount);
      }
    });
  }

  it('is exact with a partner key too (the router takes the partner fee on each swap leg)', async () => {
    const partner = partnerOf(fork);
    const target = gaugeAddress('CELO/cUSD');
    const route = await earnQuote('deposit', fork.token('cEUR'), target, parseUnits('3000', 18), { 'x-api-key': partner.apiKey });
    expect(route.underlyingRoutes.every((detail) => detail.partner === partner.id)).toBe(true);
    const [before] = await balances([target]);
    await executeDeposit(route, fork.token('cEUR'));
    const [after] = await balances([target]);
    expect((after as bigint) - (before as bigint)).toBe(route.expectedOut);
  });
});

describe('GET /earn/withdraw executed through the one-transaction withdraw', () => {
  const cases = [
    { pool: 'CELO/cUSD', gauge: false, tokenOut: 'cUSD', label: 'LP to one of its underlyings' },
    { pool: 'CELO/cUSD', gauge: true, tokenOut: 'USDC', label: 'gauge token to a 6-decimal token over two legs' },
    { pool: 'CELO/WETH', gauge: false, tokenOut: 'RWD', label: 'LP to a token outside the pool' },
  ];
  for (const c of cases) {
    it(`pays exactly expectedOut: ${c.label}`, async () => {
      const pool = poolAddress(c.pool);
      const position = c.gauge ? gaugeAddress(c.pool) : pool.address;
      await executeDeposit(await earnQuote('deposit', fork.token('CELO'), position, parseUnits('20000', 18)), fork.token('CELO'));
      const [held] = await balances([position]);
      const amount = ((held as bigint) * 2n) / 3n;
      const tokenOut = fork.token(c.tokenOut);

      const route = await earnQuote('withdraw', position, tokenOut, amount);
      expect(route.underlyingRoutes.every((detail) => detail.path.at(-1) === tokenOut)).toBe(true);
      const before = await balances([position, tokenOut]);
      await executeWithdraw(route, position, amount, tokenOut);
      const after = await balances([position, tokenOut]);
      expect((before[0] as bigint) - (after[0] as bigint)).toBe(amount);
      expect((after[1] as bigint) - (before[1] as bigint)).toBe(route.expectedOut);
    });
  }
});
