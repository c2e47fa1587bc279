/**
 * A Uniswap V3 position (an NFT of a NonfungiblePositionManager) read from the chain at one block: whose it is, its
 * pool and range, its liquidity, the fees it has earned and not collected, and its pool's price. The fees are what
 * `collect` would pay its owner now, asked of the position manager itself (an `eth_call` of `collect` from the owner:
 * the manager brings the position's fees up to date before it pays, so this is exact to the wei); the pool is the
 * factory's for the position's tokens and fee, by CREATE2, never an address a third party names.
 */
import { type Address, type Hex, getAddress, maxUint128 } from 'viem';
import type { ChainClient } from '../chains.ts';
import { positionManagerAbi, uniswapV3PoolAbi } from '../contracts/abi.ts';
import { v3PoolAddress } from '../contracts/encoding.ts';
import type { TickRange, TokenAmounts } from './uniswap-v3-liquidity.ts';

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

/** Whether the pool's price is inside the position's range (where it earns fees): the pool's own test, tick in [lower, upper). */
export const inRange = (position: Pick<V3Position, 'tick' | 'tickLower' | 'tickUpper'>) =>
  position.tick >= position.tickLower && position.tick < position.tickUpper;
