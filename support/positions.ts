/**
 * Uniswap V3 positions on the devnet, as a liquidity provider makes them: opened through the real position manager
 * from a funded account, and swap volume through the pool from another, so that fees accrue as on a real chain.
 */
import { type Address, encodePacked, erc20Abi, maxUint256, parseEventLogs, parseUnits } from 'viem';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import { tokenSpecs } from '../src/devnet/world-spec.ts';
import { positionManagerAbi } from '../src/contracts/abi.ts';
import { tickAtSqrtRatio } from '../src/pools/uniswap-v3/math.ts';
import { type PositionManagerOf, type V3Position, readV3Position } from '../src/pools/uniswap-v3/position.ts';
import type { V3PositionStrategy } from '../src/strategy/types.ts';
import type { DevnetFork } from './fork-clients.ts';
import { trader } from './traders.ts';

type V3PoolOfBook = NonNullable<DevnetFork['addressBook']['uniswapV3']>['pools'][number];

/** The devnet's V3 pool of two tokens (either order) at a fee. */
export function v3Pool(fork: DevnetFork, symbols: readonly [string, string], fee: number): V3PoolOfBook {
  const pool = fork.addressBook.uniswapV3?.pools.find(
    (candidate) => candidate.fee === fee && [candidate.token0, candidate.token1].sort().join() === [...symbols].sort().join(),
  );
  if (!pool) throw new Error(`no V3 pool of ${symbols.join(' and ')} at ${fee} on this devnet`);
  return pool;
}

/** The devnet's position manager, with the factory it makes pools of and their init code hash. */
export function positionManagerOf(fork: DevnetFork): PositionManagerOf {
  const { uniswapV3PositionManager: address, uniswapV3Factory: factory, uniswapV3PoolInitCodeHash: poolInitCodeHash } = fork.addressBook.contracts;
  if (!address || !factory || !poolInitCodeHash) throw new Error('this devnet has no Uniswap V3 position manager');
  return { address, factory, poolInitCodeHash };
}

async function poolTick(fork: DevnetFork, pool: Address): Promise<number> {
  const [sqrtPriceX96] = await fork.publicClient.readContract({ address: pool, abi: artifacts.UniswapV3Pool.abi, functionName: 'slot0' });
  return tickAtSqrtRatio(sqrtPriceX96);
}

/**
 * Opens a position of account `account` in `pool`, `halfWidthTicks` either side of the price moved by `offsetTicks`
 * (on the pool's spacing), with up to the amounts given; returns its token id and range.
 */
export async function openPosition(
  fork: DevnetFork,
  pool: V3PoolOfBook,
  options: { account?: number; halfWidthTicks: number; offsetTicks?: number; amount0: bigint; amount1: bigint },
): Promise<{ tokenId: bigint; tickLower: number; tickUpper: number; liquidity: bigint; amount0: bigint; amount1: bigint }> {
  const { address, wallet } = trader(fork, options.account ?? 0);
  const manager = positionManagerOf(fork).address;
  const [token0, token1] = [fork.token(pool.token0), fork.token(pool.token1)];
  for (const token of [token0, token1]) {
    await fork.confirm(await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [manager, maxUint256] }));
  }
  const tick = (await poolTick(fork, pool.address)) + (options.offsetTicks ?? 0);
  const spacing = pool.tickSpacing;
  const tickLower = Math.floor((tick - options.halfWidthTicks) / spacing) * spacing;
  const tickUpper = Math.ceil((tick + options.halfWidthTicks) / spacing) * spacing;
  const hash = await wallet.writeContract({
    address: manager,
    abi: positionManagerAbi,
    functionName: 'mint',
    args: [
      {
        token0,
        token1,
        fee: pool.fee,
        tickLower,
        tickUpper,
        amount0Desired: options.amount0,
        amount1Desired: options.amount1,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: address,
        deadline: maxUint256,
      },
    ],
  });
  const receipt = await fork.confirm(hash);
  const [increased] = parseEventLogs({ abi: positionManagerAbi, eventName: 'IncreaseLiquidity', logs: receipt.logs });
  if (!increased) throw new Error('the position manager minted no position');
  return {
    tokenId: increased.args.tokenId,
    tickLower,
    tickUpper,
    liquidity: increased.args.liquidity,
    amount0: increased.args.amount0,
    amount1: increased.args.amount1,
  };
}

/** Sells `amount` of the pool's token0 or token1 in the pool (by the devnet's V3 adapter) from account `account`; returns what it paid. */
export async function swapInPool(
  fork: DevnetFork,
  pool: V3PoolOfBook,
  options: { account: number; sell: 'token0' | 'token1'; amount: bigint },
): Promise<bigint> {
  const { address, wallet } = trader(fork, options.account);
  const adapter = fork.addressBook.contracts.adapters.uniswapV3 as Address;
  const [token0, token1] = [fork.token(pool.token0), fork.token(pool.token1)];
  const [input, output] = options.sell === 'token0' ? [token0, token1] : [token1, token0];
  const before = await fork.balanceOf(output, address);
  await fork.confirm(await wallet.writeContract({ address: input, abi: erc20Abi, functionName: 'transfer', args: [adapter, options.amount] }));
  await fork.confirm(
    await wallet.writeContract({
      address: adapter,
      abi: artifacts.UniswapV3Adapter.abi,
      functionName: 'swap',
      args: [input, output, address, encodePacked(['address'], [pool.address])],
    }),
  );
  return (await fork.balanceOf(output, address)) - before;
}

/**
 * Another trader (account 1) pushes the pool's price down: `amount` of token0, minted to it for the purpose (the
 * devnet's tokens mint to anyone), sold in the pool. A million moves the cUSD/CELO 0.3% pool about 2%.
 */
export async function pushPoolDown(fork: DevnetFork, pool: V3PoolOfBook, amount: bigint): Promise<void> {
  const { address, wallet } = trader(fork, 1);
  await fork.confirm(
    await wallet.writeContract({ address: fork.token(pool.token0), abi: artifacts.TestToken.abi, functionName: 'mint', args: [address, amount] }),
  );
  await swapInPool(fork, pool, { account: 1, sell: 'token0', amount });
}

/**
 * Sells `size` of token0 then what came back of token1, `rounds` times, in the pool from account `account`: volume
 * both ways that leaves the price about where it was. Returns the volume.
 */
export async function tradeVolume(
  fork: DevnetFork,
  pool: V3PoolOfBook,
  options: { account: number; size: bigint; rounds: number },
): Promise<{ volume0: bigint; volume1: bigint }> {
  let [volume0, volume1] = [0n, 0n];
  for (let round = 0; round < options.rounds; round++) {
    const got1 = await swapInPool(fork, pool, { account: options.account, sell: 'token0', amount: options.size });
    volume0 += options.size;
    await swapInPool(fork, pool, { account: options.account, sell: 'token1', amount: got1 });
    volume1 += got1;
  }
  return { volume0, volume1 };
}

/** The devnet's cUSD/CELO pool at 0.3%, where the tests keep their positions; its oracle was grown. */
export const cusdCeloPool = (fork: DevnetFork) => v3Pool(fork, ['cUSD', 'CELO'], 3000);

/** The devnet's CELO/WETH pool at 0.3%, which keeps Uniswap's default oracle of one observation, as most of Celo's pools. */
export const oneObservationPool = (fork: DevnetFork) => v3Pool(fork, ['CELO', 'WETH'], 3000);

/**
 * A busy pool's trading, as `busyPoolTrading` makes it on the devnet but on the test's clock: every `everySeconds`
 * for `seconds`, account 1 sells `usd` worth of one token, then of the other on the next round, each swap in a block
 * of its own. A pool of one observation then never reaches a window back.
 */
export async function tradeBusily(
  fork: DevnetFork,
  pool: V3PoolOfBook,
  options: { seconds: number; everySeconds: number; usd: number; prices?: Readonly<Record<string, number>> },
): Promise<void> {
  // At the world's prices now (as given), so that the two sides' swaps balance and the pool stays where it is.
  const priceOf = (symbol: string) => options.prices?.[symbol] ?? tokenSpecs.find((spec) => spec.symbol === symbol)?.usdPrice ?? 1;
  for (let round = 0; round * options.everySeconds < options.seconds; round++) {
    await fork.testClient.increaseTime({ seconds: options.everySeconds });
    const sell = round % 2 === 0 ? 'token0' : 'token1';
    const symbol = sell === 'token0' ? pool.token0 : pool.token1;
    await swapInPool(fork, pool, { account: 1, sell, amount: parseUnits((options.usd / priceOf(symbol)).toFixed(6), 18) });
  }
}

/** A position of the position manager as the chain holds it at the latest block. */
export async function readPosition(fork: DevnetFork, tokenId: bigint): Promise<V3Position> {
  return readV3Position(fork.publicClient, positionManagerOf(fork), tokenId, await fork.publicClient.getBlockNumber());
}

/** A `uniswap-v3-position` strategy of wallet `main` (account 0) keeping position `positionId` of `pool` (cUSD/CELO), compounding at 3 × gas. */
export function positionStrategy(
  fork: DevnetFork,
  positionId: bigint,
  overrides: Partial<V3PositionStrategy> = {},
  pool: V3PoolOfBook = cusdCeloPool(fork),
): V3PositionStrategy {
  const info = (symbol: string) => ({ symbol, address: fork.token(symbol), decimals: 18 });
  return {
    id: 'lp',
    kind: 'uniswap-v3-position',
    wallet: 'main',
    schedule: { everyMs: 3_600_000, jitterMs: 0, catchUp: 'skip', firstRun: 'now' },
    slippageBps: 100,
    positionManager: positionManagerOf(fork),
    positionId,
    pool: { address: pool.address, token0: info(pool.token0), token1: info(pool.token1), fee: pool.fee, tickSpacing: pool.tickSpacing },
    valueToken: info('cUSD'),
    compound: { minFeesToGas: 3 },
    ...overrides,
  };
}
