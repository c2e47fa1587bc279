/**
 * How much a position's ratio swap sells (a compound's, a re-range's, an opening's, or the one inside a move): enough
 * that what is left fits the range at the price the mint then meets, the sale's fee and impact counted.
 *
 * The split at the reference price is the start. The route the service would take for it says where the sale goes:
 *  - through the position's own pool alone: the sale is worked out on the pool's state read from the chain (Uniswap's
 *    own swap math, ticks crossed), and the mint meets the price the sale leaves;
 *  - elsewhere: at the route's rate, and the mint meets the pool's price as the chain has it now.
 * Nothing the service says can size it past what the trade's checks accept: its rate is held to no less than the
 * reference less the tolerance. The trade itself is quoted and checked again as any swap is; this only sizes
 * it. A service that does not answer, or a pool away from the reference, leaves the split at the reference.
 */
import { type Address, type Hex, isAddressEqual } from 'viem';
import { type RangeSale, type TickRange, type TokenAmounts, saleToRangeRatio, swapToRangeRatio, token0InToken1 } from '../pools/uniswap-v3/liquidity.ts';
import { type V3PoolState, swapExactIn } from '../pools/uniswap-v3/math.ts';
import { readV3PoolState } from '../pools/uniswap-v3/state.ts';
import { poolKinds } from '../pools/registry.ts';
import type { RouteDetail } from '../routing-api/schemas.ts';
import { isqrt } from '../bigint-math.ts';
import { uniswapV3PoolAbi } from '../contracts/abi.ts';
import type { V3PositionStrategy } from '../strategy/types.ts';
import type { RunDeps } from './run-types.ts';

const Q192 = 1n << 192n;

/** Bitmap words read on each side of the pool's price: a ratio swap seldom crosses more than a few ticks. */
const wordsAround = 1;

export type RangeSaleSize = { sell: 'token0' | 'token1'; amount: bigint; sizedBy: 'own-pool' | 'route' | 'reference' };

/**
 * `held`: what the sale may draw on; `upTo`: a cap per token (a compound sells no more than it collected); `removed`:
 * liquidity a move takes out of the pool before its swap (the pool's state then lacks it).
 */
export async function sizeRangeSale(
  strategy: V3PositionStrategy,
  deps: RunDeps,
  sale: { range: TickRange; held: TokenAmounts; referenceSqrtPriceX96: bigint; upTo?: TokenAmounts; removed?: { range: TickRange; liquidity: bigint } },
): Promise<RangeSaleSize | undefined> {
  const { range, held, referenceSqrtPriceX96 } = sale;
  const atReference = swapToRangeRatio(referenceSqrtPriceX96, range, held);
  if (!atReference || atReference.amount === 0n) return undefined;
  const { sell } = atReference;
  const heldOfSold = sell === 'token0' ? held.amount0 : held.amount1;
  const upTo = sale.upTo ? min(heldOfSold, sell === 'token0' ? sale.upTo.amount0 : sale.upTo.amount1) : heldOfSold;
  if (upTo <= 0n) return undefined;
  const toleranceBps = BigInt(deps.executor.priceTolerance?.(strategy.id) ?? deps.executor.settings.maxPriceDeviationBps);
  const model = await saleModel(strategy, deps, { sell, amountIn: atReference.amount, toleranceBps, ...sale }).catch(() => undefined);
  if (!model) return { sell, amount: min(atReference.amount, upTo), sizedBy: 'reference' };
  return { sell, amount: saleToRangeRatio(range, held, sell, model.sale, upTo), sizedBy: model.sizedBy };
}

/**
 * Where the route for the split at the reference goes, and what selling through it pays. Through the position's own
 * pool alone: Uniswap's swap on the pool's state, all of it the chain's. Otherwise: the route's rate, with the pool's
 * price as the chain has it. The rate is held to no less than the reference less the tolerance, so that the service
 * cannot size the sale past what the swap's checks accept; a rate above the reference (a pool others have not
 * arbitraged) is taken as it is: a service that claims more only makes it sell less, and what that leaves stays in the
 * wallet for the next compound, as a refusal would leave it. Either way the pool's price must be within the tolerance of the
 * reference to size by it (beyond it, the add or the mint is refused anyway): undefined otherwise.
 */
async function saleModel(
  strategy: V3PositionStrategy,
  deps: RunDeps,
  sale: {
    sell: 'token0' | 'token1';
    amountIn: bigint;
    referenceSqrtPriceX96: bigint;
    toleranceBps: bigint;
    removed?: { range: TickRange; liquidity: bigint };
  },
): Promise<{ sale: RangeSale; sizedBy: 'own-pool' | 'route' } | undefined> {
  const { sell, amountIn, referenceSqrtPriceX96, toleranceBps } = sale;
  const { pool } = strategy;
  const [tokenIn, tokenOut]: [Address, Address] = sell === 'token0' ? [pool.token0.address, pool.token1.address] : [pool.token1.address, pool.token0.address];
  const { executor, signal } = deps;
  const chainId = executor.wallet.chainId;
  const route = await executor.routing.getSwapRoute({ tokenIn, tokenOut, amountIn, chainId, slippageBps: strategy.slippageBps, ...(signal && { signal }) });
  const { client } = deps.view;
  const nearReference = (sqrtPriceX96: bigint) =>
    sqrtPriceX96 >= scaledSqrtPrice(referenceSqrtPriceX96, 10_000n - toleranceBps) &&
    sqrtPriceX96 <= scaledSqrtPrice(referenceSqrtPriceX96, 10_000n + toleranceBps);
  if (throughOwnPoolAlone(route.details, executor.routes.known.adapters, pool.address)) {
    const read = await readV3PoolState(client, pool.address, pool.tickSpacing, await client.getBlockNumber(), wordsAround);
    if (!nearReference(read.sqrtPriceX96)) return undefined;
    const state = sale.removed ? withoutLiquidity(read, sale.removed.range, sale.removed.liquidity) : read;
    const zeroForOne = sell === 'token0';
    return {
      sizedBy: 'own-pool',
      sale: (amount) => {
        const swapped = swapExactIn(state, pool, zeroForOne, amount);
        return swapped && { out: swapped.amountOut, sqrtPriceX96: swapped.sqrtPriceX96 };
      },
    };
  }
  const [sqrtPriceX96] = await client.readContract({ address: pool.address, abi: uniswapV3PoolAbi, functionName: 'slot0' });
  if (!nearReference(sqrtPriceX96)) return undefined;
  const quoted = BigInt(route.expectedOut);
  return {
    sizedBy: 'route',
    sale: (amount) => {
      const least = (worthAtReference(sell, referenceSqrtPriceX96, amount) * (10_000n - toleranceBps)) / 10_000n;
      const out = (amount * quoted) / amountIn;
      return { out: out < least ? least : out, sqrtPriceX96 };
    },
  };
}

/** √(price × factor / 10⁴) × 2⁹⁶: a √price moved by a factor of the price in basis points. */
const scaledSqrtPrice = (sqrtPriceX96: bigint, factorBps: bigint) => isqrt((sqrtPriceX96 * sqrtPriceX96 * factorBps) / 10_000n);

/** One hop, through a known Uniswap V3 adapter whose extras name the position's pool. */
function throughOwnPoolAlone(route: RouteDetail, adapters: readonly { address: Address; kind: string }[], pool: Address): boolean {
  if (route.pairs.length !== 1) return false;
  const adapter = adapters.find((known) => isAddressEqual(known.address, route.pairs[0] as Address));
  if (adapter?.kind !== 'uniswap-v3') return false;
  const read = poolKinds['uniswap-v3'].readExtras(route.extras[0] as Hex);
  return typeof read !== 'string' && isAddressEqual(read.pool, pool);
}

/** The pool's state once `liquidity` of a position in `range` is removed: from the price's range if inside, and from its ticks' nets. */
function withoutLiquidity(state: V3PoolState, range: TickRange, liquidity: bigint): V3PoolState {
  const inside = range.tickLower <= state.tick && state.tick < range.tickUpper;
  const ticks = state.ticks.map((tick) =>
    tick.tick === range.tickLower
      ? { ...tick, liquidityNet: tick.liquidityNet - liquidity, liquidityGross: tick.liquidityGross - liquidity }
      : tick.tick === range.tickUpper
        ? { ...tick, liquidityNet: tick.liquidityNet + liquidity, liquidityGross: tick.liquidityGross - liquidity }
        : tick,
  );
  return { ...state, liquidity: inside ? state.liquidity - liquidity : state.liquidity, ticks };
}

/** What an amount of the token sold is worth in the other at the reference. */
function worthAtReference(sell: 'token0' | 'token1', sqrtPriceX96: bigint, amount: bigint): bigint {
  if (sell === 'token0') return token0InToken1(sqrtPriceX96, amount);
  return (amount * Q192) / (sqrtPriceX96 * sqrtPriceX96);
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
