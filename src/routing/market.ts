/**
 * A snapshot of every pool's state at one block, as its kind keeps it (a Uniswap V2 pool's reserves, a V3 pool's
 * price, liquidity and ticks; see src/pools/), indexed by token for the route search (search.ts). Every question about
 * a pool's state goes to its kind's module. Simulating a trade on a copy (`clone()` then `apply()`)
 * lets deposit and withdraw quotes chain several swaps exactly as they will execute, each seeing the state the
 * previous one left.
 */
import type { Address } from 'viem';
import type { PoolInfo } from '../pools/kind.ts';
import type { PoolReserves } from '../pools/uniswap-v2/kind.ts';

export type { PoolInfo } from '../pools/kind.ts';
export type { PoolReserves } from '../pools/uniswap-v2/kind.ts';

/** What a pool's swaps depend on, as its kind keeps it (a V2 pool's reserves, a V3 pool's price, liquidity, ticks). */
export type PoolState = unknown;

export type Hop = { pool: PoolInfo; tokenIn: Address; tokenOut: Address };

const key = (address: Address) => address.toLowerCase();

/**
 * A pool as seen from one of its tokens: the other token, and what the search needs at every hop without a string
 * operation (the search prices hundreds of thousands of hops): both keys, and which side the token is.
 */
export type Neighbor = { pool: PoolInfo; other: Address; otherKey: string; poolKey: string; inIs0: boolean };

type TokenIndex = Map<string, Neighbor[]>;

/** What a market knows of its pools whatever their reserves: shared by its copies. */
type PoolIndexes = { byToken: TokenIndex; byAddress: Map<string, PoolInfo> };

export class Market {
  readonly #pools: readonly PoolInfo[];
  readonly #indexes: PoolIndexes;
  readonly #byToken: TokenIndex;
  readonly #states: Map<string, PoolState>;

  constructor(pools: readonly PoolInfo[], states: Map<string, PoolState>, indexes?: PoolIndexes) {
    this.#pools = pools;
    this.#states = states;
    this.#indexes = indexes ?? Market.#index(pools);
    this.#byToken = this.#indexes.byToken;
  }

  static #index(pools: readonly PoolInfo[]): PoolIndexes {
    const byToken: TokenIndex = new Map();
    const byAddress = new Map<string, PoolInfo>();
    for (const pool of pools) {
      const poolKey = key(pool.address);
      byAddress.set(poolKey, pool);
      for (const [from, other, inIs0] of [
        [pool.token0, pool.token1, true],
        [pool.token1, pool.token0, false],
      ] as const) {
        const list = byToken.get(key(from)) ?? [];
        list.push({ pool, other, otherKey: key(other), poolKey, inIs0 });
        byToken.set(key(from), list);
      }
    }
    return { byToken, byAddress };
  }

  get pools(): readonly PoolInfo[] {
    return this.#pools;
  }

  /** Every token some pool holds, once each. */
  tokens(): Address[] {
    const seen = new Map<string, Address>();
    for (const pool of this.#pools) for (const token of [pool.token0, pool.token1]) seen.set(key(token), token);
    return [...seen.values()];
  }

  /** The pools holding `token`, each with the other token it trades for. */
  neighbors(token: Address): readonly Neighbor[] {
    return this.#byToken.get(key(token)) ?? [];
  }

  /**
   * What a neighbor's pool pays for `amountIn` of the token it was reached from (the search's hot path); 0 when a V3
   * pool cannot take it within the ticks known.
   */
  neighborOutput(neighbor: Neighbor, amountIn: bigint): bigint {
    return this.#output(neighbor.pool, neighbor.poolKey, neighbor.inIs0, amountIn);
  }

  #output(pool: PoolInfo, poolKey: string, inIs0: boolean, amountIn: bigint): bigint {
    const state = this.#states.get(poolKey);
    if (state === undefined) throw new Error(`no state loaded for pool ${pool.address}`);
    return pool.kind.quote(state, pool, inIs0, amountIn);
  }

  /** A pool's mid price, token out per token in (raw units), as a fraction. */
  midPrice(hop: Hop): { numerator: bigint; denominator: bigint } {
    return hop.pool.kind.midPrice(this.#state(hop.pool), key(hop.tokenIn) === key(hop.pool.token0));
  }

  hasToken(token: Address): boolean {
    return this.#byToken.has(key(token));
  }

  pool(address: Address): PoolInfo | undefined {
    return this.#indexes.byAddress.get(key(address));
  }

  /** A position's pool with its LP supply, which deposit and withdraw arithmetic needs. */
  supplied(pool: PoolInfo): Required<PoolReserves> {
    const { reserve0, reserve1, totalSupply } = this.reserves(pool);
    if (totalSupply === undefined) throw new Error(`no LP supply loaded for pool ${pool.address}`);
    return { reserve0, reserve1, totalSupply };
  }

  /** A position pool's reserves (deposits and withdrawals go to pools whose kind has ERC-20 positions only). */
  reserves(pool: PoolInfo): PoolReserves {
    if (!pool.kind.lpPositions) throw new Error(`pool ${pool.address} is a ${pool.kind.id} pool: it has no reserves`);
    return this.#state(pool) as PoolReserves;
  }

  #state(pool: PoolInfo): PoolState {
    const state = this.#states.get(key(pool.address));
    if (state === undefined) throw new Error(`no state loaded for pool ${pool.address}`);
    return state;
  }

  /** A copy whose simulated trades leave this snapshot untouched. */
  clone(): Market {
    return new Market(this.#pools, new Map(this.#states), this.#indexes);
  }

  /** What one hop pays for `amountIn` at the current state. */
  hopOutput(hop: Hop, amountIn: bigint): bigint {
    return this.#output(hop.pool, key(hop.pool.address), key(hop.tokenIn) === key(hop.pool.token0), amountIn);
  }

  /** What a path pays for `amountIn`, without changing the reserves. */
  pathOutput(hops: readonly Hop[], amountIn: bigint): bigint {
    let amount = amountIn;
    for (const hop of hops) amount = this.hopOutput(hop, amount);
    return amount;
  }

  /** Executes a path on this snapshot: every pool on it moves as the swap would move it. Returns the output. */
  apply(hops: readonly Hop[], amountIn: bigint): bigint {
    let amount = amountIn;
    for (const hop of hops) {
      const swapped = hop.pool.kind.swap(this.#state(hop.pool), hop.pool, key(hop.tokenIn) === key(hop.pool.token0), amount);
      if (!swapped) throw new Error(`pool ${hop.pool.address} cannot take ${amount}`);
      this.#states.set(key(hop.pool.address), swapped.state);
      amount = swapped.amountOut;
    }
    return amount;
  }

  /** Sets a pool's state directly (a burn or a mint the simulation accounts for itself). */
  setReserves(pool: PoolInfo, reserves: PoolReserves): void {
    this.#states.set(key(pool.address), reserves);
  }
}
