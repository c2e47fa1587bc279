/**
 * A Uniswap V3 position (an NFT of a NonfungiblePositionManager) read from the chain at one block: whose it is, its
 * pool and range, its liquidity, the fees it has earned and not collected, and its pool's price. The fees are what
 * `collect` would pay its owner now, asked of the position manager itself (an `eth_call` of `collect` from the owner:
 * the manager brings the position's fees up to date before it pays, so this is exact to the wei); the pool is the
 * factory's for the position's tokens and fee, by CREATE2, never an address a third party names.
 */
import { type Address, type Hex, getAddress, maxUint128 } from 'viem';
import type { ChainClient } from '../../chains.ts';
import { positionManagerAbi, uniswapV3PoolAbi } from '../../contracts/abi.ts';
import { v3PoolAddress } from '../../contracts/encoding.ts';
import type { TickRange, TokenAmounts } from './liquidity.ts';

export type V3Position = TickRange & {
  positionManager: Address;
  tokenId: bigint;
  owner: Address;
  token0: Address;
  token1: Address;
  /** In hundredths of a basis point, as the factory's fee tiers. */
  fee: number;
  pool: Address;
  liquidity: bigint;
  /** What `collect` pays the owner now: fees earned and tokens a decrease left owed. */
  uncollected: TokenAmounts;
  /** The pool's price and tick at the block read. */
  sqrtPriceX96: bigint;
  tick: number;
  blockNumber: bigint;
};

/** Where the position manager's factory makes its pools: the factory and its pools' init code hash, from the chain data. */
export type PositionManagerOf = { address: Address; factory: Address; poolInitCodeHash: Hex };

export async function readV3Position(client: ChainClient, manager: PositionManagerOf, tokenId: bigint, blockNumber: bigint): Promise<V3Position> {
  const at = { address: manager.address, abi: positionManagerAbi, blockNumber } as const;
  const [owner, position] = await Promise.all([
    client.readContract({ ...at, functionName: 'ownerOf', args: [tokenId] }),
    client.readContract({ ...at, functionName: 'positions', args: [tokenId] }),
  ]);
  const [, , token0, token1, fee, tickLower, tickUpper, liquidity] = position;
  const pool = v3PoolAddress(manager.factory, manager.poolInitCodeHash, [token0, token1], fee);
  const [collected, slot0] = await Promise.all([
    client.simulateContract({
      ...at,
      account: owner,
      functionName: 'collect',
      args: [{ tokenId, recipient: owner, amount0Max: maxUint128, amount1Max: maxUint128 }],
    }),
    client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'slot0', blockNumber }),
  ]);
  const [amount0, amount1] = collected.result;
  return {
    positionManager: getAddress(manager.address),
    tokenId,
    owner: getAddress(owner),
    token0: getAddress(token0),
    token1: getAddress(token1),
    fee,
    tickLower,
    tickUpper,
    pool,
    liquidity,
    uncollected: { amount0, amount1 },
    sqrtPriceX96: slot0[0],
    tick: slot0[1],
    blockNumber,
  };
}

/**
 * The ids of the positions `owner` holds in `pool` with liquidity, as the position manager enumerates its NFTs
 * (ERC721Enumerable), at the latest block.
 */
export async function livePositionsInPool(client: ChainClient, manager: PositionManagerOf, owner: Address, pool: Address): Promise<bigint[]> {
  const at = { address: manager.address, abi: positionManagerAbi } as const;
  const count = await client.readContract({ ...at, functionName: 'balanceOf', args: [owner] });
  const ids = await Promise.all(
    Array.from({ length: Number(count) }, (_, index) => client.readContract({ ...at, functionName: 'tokenOfOwnerByIndex', args: [owner, BigInt(index)] })),
  );
  const positions = await Promise.all(ids.map((id) => client.readContract({ ...at, functionName: 'positions', args: [id] })));
  return ids.filter((_, i) => {
    const [, , token0, token1, fee, , , liquidity] = positions[i] as (typeof positions)[number];
    return liquidity > 0n && v3PoolAddress(manager.factory, manager.poolInitCodeHash, [token0, token1], fee).toLowerCase() === pool.toLowerCase();
  });
}

/**
 * The pool's counter of seconds its price spent inside a range (uint32, wrapping), at a block: the difference of two
 * readings is the time in range between them, exactly. None while the range's ticks are not initialized (no position
 * holds them), when the pool refuses to say.
 */
export async function readSecondsInside(client: ChainClient, pool: Address, range: TickRange, blockNumber: bigint): Promise<number | undefined> {
  const snapshot = await client
    .readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'snapshotCumulativesInside', args: [range.tickLower, range.tickUpper], blockNumber })
    .catch(() => undefined);
  return snapshot?.[2];
}

/** Whether the pool's price is inside the position's range (where it earns fees): the pool's own test, tick in [lower, upper). */
export const inRange = (position: Pick<V3Position, 'tick' | 'tickLower' | 'tickUpper'>) =>
  position.tick >= position.tickLower && position.tick < position.tickUpper;

/** Where the price has been over keep-in-range's window: outside the range throughout (on the side it is now), or not, or not known. */
export type RangeHistory = { outside: 'below' | 'above' } | { outside: false } | { unknown: string };

/**
 * Whether the price spent the whole of the last `windowSeconds` outside the position's range, read from the chain at
 * any oracle size: the pool counts the seconds its price spends inside a range (`snapshotCumulativesInside`), so the
 * count at the head and at the last block a window before (`blockAt`, a chain-derived point) are equal exactly when
 * not one second of the window was inside. A busy pool that keeps Uniswap's default one observation answers as well
 * as one with a grown oracle. Not known when the chain (or the node's state) does not reach a window back, or the
 * range held no liquidity then (the position is younger than the window). No record of ours, which a database writer
 * could edit, says how long a position has been out of range.
 */
export async function readRangeHistory(
  client: ChainClient,
  position: Pick<V3Position, 'pool' | 'tick' | 'tickLower' | 'tickUpper'>,
  window: { seconds: number; headTimestamp: bigint; insideAtHead: number | undefined; blockAt(time: bigint): Promise<bigint> },
): Promise<RangeHistory> {
  const side = position.tick < position.tickLower ? 'below' : position.tick >= position.tickUpper ? 'above' : undefined;
  if (!side) return { outside: false };
  const minutes = `${Math.round(window.seconds / 60)} min`;
  const firstLine = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));
  let then: bigint;
  try {
    then = await window.blockAt(window.headTimestamp - BigInt(window.seconds));
  } catch (error) {
    return { unknown: `no block of ${minutes} ago was found (${firstLine(error)})` };
  }
  const earlier = await readSecondsInside(client, position.pool, position, then);
  if (earlier === undefined || window.insideAtHead === undefined) {
    const at = earlier === undefined ? `block ${then}, ${minutes} ago` : 'the head';
    return { unknown: `the range's seconds inside cannot be read at ${at}: no liquidity held its ticks then, or the node keeps no state that old` };
  }
  // uint32 counters that wrap: their difference modulo 2³².
  const secondsInside = (window.insideAtHead - earlier) >>> 0;
  return secondsInside === 0 ? { outside: side } : { outside: false };
}
