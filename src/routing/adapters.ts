/**
 * Pair adapters: the contracts (ISwappaPairV1) a route names in `pairs`, one per hop. Both kinds the service uses
 * read a Uniswap V2 pool from `extras` as pool (20 bytes) ‖ one fee byte, and differ only in the fee's unit: Minima's
 * adapter (and the devnet's first) in per-mille, Swappa's published PairUniswapV2 (and the devnet's second) in bips.
 */
import type { Address, Hex } from 'viem';
import { encodePoolExtras } from '../contracts/encoding.ts';

export type FeeUnit = 'per-mille' | 'bips';

export type PairAdapter = { address: Address; feeUnit: FeeUnit };

/** The fee byte of a pool charging `feeBps`, or undefined when this adapter cannot express it. */
export function feeByte(adapter: PairAdapter, feeBps: number): number | undefined {
  const value = adapter.feeUnit === 'bips' ? feeBps : feeBps / 10;
  return Number.isInteger(value) && value >= 0 && value <= 255 ? value : undefined;
}

/** The hop's `extras` for a pool through this adapter. */
export function adapterExtras(adapter: PairAdapter, pool: { address: Address; feeBps: number }): Hex {
  const fee = feeByte(adapter, pool.feeBps);
  if (fee === undefined) throw new Error(`adapter ${adapter.address} (${adapter.feeUnit}) cannot express pool ${pool.address}'s fee of ${pool.feeBps} bps`);
  return encodePoolExtras(pool.address, fee);
}
