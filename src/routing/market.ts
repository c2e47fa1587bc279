/**
 * A snapshot of every pool's reserves at one block, indexed by token for the route search (search.ts).
 * Simulating a trade on a copy (`clone()` then `apply()`) lets deposit and withdraw quotes chain
 * several swaps exactly as they will execute, each seeing the reserves the previous one left.
 */
import type { Address } from 'viem';
import type { PairAdapter } from './adapters.ts';
import { swapOutput } from './amm.ts';

export type PoolInfo = {
  address: Address;
  token0: Address;
  token1: Address;
  /** The pool's swap fee in basis points (30 = 0.3%). */
  feeBps: number;
  /** Protocol id, for the `exclude` parameter (`ubeswap`, `sushiswap`, …). */
  protocol: string;
  /** The adapter routes through this pool name in `pairs`. */
  adapter: PairAdapter;
};

/** A pool's reserves; its LP supply only where a deposit or withdraw quote needed it. */
export type PoolReserves = { reserve0: bigint; reserve1: bigint; totalSupply?: bigint };

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
  readonly #reserves: Map<string, PoolReserves>;

  constructor(pools: readonly PoolInfo[], reserves: Map<string, PoolReserves>, indexes?: PoolIndexes) {
    this.#pools = pools;
    this.#reserves = reserves;
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

  /** What a neighbor's pool pays for `amountIn` of the token it was reached from (the search's hot path). */
  neighborOutput(neighbor: Neighbor, amountIn: bigint): bigint {
    const reserves = this.#reserves.get(neighbor.poolKey);
    if (!reserves) throw new Error(`no reserves loaded for pool ${neighbor.pool.address}`);
    const { reserve0, reserve1 } = reserves;
    return swapOutput(amountIn, neighbor.inIs0 ? reserve0 : reserve1, neighbor.inIs0 ? reserve1 : reserve0, neighbor.pool.feeBps);
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

  reserves(pool: PoolInfo): PoolReserves {
    const reserves = this.#reserves.get(key(pool.address));
    if (!reserves) throw new Error(`no reserves loaded for pool ${pool.address}`);
    return reserves;
  }

  /** A copy whose simulated trades leave this snapshot untouched. */
  clone(): Market {
    return new Market(this.#pools, new Map(this.#reserves), this.#indexes);
  }

  /** What one hop pays for `amountIn` at the current reserves. */
  hopOutput(hop: Hop, amountIn: bigint): bigint {
    const { reserve0, reserve1 } = this.reserves(hop.pool);
    const inIs0 = key(hop.tokenIn) === key(hop.pool.token0);
    return swapOutput(amountIn, inIs0 ? reserve0 : reserve1, inIs0 ? reserve1 : reserve0, hop.pool.feeBps);
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
      const out = this.hopOutput(hop, amount);
      const { reserve0, reserve1, totalSupply } = this.reserves(hop.pool);
      const inIs0 = key(hop.tokenIn) === key(hop.pool.token0);
      this.#reserves.set(
        key(hop.pool.address),
        inIs0
          ? { reserve0: reserve0 + amount, reserve1: reserve1 - out, totalSupply }
          : { reserve0: reserve0 - out, reserve1: reserve1 + amount, totalSupply },
      );
      amount = out;
    }
    return amount;
  }

  /** Sets a pool's state directly (a burn or a mint the simulation accounts for itself). */
  setReserves(pool: PoolInfo, reserves: PoolReserves): void {
    this.#reserves.set(key(pool.address), reserves);
  }
}
