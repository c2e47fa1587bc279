/**
 * The routing service over Uniswap V3 pools (real V3 bytecode on the devnet), as a user acts on its answers: quotes
 * through one V3 pool, the better of two tiers of one pair, and a path mixing V2 and V3 pools pay exactly
 * `expectedOut` when the router executes them, also when the swap crosses several initialized ticks; and the
 * service follows a pool whose price moved, or whose liquidity was added or removed, in the last block.
 */
import { type Address, type Hex, isAddressEqual, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi, uniswapV3PoolAbi } from '../../src/contracts/abi.ts';
import { swapPayloadFrom } from '../../src/contracts/payload.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import { roles } from '../../src/devnet/world-spec.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { approve, getJson, quoteRoute, trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, uniswapV3: true });

const v3Adapter = () => fork.addressBook.contracts.adapters.uniswapV3 as Address;
const v3Pool = (name: string) => {
  const pool = fork.addressBook.uniswapV3?.pools.find((candidate) => candidate.name === name);
  if (!pool) throw new Error(`no V3 pool ${name}`);
  return pool;
};

const quote = (tokenIn: string, tokenOut: string, amountIn: bigint, extra: Record<string, string> = {}) => quoteRoute(fork, tokenIn, tokenOut, amountIn, extra);

/** Executes a quote through the router with minOutputAmount = expectedOut; what the wallet paid and received. */
async function execute(route: Awaited<ReturnType<typeof quote>>) {
  const me = trader(fork);
  const tokenIn = route.details.path[0] as Address;
  const tokenOut = route.details.path.at(-1) as Address;
  await mintTo(me.address, tokenIn, route.details.inputAmount);
  await approve(fork, me, tokenIn, route.routerAddress, route.details.inputAmount);
  const [inBefore, outBefore] = [await fork.balanceOf(tokenIn, me.address), await fork.balanceOf(tokenOut, me.address)];
  await fork.confirm(
    await me.wallet.writeContract({
      address: route.routerAddress,
      abi: routerAbi,
      functionName: 'swapExactInputForOutput',
      args: [swapPayloadFrom(route.details, { minOutputAmount: route.expectedOut, to: me.address })],
    }),
  );
  return { spent: inBefore - (await fork.balanceOf(tokenIn, me.address)), received: (await fork.balanceOf(tokenOut, me.address)) - outBefore };
}

async function mintTo(to: Address, token: Address, amount: bigint) {
  const me = trader(fork);
  await fork.confirm(await me.wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [to, amount] }));
}

/** What the adapter's own view (Uniswap's libraries over the pool's storage) says a pool pays now. */
const adapterQuote = (tokenIn: string, tokenOut: string, pool: Address, amountIn: bigint) =>
  fork.publicClient.readContract({
    address: v3Adapter(),
    abi: artifacts.UniswapV3Adapter.abi,
    functionName: 'getOutputAmount',
    args: [fork.token(tokenIn), fork.token(tokenOut), amountIn, pool],
  });

const tickOf = async (pool: Address) => (await fork.publicClient.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'slot0' }))[1];

/** The hops of a route as (adapter, extras) pairs. */
const hopsOf = (route: Awaited<ReturnType<typeof quote>>) => route.details.pairs.map((adapter, i) => ({ adapter, extras: route.details.extras[i] as Hex }));

describe('routes through Uniswap V3 pools pay exactly expectedOut', () => {
  it('through the deeper of two tiers of CELO/WETH, which pays more, exactly', async () => {
    const amountIn = parseUnits('20000', 18);
    const route = await quote('CELO', 'WETH', amountIn);
    const deep = v3Pool('CELO/WETH 0.05%');
    const shallow = v3Pool('CELO/WETH 0.3%');
    expect(hopsOf(route)).toEqual([{ adapter: v3Adapter(), extras: deep.address.toLowerCase() }]);
    const [deepPays, shallowPays] = [await adapterQuote('CELO', 'WETH', deep.address, amountIn), await adapterQuote('CELO', 'WETH', shallow.address, amountIn)];
    expect(deepPays).toBeGreaterThan(shallowPays);
    expect(route.expectedOut).toBe(deepPays);
    expect(await execute(route)).toEqual({ spent: amountIn, received: route.expectedOut });
  });

  it('through the shallower tier once the deeper one pays less (its price pushed down by a large sale), exactly', async () => {
    const deep = v3Pool('CELO/WETH 0.05%');
    const shallow = v3Pool('CELO/WETH 0.3%');
    const push = await quote('CELO', 'WETH', parseUnits('900000', 18), { maxHops: '1' });
    expect(hopsOf(push)[0]?.extras).toBe(deep.address.toLowerCase());
    await execute(push);
    const amountIn = parseUnits('2000', 18);
    const [deepPays, shallowPays] = [await adapterQuote('CELO', 'WETH', deep.address, amountIn), await adapterQuote('CELO', 'WETH', shallow.address, amountIn)];
    expect(shallowPays).toBeGreaterThan(deepPays);
    const route = await quote('CELO', 'WETH', amountIn, { maxHops: '1' });
    expect(hopsOf(route)).toEqual([{ adapter: v3Adapter(), extras: shallow.address.toLowerCase() }]);
    expect(route.expectedOut).toBe(shallowPays);
    expect(await execute(route)).toEqual({ spent: amountIn, received: route.expectedOut });
  });

  it('across several initialized ticks, exactly', async () => {
    const pool = v3Pool('CELO/WETH 0.05%');
    const before = await tickOf(pool.address);
    const amountIn = parseUnits('1500000', 18);
    const route = await quote('CELO', 'WETH', amountIn, { maxHops: '1' });
    expect(hopsOf(route)[0]?.extras).toBe(pool.address.toLowerCase());
    expect(await execute(route)).toEqual({ spent: amountIn, received: route.expectedOut });
    const after = await tickOf(pool.address);
    // The 1% and 5% positions' lower ticks lie between: both were crossed.
    const crossed = await fork.publicClient.getContractEvents({ address: pool.address, abi: uniswapV3PoolAbi, eventName: 'Mint', fromBlock: 0n });
    const lowerTicksCrossed = crossed.filter((mint) => (mint.args.tickLower as number) <= before && (mint.args.tickLower as number) > after);
    expect(lowerTicksCrossed.length).toBeGreaterThanOrEqual(2);
  });

  it('along a path mixing Uniswap V2 and V3 pools, exactly', async () => {
    const amountIn = parseUnits('3000', 18);
    const route = await quote('cEUR', 'WETH', amountIn);
    const adapters = route.details.pairs;
    expect(adapters.some((adapter) => isAddressEqual(adapter, v3Adapter()))).toBe(true);
    expect(adapters.some((adapter) => !isAddressEqual(adapter, v3Adapter()))).toBe(true);
    expect(await execute(route)).toEqual({ spent: amountIn, received: route.expectedOut });
  });
});

describe('deposits stay in Uniswap V2 pools', () => {
  it('a V3 pool is not a position a deposit can make: 400, naming it', async () => {
    const pool = v3Pool('CELO/cUSD 0.3%');
    const answer = await getJson(fork, '/earn/deposit', { tokenIn: fork.token('CELO'), tokenOut: pool.address, inputAmount: parseUnits('1000', 18) });
    expect(answer).toEqual({
      status: 400,
      body: { error: `Invalid tokenOut: ${pool.address} is not an LP or gauge token this service can route`, field: 'tokenOut' },
    });
  });
});

describe('the service follows V3 pools block by block', () => {
  const deployer = devnetAccount(roles.deployer);
  const provider = () => fork.addressBook.uniswapV3?.liquidityProvider as Address;

  it('a pool whose price moved in the last block is quoted at its new price', async () => {
    const pool = v3Pool('CELO/cUSD 0.3%');
    const amountIn = parseUnits('1000', 18);
    const first = await quote('cUSD', 'CELO', amountIn, { maxHops: '1' });
    expect(hopsOf(first)[0]?.extras).toBe(pool.address.toLowerCase());
    // A swap straight through the adapter (no router), as another trader's would be.
    const me = trader(fork);
    await mintTo(v3Adapter(), fork.token('CELO'), parseUnits('50000', 18));
    await fork.confirm(
      await me.wallet.writeContract({
        address: v3Adapter(),
        abi: artifacts.UniswapV3Adapter.abi,
        functionName: 'swap',
        args: [fork.token('CELO'), fork.token('cUSD'), me.address, pool.address],
      }),
    );
    const second = await quote('cUSD', 'CELO', amountIn, { maxHops: '1' });
    expect(second.blockNumber).toBeGreaterThan(first.blockNumber as bigint);
    expect(second.expectedOut).toBeGreaterThan(first.expectedOut);
    expect(second.expectedOut).toBe(await adapterQuote('cUSD', 'CELO', pool.address, amountIn));
    expect((await execute(second)).received).toBe(second.expectedOut);
  });

  it('liquidity added, then removed, in the last block is in the next quote', async () => {
    const pool = v3Pool('CELO/cUSD 0.3%');
    const owner = fork.wallet(deployer.privateKey);
    const amountIn = parseUnits('200000', 18);
    const first = await quote('cUSD', 'CELO', amountIn, { maxHops: '1' });
    const tick = await tickOf(pool.address);
    const [lower, upper] = [Math.floor(tick / 60) * 60 - 600, Math.floor(tick / 60) * 60 + 600];
    await mintTo(provider(), fork.token('CELO'), parseUnits('2000000', 18));
    await mintTo(provider(), fork.token('cUSD'), parseUnits('2000000', 18));
    const liquidity = 10n ** 24n;
    await fork.confirm(
      await owner.writeContract({
        address: provider(),
        abi: artifacts.V3LiquidityProvider.abi,
        functionName: 'mint',
        args: [pool.address, lower, upper, liquidity],
      }),
    );
    const deeper = await quote('cUSD', 'CELO', amountIn, { maxHops: '1' });
    expect(deeper.expectedOut).toBeGreaterThan(first.expectedOut);
    expect(deeper.expectedOut).toBe(await adapterQuote('cUSD', 'CELO', pool.address, amountIn));
    await fork.confirm(
      await owner.writeContract({
        address: provider(),
        abi: artifacts.V3LiquidityProvider.abi,
        functionName: 'burn',
        args: [pool.address, lower, upper, liquidity],
      }),
    );
    const back = await quote('cUSD', 'CELO', amountIn, { maxHops: '1' });
    expect(back.expectedOut).toBe(first.expectedOut);
    expect((await execute(back)).received).toBe(back.expectedOut);
  });
});
