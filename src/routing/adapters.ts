/**
 * Pair adapters: the contracts (ISwappaPairV1) a route names in `pairs`, one per hop. Uniswap V2 adapters read a pool
 * from `extras` as pool (20 bytes) ‖ one fee byte, and differ only in the fee's unit: Minima's adapter (and the
 * devnet's first) in per-mille, Swappa's published PairUniswapV2 (and the devnet's second) in bips. Uniswap V3
 * adapters (Swappa's and Minima's PairUniswapV3, the devnet's UniswapV3Adapter) read the pool alone (20 bytes):
 * the pool knows its own fee.
 */
import type { Address, Hex } from 'viem';
import { encodePoolExtras } from '../contracts/encoding.ts';

export type FeeUnit = 'per-mille' | 'bips';

export type PairAdapter = { address: Address; kind: 'uniswap-v2'; feeUnit: FeeUnit } | { address: Address; kind: 'uniswap-v3' };

/** The fee byte of a pool charging `feeBps`, or undefined when this adapter cannot express it. */
export function feeByte(feeUnit: FeeUnit, feeBps: number): number | undefined {
  const value = feeUnit === 'bips' ? feeBps : feeBps / 10;
  return Number.isInteger(value) && value >= 0 && value <= 255 ? value : undefined;
}

/** The hop's `extras` for a pool through this adapter. */
export function adapterExtras(adapter: PairAdapter, pool: { address: Address; feeBps: number }): Hex {
  if (adapter.kind === 'uniswap-v3') return pool.address.toLowerCase() as Hex;
  const fee = feeByte(adapter.feeUnit, pool.feeBps);
  if (fee === undefined) throw new Error(`adapter ${adapter.address} (${adapter.feeUnit}) cannot express pool ${pool.address}'s fee of ${pool.feeBps} bps`);
  return encodePoolExtras(pool.address, fee);
}

/** How an adapter reads `extras`, for people. */
export const adapterKindName = (adapter: PairAdapter) => (adapter.kind === 'uniswap-v3' ? 'Uniswap V3, extras: the pool' : `Uniswap V2, fee byte in ${adapter.feeUnit}`);
