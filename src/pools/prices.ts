/** A pool's prices as the daemon holds a trade to them: now and averaged over a window (src/price/pool-average.ts). */
import type { Address } from 'viem';
import { RoutekeeperError } from '../errors.ts';

/** The window a pool's mean price is taken over, unless told otherwise: ten minutes. */
export const defaultAverageWindowSeconds = 600;

/** Prices in UQ112x112, as a Uniswap V2 pair stores them: raw units of one token per raw unit of the other, × 2^112. */
export const Q112 = 2n ** 112n;

/** A pool's prices now and on average: `spot0`/`average0` price token0 in token1; `spot1`/`average1` the reverse. */
export type PoolPrices = {
  pool: Address;
  token0: Address;
  token1: Address;
  spot0: bigint;
  spot1: bigint;
  average0: bigint;
  average1: bigint;
  /** The seconds the average covers (at least the window). */
  spanSeconds: bigint;
};

/**
 * A pool whose own oracle does not reach a window back (a Uniswap V3 pool that keeps one observation and traded within
 * the window): its price now, and why it has no average. Such a pool is no price source; a trade through it is held to
 * the independent reference instead (src/price/reference.ts).
 */
export type ShortHistory = { pool: Address; token0: Address; token1: Address; spot0: bigint; short: string };

/** No average for a pool: younger than the window, or its history cannot be read. */
export class NoAverageError extends RoutekeeperError {
  override name = 'NoAverageError';
}
