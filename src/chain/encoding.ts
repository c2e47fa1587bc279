import { type Address, type Hex, encodePacked } from 'viem';

/** A Uniswap V2 adapter's `extras` entry (and the Uniswap V2 farm's `data`): pool (20 bytes) ‖ fee per-mille (1 byte). */
export function encodePoolExtras(pool: Address, feePerMille: number): Hex {
  return encodePacked(['address', 'uint8'], [pool, feePerMille]);
}

/** The gauge farm's `data`: pool (20 bytes) ‖ gauge (20 bytes). */
export function encodeGaugeFarmData(pool: Address, gauge: Address): Hex {
  return encodePacked(['address', 'address'], [pool, gauge]);
}
