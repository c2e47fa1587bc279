/** Test oracle: Uniswap V2 arithmetic written from the whitepaper, independent of the contracts under test. */
import type { Address } from 'viem';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import type { DevnetFork } from './devnet.ts';

export function constantProductOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feePerMille = 3n): bigint {
  const inAfterFee = amountIn * (1000n - feePerMille);
  return (inAfterFee * reserveOut) / (reserveIn * 1000n + inAfterFee);
}

export type PoolState = { address: Address; token0: Address; token1: Address; reserve0: bigint; reserve1: bigint; totalSupply: bigint };

export async function readPool(fork: DevnetFork, name: string): Promise<PoolState> {
  const pool = fork.addressBook.pools.find((p) => p.name === name);
  if (!pool) throw new Error(`no pool ${name}`);
  const read = <const F extends 'token0' | 'token1' | 'totalSupply'>(functionName: F) =>
    fork.publicClient.readContract({ address: pool.address, abi: artifacts.UniswapV2Pair.abi, functionName });
  const [[reserve0, reserve1], token0, token1, totalSupply] = await Promise.all([
    fork.publicClient.readContract({ address: pool.address, abi: artifacts.UniswapV2Pair.abi, functionName: 'getReserves' }),
    read('token0'),
    read('token1'),
    read('totalSupply'),
  ]);
  return { address: pool.address, token0, token1, reserve0, reserve1, totalSupply };
}

/** Reserves of `pool` ordered as (reserve of tokenIn, reserve of the other). */
export function reservesFrom(pool: PoolState, tokenIn: Address): [bigint, bigint] {
  return tokenIn.toLowerCase() === pool.token0.toLowerCase() ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
}
