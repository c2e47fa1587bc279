/**
 * A snapshot of every pool's reserves at one block, with the route search over it.
 * Simulating a trade on a copy (`clone()` then `apply()`) lets deposit and withdraw quotes chain
 * several swaps exactly as they will execute, each seeing the reserves the previous one left.
 */
import { type Address, isAddressEqual } from 'viem';
import { swapOutput } from './amm.ts';

export type PoolInfo = {
  address: Address;
  token0: Address;
  token1: Address;
  feePerMille: number;
  /** Protocol id, for the `exclude` parameter. */
  protocol: string;
};

export type PoolReserves = { reserve0: bigint; reserve1: bigint; totalSupply: bigint };

export type Hop = { pool: PoolInfo; tokenIn: Address; tokenOut: Address };

export type RouteSearch = { maxHops: number; exclude?: readonly string[] };

const key = (address: Address) => address.toLowerCase();

type TokenIndex = Map<string, { pool: PoolInfo; other: Address }[]>;

export class Market {
  readonly #pools: readonly PoolInfo[];
  readonly #byToken: TokenIndex;
  readonly #reserves: Map<string, PoolReserves>;

  constructor(pools: readonly PoolInfo[], reserves: Map<string, PoolReserves>, byToken?: TokenIndex) {
    this.#pools = pools;
    this.#reserves = reserves;
    this.#byToken = byToken ?? Market.#index(pools);
  }

  static #index(pools: readonly PoolInfo[]): TokenIndex {
    const byToken: TokenIndex = new Map();
    for (const pool of pools) {
      for (const [from, other] of [
        [pool.token0, pool.token1],
        [pool.token1, pool.token0],
      ] as const) {
        const list = byToken.get(key(from)) ?? [];
        list.push({ pool, other });
        byToken.set(key(from), list);
      }
    }
    return byToken;
  }

  get pools(): readonly PoolInfo[] {
    return this.#pools;
  }

  hasToken(token: Address): boolean {
    return this.#byToken.has(key(token));
  }

  pool(address: Address): PoolInfo | undefined {
    return this.#pools.find((pool) => isAddressEqual(pool.address, address));
  }

  reserves(pool: PoolInfo): PoolReserves {
    const reserves = this.#reserves.get(key(pool.address));
    if (!reserves) throw new Error(`no reserves loaded for pool ${pool.address}`);
    return reserves;
  }

  /** A copy whose simulated trades leave this snapshot untouched. */
  clone(): Market {
    return new Market(this.#pools, new Map(this.#reserves), this.#byToken);
  }

  /** What one hop pays for `amountIn` at the current reserves. */
  hopOutput(hop: Hop, amountIn: bigint): bigint {
    const { reserve0, reserve1 } = this.reserves(hop.pool);
    const inIs0 = isAddressEqual(hop.tokenIn, hop.pool.token0);
    return swapOutput(amountIn, inIs0 ? reserve0 : reserve1, inIs0 ? reserve1 : reserve0, hop.pool.feePerMille);
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
      const inIs0 = isAddressEqual(hop.tokenIn, hop.pool.token0);
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

  /**
   * The path from `tokenIn` to `tokenOut` of at most `maxHops` hops that pays the most for `amountIn`,
   * visiting no token (and so no pool) twice. Ties go to the shorter path. Undefined when none pays anything.
   */
  bestPath(tokenIn: Address, tokenOut: Address, amountIn: bigint, search: RouteSearch): { hops: Hop[]; amountOut: bigint } | undefined {
    const excluded = new Set(search.exclude ?? []);
    const target = key(tokenOut);
    const visited = new Set<string>([key(tokenIn)]);
    const hops: Hop[] = [];
    let best: { hops: Hop[]; amountOut: bigint } | undefined;

    const visit = (token: Address, amount: bigint) => {
      for (const { pool, other } of this.#byToken.get(key(token)) ?? []) {
        if (excluded.has(pool.protocol) || visited.has(key(other))) continue;
        const hop = { pool, tokenIn: token, tokenOut: other };
        const out = this.hopOutput(hop, amount);
        if (out === 0n) continue;
        hops.push(hop);
        if (key(other) === target) {
          if (!best || out > best.amountOut || (out === best.amountOut && hops.length < best.hops.length)) {
            best = { hops: [...hops], amountOut: out };
          }
        } else if (hops.length < search.maxHops) {
          visited.add(key(other));
          visit(other, out);
          visited.delete(key(other));
        }
        hops.pop();
      }
    };
    visit(tokenIn, amountIn);
    return best;
  }
}
