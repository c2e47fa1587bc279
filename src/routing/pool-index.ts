/**
 * The Uniswap V2 and V3 pools of a chain's factories, found by the service itself and kept current from each block's
 * own logs: a V2 pool's `Sync` carries its new reserves, a factory's `PairCreated` a new pool with its tokens; a V3
 * factory's `PoolCreated` names a new pool with its fee and tick spacing, a V3 pool's `Initialize` and `Swap` carry
 * its new price, tick and liquidity, its `Mint` and `Burn` the liquidity a position adds or removes between two
 * ticks. Following a new block costs two node requests however many pools there are (its header, then one
 * `eth_getLogs` for the events of every pool at once); only a reorg (or a devnet's revert) reads the pools again, and
 * a V3 pool whose price nears the edge of the ticks read is read again around its new price. What was indexed is
 * kept in a file, so a restart reads only the blocks it missed.
 */
import { type Address, type Hex, type Log, type PublicClient, getAddress, parseEventLogs } from 'viem';
import { routerFeeAbi, routerTenantSwapEventAbi, uniswapV2IndexAbi, uniswapV3FactoryAbi, uniswapV3PoolAbi } from '../contracts/abi.ts';
import type { RoutingFactory } from '../config/chain-data.ts';
import type { PairAdapter } from './adapters.ts';
import type { Head, Reserves } from './block-state.ts';
import { type IndexSnapshot, readIndexCache, writeIndexCache } from './index-cache.ts';
import type { PoolInfo } from './market.ts';
import { type V3PoolState, withPositionChange } from './uniswap-v3-math.ts';
import { readV3PoolState } from './uniswap-v3-state.ts';

/** A factory the service finds pools from, and the adapter its pools are routed through. */
export type FactorySource = RoutingFactory & { adapter: PairAdapter };

/** A pool with its factory, and for a V2 pool its place in the factory's `allPairs` (V3 pools: -1). */
export type IndexedPool = PoolInfo & { factory: Address; index: number };


/** The pools at one block. Never changed once made: the next block makes another. */
export type PoolsAtBlock = {
  head: Head;
  pools: ReadonlyMap<string, IndexedPool>;
  reserves: ReadonlyMap<string, Reserves>;
  /** Each V3 pool's price, liquidity and known ticks at this block. */
  v3: ReadonlyMap<string, V3PoolState>;
  /** How many pairs each V2 factory had at this block (its `allPairs` length), by lower-case address. */
  pairsLength: ReadonlyMap<string, number>;
  /** The last block in which the router's fee settings changed, as far as this index has seen. */
  feesChangedAt: bigint;
  /** The last block whose V3 factories' `PoolCreated` logs are read. */
  v3ScannedTo: bigint;
};

export type PoolIndexOptions = {
  factories: readonly FactorySource[];
  /** The router whose `FeeChanged` events the same log request follows. */
  router?: Address;
  /** Told of every swap the router made for a partner, in the blocks each new state follows. */
  onPartnerSwaps?: (swaps: readonly PartnerSwap[], head: Head) => void;
  /** Pools routed through another adapter than their factory's (the devnet routes some through its second one). */
  adapterOverride?: (pool: Address) => PairAdapter | undefined;
  /**
   * How long a head read is trusted before the next request asks the node again: 0 asks on every request (the
   * devnet, where blocks come on demand); about a block time on a real chain keeps it at one read per block.
   */
  headMaxAgeMs?: number;
  /** Where the index is kept between runs (JSON); none: it is built afresh at every start. */
  cacheFile?: string;
  /** The widest block range one `eth_getLogs` asks for (nodes limit it); more blocks are read in several. */
  maxLogRange?: bigint;
  /**
   * Past this many blocks behind (a long stop), reading every pool's reserves again is cheaper than every block's
   * logs, and within what nodes answer: the pools' tokens are kept, their reserves read afresh (default 2,000).
   */
  maxCatchUpBlocks?: bigint;
  /** The widest block range one `eth_getLogs` for a V3 factory's `PoolCreated` asks for, at a first start (default 50,000). */
  discoveryLogRange?: bigint;
};

const key = (address: Address) => address.toLowerCase();
const watchedEvents = [
  ...uniswapV2IndexAbi.filter((item) => item.type === 'event'),
  ...uniswapV3FactoryAbi.filter((item) => item.type === 'event'),
  ...uniswapV3PoolAbi.filter((item) => item.type === 'event'),
  ...routerFeeAbi.filter((item) => item.type === 'event'),
  ...routerTenantSwapEventAbi,
];
const poolCreatedEvent = uniswapV3FactoryAbi.filter((item) => item.type === 'event');

/** A V3 pool whose price is within this many bitmap words of the edge of those read is read again around it. */
const V3_EDGE_WORDS = 1;

/** A V3 pool created but not yet initialized: no price, nothing to route. */
const uninitialized: V3PoolState = { sqrtPriceX96: 0n, tick: 0, liquidity: 0n, ticks: [], words: { low: -32768, high: 32767 } };

/** A swap the router paid under a partner's id (the public source's `Swap` names it as `tenantId`). */
export type PartnerSwap = { partner: number; tokenIn: Address; amountIn: bigint; txHash: Hex; logIndex: number; blockNumber: bigint };
const CACHE_WRITE_INTERVAL_MS = 30_000;

export class PoolIndex {
  readonly #client: PublicClient;
  readonly #options: PoolIndexOptions;
  readonly #factories: ReadonlyMap<string, FactorySource>;
  #state: PoolsAtBlock | undefined;
  #checkedAt = 0;
  #refreshing: Promise<PoolsAtBlock> | undefined;
  #cacheWrittenAt = 0;
  #cacheWriting: Promise<void> = Promise.resolve();

  constructor(client: PublicClient, options: PoolIndexOptions) {
    this.#client = client;
    this.#options = options;
    this.#factories = new Map(options.factories.map((factory) => [key(factory.address), factory]));
  }

  /** The pools at the latest block (or at the last one read within `headMaxAgeMs`). Concurrent calls share one read. */
  async current(): Promise<PoolsAtBlock> {
    if (this.#state && Date.now() - this.#checkedAt < (this.#options.headMaxAgeMs ?? 0)) return this.#state;
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Writes the cache one last time. */
  async close(): Promise<void> {
    await this.#cacheWriting;
    if (this.#state) await this.#saveCache(this.#state);
  }

  async #refresh(): Promise<PoolsAtBlock> {
    const block = await this.#client.getBlock({ blockTag: 'latest' });
    const head: Head = { number: block.number, hash: block.hash, timestamp: block.timestamp, baseFeePerGas: block.baseFeePerGas ?? 0n };
    const known = this.#state ?? (await this.#fromCache());
    let next: PoolsAtBlock;
    const followable = known && head.number > known.head.number && head.number - known.head.number <= (this.#options.maxCatchUpBlocks ?? 2_000n);
    if (known && known.head.hash === head.hash) next = known;
    else if (known && followable && (await this.#continues(known.head, head, block.parentHash))) next = await this.#follow(known, head);
    else next = await this.#reload(head, known);
    this.#state = next;
    this.#checkedAt = Date.now();
    this.#maybeSaveCache(next);
    return next;
  }

  /** Whether `head` descends from `known` (no reorg between): one more read only when blocks were skipped. */
  async #continues(known: Head, head: Head, parentHash: Hex): Promise<boolean> {
    if (head.number === known.number + 1n) return parentHash === known.hash;
    const then = await this.#client.getBlock({ blockNumber: known.number });
    return then.hash === known.hash;
  }

  /** The next state from the logs of the blocks after `known`'s, up to `head`. */
  async #follow(known: PoolsAtBlock, head: Head): Promise<PoolsAtBlock> {
    const logs =
      head.number === known.head.number + 1n
        ? await this.#client.getLogs({ blockHash: head.hash, events: watchedEvents })
        : await this.#logsBetween(known.head.number + 1n, head.number);
    return this.#recentered(this.#apply(known, head, logs));
  }

  /** The state with every V3 pool whose price nears the edge of the ticks read read again around its price. */
  async #recentered(state: PoolsAtBlock): Promise<PoolsAtBlock> {
    const nearEdge = [...state.pools.values()].filter((pool) => {
      const v3 = state.v3.get(key(pool.address));
      if (!pool.v3 || !v3 || v3.sqrtPriceX96 === 0n) return false;
      const word = Math.floor(Math.floor(v3.tick / pool.v3.tickSpacing) / 256);
      return word - v3.words.low < V3_EDGE_WORDS || v3.words.high - word < V3_EDGE_WORDS;
    });
    if (nearEdge.length === 0) return state;
    const v3 = new Map(state.v3);
    await Promise.all(nearEdge.map(async (pool) => v3.set(key(pool.address), await readV3PoolState(this.#client, pool.address, pool.v3?.tickSpacing ?? 1, state.head.number))));
    return { ...state, v3 };
  }

  async #logsBetween(from: bigint, to: bigint): Promise<Log[]> {
    const range = this.#options.maxLogRange ?? 500n;
    const logs: Log[] = [];
    for (let start = from; start <= to; start += range) {
      const end = start + range - 1n < to ? start + range - 1n : to;
      logs.push(...(await this.#client.getLogs({ fromBlock: start, toBlock: end, events: watchedEvents })));
    }
    return logs;
  }

  #apply(known: PoolsAtBlock, head: Head, logs: readonly Log[]): PoolsAtBlock {
    const pools = new Map(known.pools);
    const reserves = new Map(known.reserves);
    const v3 = new Map(known.v3);
    const pairsLength = new Map(known.pairsLength);
    let feesChangedAt = known.feesChangedAt;
    const router = this.#options.router;
    const partnerSwaps: PartnerSwap[] = [];
    for (const log of parseEventLogs({ abi: watchedEvents, logs: [...logs], strict: false })) {
      if (log.eventName === 'PairCreated') {
        const factory = this.#factories.get(key(log.address));
        const { pair, token0, token1, index } = log.args;
        if (!factory || !pair || !token0 || !token1 || index === undefined) continue;
        const pool = this.#pool(factory, pair, token0, token1, Number(index) - 1);
        pools.set(key(pool.address), pool);
        if (!reserves.has(key(pool.address))) reserves.set(key(pool.address), { reserve0: 0n, reserve1: 0n });
        pairsLength.set(key(factory.address), Math.max(pairsLength.get(key(factory.address)) ?? 0, Number(index)));
      } else if (log.eventName === 'PoolCreated') {
        const factory = this.#factories.get(key(log.address));
        const { pool: address, token0, token1, fee, tickSpacing } = log.args;
        if (factory?.kind !== 'uniswap-v3' || !address || !token0 || !token1 || fee === undefined || tickSpacing === undefined) continue;
        const pool = this.#v3Pool(factory, address, token0, token1, fee, tickSpacing);
        pools.set(key(pool.address), pool);
        if (!v3.has(key(pool.address))) v3.set(key(pool.address), uninitialized);
      } else if ((log.eventName === 'Initialize' || log.eventName === 'Swap') && 'sqrtPriceX96' in log.args) {
        // Both carry the pool's price and tick after them; a swap also its liquidity in range.
        const state = v3.get(key(log.address));
        const { sqrtPriceX96, tick } = log.args;
        if (!state || sqrtPriceX96 === undefined || tick === undefined) continue;
        const liquidity = 'liquidity' in log.args && log.args.liquidity !== undefined ? log.args.liquidity : state.liquidity;
        v3.set(key(log.address), { ...state, sqrtPriceX96, tick, liquidity });
      } else if (log.eventName === 'Mint' || log.eventName === 'Burn') {
        const state = v3.get(key(log.address));
        const { tickLower, tickUpper, amount } = log.args;
        if (!state || tickLower === undefined || tickUpper === undefined || amount === undefined || amount === 0n) continue;
        v3.set(key(log.address), withPositionChange(state, tickLower, tickUpper, log.eventName === 'Mint' ? amount : -amount));
      } else if (log.eventName === 'Sync') {
        // Logs come in chain order: the last Sync of a pool in the range is its state at `head`.
        if (pools.has(key(log.address)) && log.args.reserve0 !== undefined && log.args.reserve1 !== undefined) {
          reserves.set(key(log.address), { reserve0: log.args.reserve0, reserve1: log.args.reserve1 });
        }
      } else if (log.eventName === 'FeeChanged' && router && key(log.address) === key(router) && log.blockNumber !== null) {
        feesChangedAt = log.blockNumber;
      } else if (log.eventName === 'Swap' && 'tenantId' in log.args && router && key(log.address) === key(router)) {
        const { tenantId, input, inputAmount } = log.args;
        if (tenantId && tenantId > 0n && input && inputAmount !== undefined && log.transactionHash && log.logIndex !== null && log.blockNumber !== null) {
          partnerSwaps.push({ partner: Number(tenantId), tokenIn: input, amountIn: inputAmount, txHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber });
        }
      }
    }
    if (partnerSwaps.length > 0) this.#options.onPartnerSwaps?.(partnerSwaps, head);
    return { head, pools, reserves, v3, pairsLength, feesChangedAt, v3ScannedTo: head.number };
  }

  /**
   * Every factory's pools read from the chain at `head`: the pairs each factory lists (only those not already known
   * are asked their tokens, which never change), and every pool's reserves. After a reorg the fee settings are
   * read again too.
   */
  async #reload(head: Head, known: PoolsAtBlock | undefined): Promise<PoolsAtBlock> {
    const blockNumber = head.number;
    const pools = new Map<string, IndexedPool>();
    const pairsLength = new Map<string, number>();
    const knownAt = new Map([...(known?.pools.values() ?? [])].map((pool) => [`${key(pool.factory)}:${pool.index}`, pool]));
    await Promise.all(
      this.#options.factories.map(async (factory) => {
        if (factory.kind === 'uniswap-v3') {
          for (const pool of await this.#v3PoolsFound(factory, known, head.number)) pools.set(key(pool.address), pool);
          return;
        }
        const length = Number(await this.#client.readContract({ address: factory.address, abi: uniswapV2IndexAbi, functionName: 'allPairsLength', blockNumber }));
        pairsLength.set(key(factory.address), length);
        const listed = await Promise.all(
          Array.from({ length }, async (_, index) => {
            const already = knownAt.get(`${key(factory.address)}:${index}`);
            if (already) return already;
            const pair = await this.#client.readContract({ address: factory.address, abi: uniswapV2IndexAbi, functionName: 'allPairs', args: [BigInt(index)], blockNumber });
            const [token0, token1] = await Promise.all([
              this.#client.readContract({ address: pair, abi: uniswapV2IndexAbi, functionName: 'token0', blockNumber }),
              this.#client.readContract({ address: pair, abi: uniswapV2IndexAbi, functionName: 'token1', blockNumber }),
            ]);
            return this.#pool(factory, pair, token0, token1, index);
          }),
        );
        for (const pool of listed) pools.set(key(pool.address), pool);
      }),
    );
    const reserves = new Map<string, Reserves>();
    const v3 = new Map<string, V3PoolState>();
    await Promise.all(
      [...pools.values()].map(async (pool) => {
        if (pool.v3) {
          // A pool announced in blocks a reorg dropped has no code: it is left out, not the whole index.
          const state = await readV3PoolState(this.#client, pool.address, pool.v3.tickSpacing, blockNumber).catch(async (error: unknown) => {
            if ((await this.#client.getCode({ address: pool.address, blockNumber })) === undefined) return undefined;
            throw error;
          });
          if (state) v3.set(key(pool.address), state);
          else pools.delete(key(pool.address));
          return;
        }
        const [reserve0, reserve1] = await this.#client.readContract({ address: pool.address, abi: uniswapV2IndexAbi, functionName: 'getReserves', blockNumber });
        reserves.set(key(pool.address), { reserve0, reserve1 });
      }),
    );
    return { head, pools, reserves, v3, pairsLength, feesChangedAt: head.number, v3ScannedTo: head.number };
  }

  /**
   * A V3 factory's pools up to `toBlock`: those already known, and those its `PoolCreated` logs announce after the
   * last block scanned (from its deployment block at a first start, in ranges of `discoveryLogRange`).
   */
  async #v3PoolsFound(factory: Extract<FactorySource, { kind: 'uniswap-v3' }>, known: PoolsAtBlock | undefined, toBlock: bigint): Promise<IndexedPool[]> {
    const found = [...(known?.pools.values() ?? [])].filter((pool) => key(pool.factory) === key(factory.address) && (known?.v3ScannedTo ?? -1n) <= toBlock);
    const from = known && known.v3ScannedTo <= toBlock ? known.v3ScannedTo + 1n : factory.fromBlock;
    // Nodes cap a log request's range or its answer: a refused range is asked again in halves, down to 100 blocks.
    let range = this.#options.discoveryLogRange ?? 50_000n;
    for (let start = from; start <= toBlock; ) {
      const end = start + range - 1n < toBlock ? start + range - 1n : toBlock;
      const logs = await this.#client.getLogs({ address: factory.address, events: poolCreatedEvent, fromBlock: start, toBlock: end }).catch((error: unknown) => {
        if (range <= 100n) throw error;
        return undefined;
      });
      if (!logs) {
        range /= 2n;
        continue;
      }
      for (const log of parseEventLogs({ abi: poolCreatedEvent, logs, strict: false })) {
        const { pool, token0, token1, fee, tickSpacing } = log.args;
        if (pool && token0 && token1 && fee !== undefined && tickSpacing !== undefined) found.push(this.#v3Pool(factory, pool, token0, token1, fee, tickSpacing));
      }
      start = end + 1n;
    }
    return found;
  }

  #v3Pool(factory: FactorySource, pool: Address, token0: Address, token1: Address, fee: number, tickSpacing: number): IndexedPool {
    const address = getAddress(pool);
    return {
      address,
      token0: getAddress(token0),
      token1: getAddress(token1),
      feeBps: fee / 100,
      v3: { fee, tickSpacing },
      protocol: factory.protocol,
      adapter: factory.adapter,
      factory: factory.address,
      index: -1,
    };
  }

  #pool(factory: FactorySource, pair: Address, token0: Address, token1: Address, index: number): IndexedPool {
    const address = getAddress(pair);
    return {
      address,
      token0: getAddress(token0),
      token1: getAddress(token1),
      feeBps: factory.kind === 'uniswap-v2' ? factory.feeBps : 0,
      protocol: factory.protocol,
      adapter: this.#options.adapterOverride?.(address) ?? factory.adapter,
      factory: factory.address,
      index,
    };
  }

  /** The cached index, when its block is still the chain's (else a reorg passed it: nothing is taken from it). */
  async #fromCache(): Promise<PoolsAtBlock | undefined> {
    const file = this.#options.cacheFile;
    if (!file) return undefined;
    const cached = await readIndexCache(file, this.#options.factories);
    if (!cached) return undefined;
    const block = await this.#client.getBlock({ blockNumber: cached.head.number }).catch(() => undefined);
    if (block?.hash !== cached.head.hash) return undefined;
    const pools = new Map<string, IndexedPool>();
    for (const pool of cached.pools) {
      const factory = this.#factories.get(key(pool.factory));
      if (factory) pools.set(key(pool.address), this.#pool(factory, pool.address, pool.token0, pool.token1, pool.index));
    }
    const v3 = new Map<string, V3PoolState>();
    for (const pool of cached.v3Pools) {
      const factory = this.#factories.get(key(pool.factory));
      if (!factory) continue;
      pools.set(key(pool.address), this.#v3Pool(factory, pool.address, pool.token0, pool.token1, pool.fee, pool.tickSpacing));
      v3.set(key(pool.address), pool.state);
    }
    return { head: cached.head, pools, reserves: cached.reserves, v3, pairsLength: cached.pairsLength, feesChangedAt: cached.head.number, v3ScannedTo: cached.v3ScannedTo };
  }

  #maybeSaveCache(state: PoolsAtBlock) {
    if (!this.#options.cacheFile || Date.now() - this.#cacheWrittenAt < CACHE_WRITE_INTERVAL_MS) return;
    this.#cacheWrittenAt = Date.now();
    this.#cacheWriting = this.#cacheWriting.then(() => this.#saveCache(state)).catch(() => {});
  }

  async #saveCache(state: PoolsAtBlock): Promise<void> {
    const file = this.#options.cacheFile;
    if (!file) return;
    const all = [...state.pools.values()];
    const snapshot: IndexSnapshot = {
      head: state.head,
      pools: all.filter((pool) => !pool.v3),
      reserves: state.reserves,
      pairsLength: state.pairsLength,
      v3Pools: all.flatMap((pool) => {
        const v3 = state.v3.get(key(pool.address));
        return pool.v3 && v3 ? [{ ...pool, fee: pool.v3.fee, tickSpacing: pool.v3.tickSpacing, state: v3 }] : [];
      }),
      v3ScannedTo: state.v3ScannedTo,
    };
    await writeIndexCache(file, { ...snapshot, factories: this.#options.factories.map((factory) => factory.address) });
  }
}
