/** What the pool index and its cache file both speak of: a block, and a pool's reserves at it. */
import type { Hex } from 'viem';

/** A block as the index knows it; its base fee prices the gas of a route's hops. */
export type Head = { number: bigint; hash: Hex; timestamp: bigint; baseFeePerGas: bigint };

export type Reserves = { reserve0: bigint; reserve1: bigint };
