/**
 * Busy Uniswap V3 pools that keep Uniswap's default oracle (one observation), as most of Celo's do: a trade within the
 * window leaves no mean of their own over it. The daemon holds a hop through such a pool to the independent reference
 * (docs/safety.md), and its routing service proposes none it would refuse for a reason the service can know; a route
 * refused for one pool's state is asked for again without that pool. Real V3 bytecode; the devnet's deep cUSD/WETH
 * 0.3% pool keeps one observation, as the world spec deploys it.
 */
import { type Address, type Hex, getAddress, parseEventLogs, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { uniswapV3PoolAbi } from '../../src/contracts/abi.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { readV3PoolState } from '../../src/pools/uniswap-v3/state.ts';
import { swapExactIn } from '../../src/pools/uniswap-v3/math.ts';
import { startDevnetRoutingService } from '../../src/devnet/devnet.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { swapTrade, testExecutor } from '../helpers/engine.ts';
import { swapInPool, tradeVolume, v3Pool } from '../../support/positions.ts';
import { trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, uniswapV3: true });

/** A GET of the routing service's, as JSON. */
const getJson = async (url: string) => ({ body: (await (await fetch(url, { headers: { accept: 'application/json' } })).json()) as unknown });

/** Checksummed, one address at a time (`map(getAddress)` would pass the index as a chain id). */
const checksummed = (address: Address) => getAddress(address);

const busyPool = () => v3Pool(fork, ['cUSD', 'WETH'], 3000);
const me = () => fork.addressBook.accounts[0]?.address as Address;
/** WETH per cUSD at the world's prices (the feeds report them): $1 / $3,000. */
const referenceWethPerCusd = 1 / 3000;

let slot = 0;
/** A DCA slot: 1,000 cUSD for WETH. */
const buyWeth = () => swapTrade(fork, 'busy', `${++slot}`, { tokenIn: fork.token('cUSD'), tokenOut: fork.token('WETH'), amountIn: parseUnits('1000', 18) });

/** Whether the pool's own oracle answers its mean over the last 10 minutes now. */
const reachesWindow = (pool: Address) =>
  fork.publicClient.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'observe', args: [[600, 0]] }).then(
    () => true,
    () => false,
  );

async function cardinalityOf(pool: Address): Promise<number> {
  const [, , , cardinality] = await fork.publicClient.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'slot0' });
  return cardinality;
}

/** Ordinary volume both ways in the pool from account 1: its one observation rewritten, its price about where it was. */
async function makeBusy(pool = busyPool()) {
  // $40,000 each way: enough to move the price across ticks, so that the pool writes its observation.
  await tradeVolume(fork, pool, { account: 1, size: parseUnits(pool.token0 === 'WETH' ? '13' : '40000', 18), rounds: 1 });
}

/** The pool's WETH per cUSD now, as a float. */
async function wethPerCusd(pool = busyPool()): Promise<number> {
  const [sqrtPriceX96] = await fork.publicClient.readContract({ address: pool.address, abi: uniswapV3PoolAbi, functionName: 'slot0' });
  const price0 = (Number(sqrtPriceX96) / 2 ** 96) ** 2;
  return pool.token0 === 'cUSD' ? price0 : 1 / price0;
}

/**
 * What must be sold of `sell` (a symbol of the pool) in one swap to bring its WETH per cUSD to `target`, by our own
 * V3 arithmetic over the pool's state now.
 */
async function amountToReach(pool: ReturnType<typeof busyPool>, sell: 'cUSD' | 'WETH', target: number): Promise<bigint> {
  const state = await readV3PoolState(fork.publicClient, pool.address, pool.tickSpacing, await fork.publicClient.getBlockNumber());
  const zeroForOne = pool.token0 === sell;
  const price0 = pool.token0 === 'cUSD' ? target : 1 / target;
  const targetSqrt = BigInt(Math.floor(Math.sqrt(price0) * 2 ** 96));
  const passes = (amount: bigint) => {
    const swapped = swapExactIn(state, { fee: pool.fee, tickSpacing: pool.tickSpacing }, zeroForOne, amount);
    if (!swapped) return true;
    return zeroForOne ? swapped.sqrtPriceX96 <= targetSqrt : swapped.sqrtPriceX96 >= targetSqrt;
  };
  let [low, high] = [0n, 10n ** 18n];
  while (!passes(high)) high *= 2n;
  while (high - low > 10n ** 12n) {
    const middle = (low + high) / 2n;
    if (passes(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** Account 1 sells `amount` of `sell` into the pool in one swap (minted to it first: the devnet's tokens mint to anyone). */
async function sellInto(pool: ReturnType<typeof busyPool>, sell: 'cUSD' | 'WETH', amount: bigint) {
  const { address, wallet } = trader(fork, 1);
  await fork.confirm(await wallet.writeContract({ address: fork.token(sell), abi: artifacts.TestToken.abi, functionName: 'mint', args: [address, amount] }));
  await swapInPool(fork, pool, { account: 1, sell: pool.token0 === sell ? 'token0' : 'token1', amount });
}

async function walletState() {
  return {
    nonce: await fork.publicClient.getTransactionCount({ address: me() }),
    cusd: await fork.balanceOf(fork.token('cUSD'), me()),
    weth: await fork.balanceOf(fork.token('WETH'), me()),
  };
}

/** The V3 pools the trade's transaction swapped in, and what each paid the route. */
async function v3SwapsOf(report: TradeReport): Promise<{ pool: Address; paid: bigint }[]> {
  const receipt = await fork.publicClient.getTransactionReceipt({ hash: report.txHash as Hex });
  return parseEventLogs({ abi: uniswapV3PoolAbi, eventName: 'Swap', logs: receipt.logs }).map((log) => ({
    pool: getAddress(log.address),
    paid: -(log.args.amount0 < 0n ? log.args.amount0 : log.args.amount1),
  }));
}

describe('a busy Uniswap V3 pool that keeps one oracle observation', () => {
  it('is traded through, held to the reference of its two tokens: the wallet gets exactly what the pool paid, and the reference was that', async () => {
    const pool = busyPool();
    await makeBusy();
    expect(await cardinalityOf(pool.address)).toBe(1);
    expect(await reachesWindow(pool.address)).toBe(false);
    const executor = await testExecutor(fork);
    try {
      const before = await walletState();
      const report = await runTrade(executor, buyWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const swaps = await v3SwapsOf(report);
      expect(swaps.map((swap) => swap.pool)).toEqual([getAddress(pool.address)]);
      const paidByPool = swaps[0]?.paid as bigint;
      expect(report.amountOut).toBe(paidByPool);
      expect(report.referenceOut).toBe(paidByPool);
      expect(report.minOut).toBe((paidByPool * 9_950n) / 10_000n);
      expect(await walletState()).toEqual({ nonce: before.nonce + 2, cusd: before.cusd - parseUnits('1000', 18), weth: before.weth + paidByPool });
      // At the reference: within the pool's 0.3% fee and the trade's impact of $1,000 / $3,000.
      const oracleOut = parseUnits((1000 * referenceWethPerCusd).toFixed(18), 18);
      expect(paidByPool).toBeLessThan(oracleOut);
      expect(paidByPool).toBeGreaterThan((oracleOut * 9_960n) / 10_000n);
      expect((await executor.ledger.events.list(report.intentId)).filter((event) => event.kind === 'route-refused')).toEqual([]);
    } finally {
      await executor.close();
    }
  });

  it('pushed 3% off the reference in the block before: its route is refused as manipulated and the next best taken, at a fair price', async () => {
    const pool = busyPool();
    await makeBusy();
    // WETH made 3% cheaper there than the feeds say: the routing service's best route for a WETH buyer.
    await sellInto(pool, 'WETH', await amountToReach(pool, 'WETH', referenceWethPerCusd * 1.03));
    expect((await wethPerCusd()) / referenceWethPerCusd).toBeGreaterThan(1.029);
    const executor = await testExecutor(fork);
    try {
      const before = await walletState();
      const report = await runTrade(executor, buyWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const [refused, ...more] = (await executor.ledger.events.list(report.intentId)).filter((event) => event.kind === 'route-refused');
      expect(more).toEqual([]);
      expect(refused?.details).toMatchObject({ reason: 'manipulated', venue: getAddress(pool.address), field: 'details.pairs[0]' });
      expect((refused?.details as { why?: string } | undefined)?.why).toMatch(
        /(2\.9\d|3\.0\d)% from the reference .* own oracle does not reach 600 s back \(it keeps 1 observation/,
      );
      // The route taken avoids the pool, and pays within the tolerance of the oracle: nothing lost to the push.
      const received = report.amountOut as bigint;
      expect((await v3SwapsOf(report)).map((swap) => swap.pool)).not.toContain(getAddress(pool.address));
      expect(received).toBeGreaterThan((parseUnits((1000 * referenceWethPerCusd).toFixed(18), 18) * 9_900n) / 10_000n);
      expect(await walletState()).toEqual({ nonce: before.nonce + 2, cusd: before.cusd - parseUnits('1000', 18), weth: before.weth + received });
    } finally {
      await executor.close();
    }
  });

  it('moved by more than the tolerance in the block before, though within it of the reference: refused, the next best taken', async () => {
    const pool = busyPool();
    // WETH made 0.7% dearer there over a few blocks, then 0.7% cheaper than the reference in one: a 1.4% move.
    await sellInto(pool, 'cUSD', await amountToReach(pool, 'cUSD', referenceWethPerCusd * 0.993));
    await sellInto(pool, 'WETH', await amountToReach(pool, 'WETH', referenceWethPerCusd * 1.007));
    const executor = await testExecutor(fork);
    try {
      const report = await runTrade(executor, buyWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const refused = (await executor.ledger.events.list(report.intentId)).filter((event) => event.kind === 'route-refused');
      expect(refused.map((event) => event.details)).toMatchObject([{ reason: 'manipulated', venue: getAddress(pool.address) }]);
      expect((refused[0]?.details as { why?: string } | undefined)?.why).toMatch(/moved 1\.[34]\d% in block \d+, the block before ours/);
      expect((await v3SwapsOf(report)).map((swap) => swap.pool)).not.toContain(getAddress(pool.address));
    } finally {
      await executor.close();
    }
  });
});

describe('a busy V3 pool of a token nothing independent prices', () => {
  /**
   * Token X, priced by nothing the daemon reads, with pools cUSD/X and X/WETH (0.05%) that pay 0.5% more WETH for cUSD
   * than the direct pool: the best route when they can be traded. Their oracles are left at one observation, or grown to
   * `observations` before they are made busy.
   */
  async function unpricedRoute(options: { observations?: number } = {}) {
    const { wallet } = trader(fork, 2);
    const deployed = await fork.confirm(
      await wallet.deployContract({ abi: artifacts.TestToken.abi, bytecode: artifacts.TestToken.bytecode, args: ['Unpriced', 'X', 18] }),
    );
    const x = getAddress(deployed.contractAddress as Address);
    const factory = fork.addressBook.contracts.uniswapV3Factory as Address;
    // A liquidity provider of its own (the devnet's answers to the deployer only).
    const provided = await fork.confirm(
      await wallet.deployContract({ abi: artifacts.V3LiquidityProvider.abi, bytecode: artifacts.V3LiquidityProvider.bytecode, args: [] }),
    );
    const provider = getAddress(provided.contractAddress as Address);
    const pools: { address: Address; token0: Address; token1: Address }[] = [];
    // 1 X = 1 cUSD; 1 WETH = 2,985 X (0.5% more WETH per X than the world's 3,000 cUSD). Liquidity that a 1,000 cUSD
    // trade moves a few basis points, and a swap of one WETH in X/WETH by more than a tick.
    for (const [other, xPerOther, liquidity] of [
      [fork.token('cUSD'), 1, 10n ** 25n],
      [fork.token('WETH'), 2985, 10n ** 23n],
    ] as const) {
      await fork.confirm(
        await wallet.writeContract({ address: factory, abi: artifacts.UniswapV3Factory.abi, functionName: 'createPool', args: [x, other, 500] }),
      );
      const address = await fork.publicClient.readContract({
        address: factory,
        abi: artifacts.UniswapV3Factory.abi,
        functionName: 'getPool',
        args: [x, other, 500],
      });
      const [token0, token1] = BigInt(x) < BigInt(other) ? [x, other] : [other, x];
      const price0 = token0 === x ? 1 / xPerOther : xPerOther;
      const sqrt = BigInt(Math.floor(Math.sqrt(price0) * 2 ** 96));
      await fork.confirm(await wallet.writeContract({ address, abi: artifacts.UniswapV3Pool.abi, functionName: 'initialize', args: [sqrt] }));
      for (const token of [token0, token1])
        await fork.confirm(await wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [provider, 10n ** 27n] }));
      const tick = Math.floor(Math.log(price0) / Math.log(1.0001) / 10) * 10;
      await fork.confirm(
        await wallet.writeContract({
          address: provider,
          abi: artifacts.V3LiquidityProvider.abi,
          functionName: 'mint',
          args: [address, tick - 2000, tick + 2000, liquidity],
        }),
      );
      if (options.observations)
        await fork.confirm(
          await wallet.writeContract({ address, abi: uniswapV3PoolAbi, functionName: 'increaseObservationCardinalityNext', args: [options.observations] }),
        );
      pools.push({ address, token0, token1 });
    }
    // Quiet for a window: both pools' oracles reach it. Then X/WETH trades in two blocks.
    await fork.testClient.increaseTime({ seconds: 700 });
    await fork.testClient.mine({ blocks: 1 });
    const xWeth = pools[1] as (typeof pools)[number];
    const asBookPool = {
      ...xWeth,
      token0: xWeth.token0 === x ? 'X' : 'WETH',
      token1: xWeth.token1 === x ? 'X' : 'WETH',
      fee: 500,
      tickSpacing: 10,
      name: 'X/WETH',
    };
    return { x, pools, xWeth: xWeth.address, busy: () => tradeInXWeth(asBookPool, x) };
  }

  /** Volume both ways in the X/WETH pool, in two blocks, from account 2: each moves its price by about 0.5%, across ticks. */
  async function tradeInXWeth(pool: { address: Address; token0: string; token1: string }, x: Address) {
    const { address, wallet } = trader(fork, 2);
    const adapter = fork.addressBook.contracts.adapters.uniswapV3 as Address;
    for (const [sold, bought, amount] of [
      [x, fork.token('WETH'), parseUnits('30000', 18)],
      [fork.token('WETH'), x, parseUnits('10', 18)],
    ] as const) {
      await fork.confirm(await wallet.writeContract({ address: sold, abi: artifacts.TestToken.abi, functionName: 'mint', args: [adapter, amount] }));
      // A second apart: the oracle writes once per block time, and anvil may give two blocks the same one.
      await fork.testClient.increaseTime({ seconds: 1 });
      await fork.confirm(
        await wallet.writeContract({
          address: adapter,
          abi: artifacts.UniswapV3Adapter.abi,
          functionName: 'swap',
          args: [sold, bought, address, pool.address],
        }),
      );
    }
  }

  /**
   * A routing service and an address book that list X as a token (on the token list, which a route's middle tokens are
   * held to), with no price source for it: as a token a chain's data names without an oracle.
   */
  async function listing(x: Address) {
    const book = { ...fork.addressBook, tokens: { ...fork.addressBook.tokens, X: { address: x, decimals: 18 } } };
    const started = await startDevnetRoutingService(book);
    return { book: started.addressBook, url: started.addressBook.routingServiceUrl as string, close: () => started.service.close() };
  }

  const routeOf = async (serviceUrl: string, amountIn = parseUnits('1000', 18)) => {
    const url = new URL('/routes', serviceUrl);
    for (const [name, value] of Object.entries({ tokenIn: fork.token('cUSD'), tokenOut: fork.token('WETH'), amountIn: amountIn.toString() }))
      url.searchParams.set(name, value);
    return (await getJson(url.toString())) as { body: { details: { path: Address[]; extras: Hex[] } } };
  };

  it('is not proposed by the routing service while its one observation is within the window, and is once the window passed without a trade', async () => {
    const { x, xWeth, busy } = await unpricedRoute();
    const service = await listing(x);
    try {
      // Quiet: the route through X pays more, and each of its pools has a mean of its own to be held to.
      expect((await routeOf(service.url)).body.details.path.map(checksummed)).toEqual([fork.token('cUSD'), x, fork.token('WETH')].map(checksummed));
      await busy();
      expect(await reachesWindow(xWeth)).toBe(false);
      expect((await routeOf(service.url)).body.details.path.map(checksummed)).not.toContain(x);
      const status = (await getJson(service.url)) as { body: { unpriced?: { pool: Address; reason: string }[] } };
      expect(status.body.unpriced).toEqual([
        {
          pool: getAddress(xWeth),
          reason: expect.stringMatching(
            new RegExp(
              `^Uniswap V3 pool ${getAddress(xWeth)} keeps 1 oracle observation, written \\d+ s ago, within the 600 s window, and nothing independent prices ${x}$`,
            ),
          ),
        },
      ]);
      // The window passes without a trade in it: proposed again.
      await fork.testClient.increaseTime({ seconds: 601 });
      await fork.testClient.mine({ blocks: 1 });
      expect((await routeOf(service.url)).body.details.path.map(checksummed)).toContain(x);
    } finally {
      await service.close();
    }
  });

  it('proposed anyway (an oracle of two observations, both within the window): refused no-price naming the pool, and the next best route taken', async () => {
    const { x, xWeth, busy } = await unpricedRoute({ observations: 2 });
    await busy();
    expect(await cardinalityOf(xWeth)).toBe(2);
    expect(await reachesWindow(xWeth)).toBe(false);
    const service = await listing(x);
    // The service cannot tell how far back two observations reach without reading them: it proposes the route through X.
    expect((await routeOf(service.url)).body.details.path.map(checksummed)).toContain(x);
    const executor = await testExecutor(fork, { serviceUrl: service.url, addressBook: service.book });
    try {
      const before = await walletState();
      const report = await runTrade(executor, buyWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const refused = (await executor.ledger.events.list(report.intentId)).filter((event) => event.kind === 'route-refused');
      expect(refused.map((event) => event.details)).toMatchObject([{ reason: 'no-price', venue: getAddress(xWeth), field: 'details.pairs[1]' }]);
      expect((refused[0]?.details as { why?: string } | undefined)?.why).toContain(
        `pool ${getAddress(xWeth)}'s own oracle does not reach 600 s back (it keeps 2 observations, none older than that), and nothing independent prices it: no price source is known for token ${x}`,
      );
      // The next best: the direct pool, at what it paid; the wallet paid exactly the trade.
      const swaps = await v3SwapsOf(report);
      expect(swaps.map((swap) => swap.pool)).toEqual([getAddress(busyPool().address)]);
      expect(await walletState()).toEqual({
        nonce: before.nonce + 2,
        cusd: before.cusd - parseUnits('1000', 18),
        weth: before.weth + (swaps[0]?.paid as bigint),
      });
    } finally {
      await executor.close();
      await service.close();
    }
  });
});
