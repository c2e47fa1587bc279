/**
 * The Uniswap V2 pools of a chain's factories, found by the service itself and kept current from each block's own
 * logs: a pool's `Sync` carries its new reserves, a factory's `PairCreated` a new pool with its tokens. Following a
 * new block costs two node requests however many pools there are (its header, then one `eth_getLogs` for the
 * events of every pool at once); only a reorg (or a devnet's revert) reads the pools again. What was indexed is
 * kept in a file, so a restart reads only the blocks it missed.
 */
import { type Address, type Hex, type Log, type PublicClient, getAddress, parseEventLogs } from 'viem';
import { routerFeeAbi, routerTenantSwapEventAbi, uniswapV2IndexAbi } from '../contracts/abi.ts';
import type { PairAdapter } from './adapters.ts';
import type { Head, Reserves } from './block-state.ts';
import { type IndexSnapshot, readIndexCache, writeIndexCache } from './index-cache.ts';
import type { PoolInfo } from './market.ts';

/** A Uniswap V2 factory the service finds pools from, and how its pools are routed. */
export type FactorySource = { address: Address; protocol: string; feeBps: number; adapter: PairAdapter };

export type IndexedPool = PoolInfo & { factory: Address; index: number };


/** The pools at one block. Never changed once made: the next block makes another. */
export type PoolsAtBlock = {
  head: Head;
  pools: ReadonlyMap<string, IndexedPool>;
  reserves: ReadonlyMap<string, Reserves>;
  /** How many pairs each factory had at this block (its `allPairs` length), by lower-case address. */
  pairsLength: ReadonlyMap<string, number>;
  /** The last block in which the router's fee settings changed, as far as this index has seen. */
  feesChangedAt: bigint;
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
};

const key = (address: Address) => address.toLowerCase();
const watchedEvents = [
  ...uniswapV2IndexAbi.filter((item) => item.type === 'event'),
  ...routerFeeAbi.filter((item) => item.type === 'event'),
  ...routerTenantSwapEventAbi,
];

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
    return this.#apply(known, head, logs);
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
      } else if (log.eventName === 'Sync') {
        // Logs come in chain order: the last Sync of a pool in the range is its state at `head`.
        if (pools.has(key(log.address)) && log.args.reserve0 !== undefined && log.args.reserve1 !== undefined) {
          reserves.set(key(log.address), { reserve0: log.args.reserve0, reserve1: log.args.reserve1 });
        }
      } else if (log.eventName === 'FeeChanged' && router && key(log.address) === key(router) && log.blockNumber !== null) {
        feesChangedAt = log.blockNumber;
      } else if (log.eventName === 'Swap' && router && key(log.address) === key(router)) {
        const { tenantId, input, inputAmount } = log.args;
        if (tenantId && tenantId > 0n && input && inputAmount !== undefined && log.transactionHash && log.logIndex !== null && log.blockNumber !== null) {
          partnerSwaps.push({ partner: Number(tenantId), tokenIn: input, amountIn: inputAmount, txHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber });
        }
      }
    }
    if (partnerSwaps.length > 0) this.#options.onPartnerSwaps?.(partnerSwaps, head);
    return { head, pools, reserves, pairsLength, feesChangedAt };
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
    await Promise.all(
      [...pools.values()].map(async (pool) => {
        const [reserve0, reserve1] = await this.#client.readContract({ address: pool.address, abi: uniswapV2IndexAbi, functionName: 'getReserves', blockNumber });
        reserves.set(key(pool.address), { reserve0, reserve1 });
      }),
    );
    return { head, pools, reserves, pairsLength, feesChangedAt: head.number };
  }

  #pool(factory: FactorySource, pair: Address, token0: Address, token1: Address, index: number): IndexedPool {
    const address = getAddress(pair);
    return {
      address,
      token0: getAddress(token0),
      token1: getAddress(token1),
      feeBps: factory.feeBps,
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
    return { head: cached.head, pools, reserves: cached.reserves, pairsLength: cached.pairsLength, feesChangedAt: cached.head.number };
  }

  #maybeSaveCache(state: PoolsAtBlock) {
    if (!this.#options.cacheFile || Date.now() - this.#cacheWrittenAt < CACHE_WRITE_INTERVAL_MS) return;
    this.#cacheWrittenAt = Date.now();
    this.#cacheWriting = this.#cacheWriting.then(() => this.#saveCache(state)).catch(() => {});
  }

  async #saveCache(state: PoolsAtBlock): Promise<void> {
    const file = this.#options.cacheFile;
    if (!file) return;
    const snapshot: IndexSnapshot = { head: state.head, pools: [...state.pools.values()], reserves: state.reserves, pairsLength: state.pairsLength };
    await writeIndexCache(file, snapshot);
  }
}
