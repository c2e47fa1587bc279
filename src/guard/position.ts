/**
 * The guards of a trade on a Uniswap V3 position, as pure functions of what was read and simulated:
 * - the position is the wallet's, of the trade's two tokens, in the pool its factory makes for them;
 * - liquidity is added only while the pool's price is within the tolerance of the independent reference, and with
 *   minimums from the reference (less the slippage), never from the pool's own price;
 * - the simulated transaction moves the position's two tokens between the wallet and that pool only (an add: the
 *   wallet pays at most what it asked; a collect: the wallet pays nothing), and moves no NFT at all (guard/flows.ts
 *   refuses a non-fungible Transfer): the position never leaves the wallet.
 */
import { type Address, type Log, isAddressEqual } from 'viem';
import { type TickRange, amountsForLiquidity, liquidityForAmounts } from '../pools/uniswap-v3-liquidity.ts';
import type { V3Position } from '../pools/uniswap-v3-position.ts';
import { flowsOf } from './flows.ts';
import { GuardRefusal } from './refusal.ts';

type PositionAsked = {
  kind: 'collect' | 'add-liquidity';
  wallet: Address;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  amountIn1: bigint;
  positionId: bigint;
};

export function checkPositionOwned(asked: PositionAsked, position: Pick<V3Position, 'owner' | 'token0' | 'token1'>): void {
  if (!isAddressEqual(position.owner, asked.wallet)) {
    throw new GuardRefusal('position', `position ${asked.positionId} belongs to ${position.owner}, not to the wallet ${asked.wallet}`);
  }
  if (!isAddressEqual(position.token0, asked.tokenIn) || !isAddressEqual(position.token1, asked.tokenOut)) {
    throw new GuardRefusal(
      'position',
      `position ${asked.positionId} holds ${position.token0} and ${position.token1}, not the trade's ${asked.tokenIn} and ${asked.tokenOut}`,
    );
  }
}

/** The pool's price (√price × 2⁹⁶) within `toleranceBps` of the reference's, compared as prices. */
export function checkPoolAtReference(poolSqrtPriceX96: bigint, referenceSqrtPriceX96: bigint, toleranceBps: number): void {
  const [pool, reference] = [poolSqrtPriceX96 * poolSqrtPriceX96, referenceSqrtPriceX96 * referenceSqrtPriceX96];
  const gap = pool > reference ? pool - reference : reference - pool;
  if (gap * 10_000n > reference * BigInt(toleranceBps)) {
    const percent = (Number((gap * 1_000_000n) / reference) / 10_000).toFixed(2);
    throw new GuardRefusal('price', `the pool's price is ${percent}% from the reference (tolerance ${toleranceBps / 100}%): no liquidity is added`);
  }
}

/**
 * What an add of `amounts` to `range` should buy at the reference price, and the least of each token it may take:
 * what that liquidity holds at the reference, less the slippage.
 */
export function addAtReference(
  referenceSqrtPriceX96: bigint,
  range: TickRange,
  amounts: { amount0: bigint; amount1: bigint },
  slippageBps: number,
): { liquidity: bigint; amount0Min: bigint; amount1Min: bigint } {
  const liquidity = liquidityForAmounts(referenceSqrtPriceX96, range, amounts);
  const held = amountsForLiquidity(referenceSqrtPriceX96, range, liquidity, 'down');
  const less = (amount: bigint) => (amount * BigInt(10_000 - slippageBps)) / 10_000n;
  return { liquidity, amount0Min: less(held.amount0), amount1Min: less(held.amount1) };
}

/** The simulation's token movements, held to the position's rules; what the wallet paid or got of each token. */
export function checkPositionFlows(
  asked: PositionAsked,
  pool: Address,
  logs: readonly Pick<Log, 'address' | 'topics' | 'data'>[],
): { amount0: bigint; amount1: bigint } {
  const moved = { amount0: 0n, amount1: 0n };
  for (const flow of flowsOf(logs)) {
    const which = isAddressEqual(flow.token, asked.tokenIn) ? 'amount0' : isAddressEqual(flow.token, asked.tokenOut) ? 'amount1' : undefined;
    const paying = isAddressEqual(flow.from, asked.wallet) && isAddressEqual(flow.to, pool);
    const paid = isAddressEqual(flow.from, pool) && isAddressEqual(flow.to, asked.wallet);
    const allowed = which !== undefined && (asked.kind === 'add-liquidity' ? paying : paid);
    if (!allowed || which === undefined) {
      throw new GuardRefusal(
        'token-flow',
        `the simulated ${asked.kind} moves ${flow.amount} of ${flow.token} from ${flow.from} to ${flow.to}: only the position's tokens, between the wallet and its pool`,
      );
    }
    moved[which] += flow.amount;
  }
  if (asked.kind === 'add-liquidity' && (moved.amount0 > asked.amountIn || moved.amount1 > asked.amountIn1)) {
    throw new GuardRefusal(
      'token-flow',
      `the simulated add takes ${moved.amount0} and ${moved.amount1}, more than the ${asked.amountIn} and ${asked.amountIn1} asked`,
    );
  }
  return moved;
}
