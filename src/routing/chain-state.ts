/**
 * The chain as the quote engine sees it at one block: the routable pools (the index's, less those under the
 * liquidity floor) with their reserves, and the router's partner fees. Fees are read at start, after a reorg and
 * after the router logs a change; LP supplies only when a deposit or withdraw quote needs them, once per block.
 */
import type { Address, PublicClient } from 'viem';
import { routerFeeAbi, uniswapV2IndexAbi } from '../contracts/abi.ts';
import { Market, type PoolInfo, type PoolState } from './market.ts';
import { defaultAverageWindowSeconds } from '../pools/prices.ts';
import type { PoolIndex, PoolsAtBlock } from './pool-index.ts';

/** The market the search walks, made from the index's PoolsAtBlock, with what quoting needs of the same block. */
export type MarketAtBlock = {
  blockNumber: bigint;
  blockHash: string;
  blockTimestamp: bigint;
  /** The block's base fee: what a hop's gas costs, about. */
  gasPrice: bigint;
  market: Market;
  /** Pools (by lower-case address) left out because nothing the daemon holds a hop to prices them now, and why. */
  unpriced: ReadonlyMap<string, string>;
  /** Fee numerator (over 1e10) the router charges for each partner id; why not, when the router would not say. */
  partnerFees: ReadonlyMap<number, bigint> | { unreadable: string };
};

export type ChainStateOptions = {
  router: Address;
  partnerIds: readonly number[];
  /** A pool with either reserve below this many raw units is left out of routes (dust and abandoned pools). */
  minReserve: bigint;
  /**
   * The tokens (lower-case) the daemon's independent reference prices. A pool whose own mean over the daemon's window
   * cannot be read now (a V3 pool with one oracle observation, written within the window) is held by the daemon to the
   * reference of its two tokens: between two of these it is routed, else left out (a hop the daemon would refuse
   * `no-price`). None: every such pool is routed.
   */
  pricedTokens?: ReadonlySet<string>;
  /** The daemon's price-average window (default 600 s, its own default). */
  windowSeconds?: number;
};

export class ChainState {
  readonly #client: PublicClient;
  readonly #index: PoolIndex;
  readonly #options: ChainStateOptions;
  #fees: { readAt: bigint; hash: string; fees: Promise<ReadonlyMap<number, bigint>> } | undefined;
  #snapshot: { hash: string; snapshot: Promise<MarketAtBlock> } | undefined;
  #supplies: { blockNumber: bigint; byPool: Map<string, Promise<bigint>> } | undefined;

  constructor(client: PublicClient, index: PoolIndex, options: ChainStateOptions) {
    this.#client = client;
    this.#index = index;
    this.#options = options;
  }

  /** The swap view of the latest block. */
  async current(): Promise<MarketAtBlock> {
    const pools = await this.#index.current();
    if (this.#snapshot?.hash !== pools.head.hash) {
      this.#snapshot = { hash: pools.head.hash, snapshot: this.#build(pools) };
      this.#snapshot.snapshot.catch(() => {
        this.#snapshot = undefined;
      });
    }
    return this.#snapshot.snapshot;
  }

  /**
   * `snapshot` with one pool's LP supply, which deposit and withdraw arithmetic needs: read once per block and pool,
   * only for the pools such quotes ask about.
   */
  async withSupply(snapshot: MarketAtBlock, pool: Address): Promise<MarketAtBlock> {
    if (this.#supplies?.blockNumber !== snapshot.blockNumber) this.#supplies = { blockNumber: snapshot.blockNumber, byPool: new Map() };
    const byPool = this.#supplies.byPool;
    let supply = byPool.get(pool.toLowerCase());
    if (!supply) {
      supply = this.#client.readContract({ address: pool, abi: uniswapV2IndexAbi, functionName: 'totalSupply', blockNumber: snapshot.blockNumber });
      byPool.set(pool.toLowerCase(), supply);
      supply.catch(() => byPool.delete(pool.toLowerCase()));
    }
    const totalSupply = await supply;
    const market = snapshot.market.clone();
    const info = market.pool(pool);
    if (info) market.setReserves(info, { ...market.reserves(info), totalSupply });
    return { ...snapshot, market };
  }

  async #build(pools: PoolsAtBlock): Promise<MarketAtBlock> {
    const { minReserve } = this.#options;
    const states = new Map<string, PoolState>();
    const unpriced = new Map<string, string>();
    for (const pool of pools.pools.values()) {
      const key = pool.address.toLowerCase();
      const state = pools.states.get(key);
      if (state === undefined || !pool.kind.routable(state, minReserve)) continue;
      const why = this.#unpricedBecause(pool, state, pools.head.timestamp);
      if (why) unpriced.set(key, why);
      else states.set(key, state);
    }
    const routable = [...pools.pools.values()].filter((pool) => states.has(pool.address.toLowerCase()));
    return {
      blockNumber: pools.head.number,
      blockHash: pools.head.hash,
      blockTimestamp: pools.head.timestamp,
      gasPrice: pools.head.baseFeePerGas,
      market: new Market(routable, states),
      unpriced,
      // A router that will not tell its fees stops only the quotes that carry a partner.
      partnerFees: await this.#partnerFees(pools).catch((error: unknown) => ({ unreadable: (error as Error).message.split('\n')[0] ?? 'unreadable' })),
    };
  }

  /** Why the daemon could not hold a hop through `pool` to anything now, when the state says so: no mean of its own, and a token it does not price. */
  #unpricedBecause(pool: PoolInfo, state: PoolState, now: bigint): string | undefined {
    const priced = this.#options.pricedTokens;
    if (!priced || !pool.kind.historyShort) return undefined;
    const unpricedToken = [pool.token0, pool.token1].find((token) => !priced.has(token.toLowerCase()));
    if (!unpricedToken) return undefined;
    const short = pool.kind.historyShort(state, now, this.#options.windowSeconds ?? defaultAverageWindowSeconds);
    return short && `${pool.kind.name} pool ${pool.address} ${short}, and nothing independent prices ${unpricedToken}`;
  }

  /** Read again when the router logged a change since the last read, or the chain is not the one read. */
  #partnerFees(pools: PoolsAtBlock): Promise<ReadonlyMap<number, bigint>> {
    const last = this.#fees;
    const fresh =
      last && last.readAt >= pools.feesChangedAt && pools.head.number >= last.readAt && !(last.readAt === pools.feesChangedAt && last.hash !== pools.head.hash);
    if (fresh) return last.fees;
    const blockNumber = pools.head.number;
    const fees = Promise.all(
      this.#options.partnerIds.map(async (id) => {
        const fee = await this.#client.readContract({
          address: this.#options.router,
          abi: routerFeeAbi,
          functionName: 'getPartnerFee',
          args: [BigInt(id)],
          blockNumber,
        });
        return [id, fee] as const;
      }),
    ).then((entries) => new Map(entries));
    this.#fees = { readAt: blockNumber, hash: pools.head.hash, fees };
    fees.catch(() => {
      this.#fees = undefined;
    });
    return fees;
  }
}
