/**
 * The guards of a trade on a Uniswap V3 position, as pure functions of what was read and simulated:
 * - the position is the wallet's, of the trade's two tokens, in the pool its factory makes for them;
 * - liquidity is moved only while the pool's price is within the tolerance of the independent reference, and with
 *   minimums from the reference (the least taken or paid anywhere in the slippage band around it), never from the
 *   pool's own price;
 * - the simulated transaction moves the position's two tokens between the wallet and that pool only (an add or a
 *   mint: the wallet pays at most what it asked; a collect or a removal: the wallet pays nothing), and the only NFT
 *   it moves is a mint's new one, to the wallet, or the emptied position a removal burns: a position never leaves
 *   the wallet for anyone.
 */
import { type Address, type Log, getAddress, isAddressEqual, zeroAddress } from 'viem';
import { isqrt } from '../bigint-math.ts';
import { type TickRange, amountsForLiquidity, liquidityForAmounts } from '../pools/uniswap-v3/liquidity.ts';
import type { V3Position } from '../pools/uniswap-v3/position.ts';
import { flowsOf } from './flows.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';

export type PositionAsked = {
  /** The step's name, for refusals. */
  kind: string;
  wallet: Address;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  amountIn1: bigint;
  positionId: bigint;
  /** A removal that burns the emptied NFT. */
  burns: boolean;
  /** A mint, whose new NFT comes to the wallet. */
  mints: boolean;
  /** An add or a mint, which pays the pool (the others are paid by it). */
  pays: boolean;
};

/** A range the pool accepts: ticks on its spacing, lower below upper. */
export function checkRange(range: TickRange, tickSpacing: number): void {
  if (range.tickLower >= range.tickUpper || range.tickLower % tickSpacing !== 0 || range.tickUpper % tickSpacing !== 0) {
    throw new GuardRefusal('position', `the range [${range.tickLower}, ${range.tickUpper}) is not one of the pool's (ticks on a spacing of ${tickSpacing})`);
  }
}

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
    throw new GuardRefusal('price', `the pool's price is ${percent}% from the reference (tolerance ${toleranceBps / 100}%): no liquidity is moved`);
  }
}

/**
 * √price × 2⁹⁶ at the reference, and at the edges of a band of `bps` around it (prices × (1 ∓ bps)): where the pool
 * may be when a transaction signed now is mined, as far as the signer allows.
 */
function band(referenceSqrtPriceX96: bigint, bps: number): bigint[] {
  const scaled = (factorBps: number) => (referenceSqrtPriceX96 * isqrt(BigInt(factorBps) * 10n ** 28n)) / 10n ** 16n;
  return [scaled(10_000 - bps), referenceSqrtPriceX96, scaled(10_000 + bps)];
}

const least = (values: readonly bigint[]) => values.reduce((a, b) => (b < a ? b : a));

/**
 * What an add of `amounts` to `range` buys at the reference price, and the least of each token it may take: the
 * least it takes anywhere in the slippage band around the reference (as Uniswap's SDK sets a mint's minimums, at
 * the band's edges), never from the pool's own price. A pool pushed past the band makes the add revert.
 */
export function addAtReference(
  referenceSqrtPriceX96: bigint,
  range: TickRange,
  amounts: { amount0: bigint; amount1: bigint },
  slippageBps: number,
): { liquidity: bigint; amount0Min: bigint; amount1Min: bigint } {
  const taken = band(referenceSqrtPriceX96, slippageBps).map((price) => amountsForLiquidity(price, range, liquidityForAmounts(price, range, amounts), 'down'));
  return {
    liquidity: liquidityForAmounts(referenceSqrtPriceX96, range, amounts),
    amount0Min: least(taken.map((amount) => amount.amount0)),
    amount1Min: least(taken.map((amount) => amount.amount1)),
  };
}

/** What a removal of `liquidity` from `range` pays at least anywhere in the slippage band around the reference. */
export function removeAtReference(
  referenceSqrtPriceX96: bigint,
  range: TickRange,
  liquidity: bigint,
  slippageBps: number,
): { liquidity: bigint; amount0Min: bigint; amount1Min: bigint } {
  const paid = band(referenceSqrtPriceX96, slippageBps).map((price) => amountsForLiquidity(price, range, liquidity, 'down'));
  return { liquidity, amount0Min: least(paid.map((amount) => amount.amount0)), amount1Min: least(paid.map((amount) => amount.amount1)) };
}

const nftTransferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
type LogLike = Pick<Log, 'address' | 'topics' | 'data'>;
const isNftTransfer = (log: LogLike) => log.topics[0] === nftTransferTopic && log.topics.length === 4;
const topicAddress = (topic: string | undefined) => getAddress(`0x${(topic ?? '').slice(26)}`);

/**
 * The NFTs a simulated position trade moves: none, except a mint's new one (the position manager's, from nobody to
 * the wallet) and a burning removal's emptied position (from the wallet to nobody).
 */
function checkNftMoves(asked: PositionAsked, manager: Address, logs: readonly LogLike[]): void {
  const moves = logs.filter(isNftTransfer);
  const expected = asked.mints || asked.burns ? 1 : 0;
  for (const log of moves) {
    const [from, to, id] = [topicAddress(log.topics[1]), topicAddress(log.topics[2]), BigInt(log.topics[3] ?? '0x0')];
    const minted = asked.mints && isAddressEqual(from, zeroAddress) && isAddressEqual(to, asked.wallet);
    const burned = asked.burns && isAddressEqual(from, asked.wallet) && isAddressEqual(to, zeroAddress) && id === asked.positionId;
    if (!isAddressEqual(log.address, manager) || !(minted || burned)) {
      throw new GuardRefusal(
        'token-flow',
        `the simulated ${asked.kind} moves NFT ${id} of ${log.address} from ${from} to ${to}: a position never leaves the wallet`,
      );
    }
  }
  if (moves.length !== expected) throw new GuardRefusal('token-flow', `the simulated ${asked.kind} moves ${moves.length} NFTs, not the ${expected} it should`);
}

/** The simulation's token movements, held to the position's rules; what the wallet paid or got of each token. */
export function checkPositionFlows(
  asked: PositionAsked,
  at: { pool: Address; manager: Address },
  logs: readonly LogLike[],
): { amount0: bigint; amount1: bigint } {
  checkNftMoves(asked, at.manager, logs);
  const { pool } = at;
  const { pays } = asked;
  const moved = { amount0: 0n, amount1: 0n };
  for (const flow of flowsOf(logs.filter((log) => !isNftTransfer(log)))) {
    const which = isAddressEqual(flow.token, asked.tokenIn) ? 'amount0' : isAddressEqual(flow.token, asked.tokenOut) ? 'amount1' : undefined;
    const paying = isAddressEqual(flow.from, asked.wallet) && isAddressEqual(flow.to, pool);
    const paid = isAddressEqual(flow.from, pool) && isAddressEqual(flow.to, asked.wallet);
    const allowed = which !== undefined && (pays ? paying : paid);
    if (!allowed || which === undefined) {
      throw new GuardRefusal(
        'token-flow',
        `the simulated ${asked.kind} moves ${flow.amount} of ${flow.token} from ${flow.from} to ${flow.to}: only the position's tokens, between the wallet and its pool`,
      );
    }
    moved[which] += flow.amount;
  }
  if (pays && (moved.amount0 > asked.amountIn || moved.amount1 > asked.amountIn1)) {
    throw new GuardRefusal(
      'token-flow',
      `the simulated ${asked.kind} takes ${moved.amount0} and ${moved.amount1}, more than the ${asked.amountIn} and ${asked.amountIn1} asked`,
    );
  }
  return moved;
}
