/**
 * The pools of a chain's factories, found by the service itself and kept current from each block's own logs, each
 * kind of pool by its module (src/pools/): a factory's kind finds its pools (a V2 factory's `allPairs`, a V3 factory's
 * `PoolCreated` logs) and takes the logs of its factories and pools (a V2 pool's `Sync`, a V3 pool's `Swap`, `Mint`,
 * `Burn`…); this index asks for them, gives each log to the kind of the pool or factory that emitted it, and follows
 * the router's fee changes and partner swaps itself. Following a new block costs two node requests however many
 * pools there are (its header, then one `eth_getLogs` for the events of every pool at once), and one more for a kind
 * whose state moves with more than its logs (Mento's exchanges: one call for all of them); only a reorg (or a
 * devnet's revert) reads the pools again, and a pool whose kind says following is not enough (a V3 pool near the
 * edge of the ticks read) is read again. What was indexed is kept in a file, so a restart reads only the blocks it
 * missed.
 *
 * Venues change under it as governance changes them, and one venue's change is that venue's alone: the same log
 * request carries the events that create and destroy pools a factory's own reads only list (a Mento exchange's
 * provider's, a Mento v3 factory's), and such a log has the factory's pools read again in that block; each pool's
 * every-block read answers on its own, so a pool whose views revert is left unroutable with the reason (and one whose
 * settings moved is read again) while every other pool is read, quoted and kept fresh in the same block.
 */
import { type Address, type Hex, type Log, type PublicClient, parseEventLogs } from 'viem';
import { routerFeeAbi, routerTenantSwapEventAbi } from '../contracts/abi.ts';
import { isContractRevert, reasonOf } from '../contracts/revert.ts';
import { isUnreadable, readEach } from '../pools/batch-read.ts';
import type { DecodedLog, EveryBlockRead, FactorySource, Head, IndexDraft, IndexedPool, PairAdapter } from '../pools/kind.ts';
import { poolKindEvents, poolKinds } from '../pools/registry.ts';
import { readIndexCache, writeIndexCache } from './index-cache.ts';

/** The pools at one block. Never changed once made: the next block makes another. */
export type PoolsAtBlock = {
  head: Head;
  pools: ReadonlyMap<string, IndexedPool>;
  /** Each pool's state at this block, as its kind keeps it. */
  states: ReadonlyMap<string, unknown>;
  /** How far each factory's discovery got (by lower-case address): a number only its kind reads. */
  progress: ReadonlyMap<string, bigint>;
  /** The last block in which the router's fee settings changed, as far as this index has seen. */
  feesChangedAt: bigint;
  /**
   * The pools (by lower-case address) whose state could not be read at this block, and why (a destroyed exchange, a
   * feed removed from its BreakerBox, a pool whose views revert): they have no state here, so nothing routes through
   * them, and every other pool is read as usual.
   */
  unroutable: ReadonlyMap<string, string>;
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
const routerEvents = [...routerFeeAbi.filter((item) => item.type === 'event'), ...routerTenantSwapEventAbi];
const watchedEvents = [...poolKindEvents, ...routerEvents];

/** A swap the router paid under a partner's id (the public source's `Swap` names it as `tenantId`). */
export type PartnerSwap = { partner: number; tokenIn: Address; amountIn: bigint; txHash: Hex; logIndex: number; blockNumber: bigint };
const CACHE_WRITE_INTERVAL_MS = 30_000;

export class PoolIndex {
  readonly #client: PublicClient;
  readonly #options: PoolIndexOptions;
  readonly #factories: ReadonlyMap<string, FactorySource>;
  /** The factory of each address whose logs announce pools: the factories, and what their kinds name (`logSources`). */
  readonly #announcers: ReadonlyMap<string, FactorySource>;
  /**
   * Factories whose pools are read again in the first block followed after a start from the index file: the file keeps
   * only pools that had a state, so a venue unroutable when it was written (a destroyed feed, a pool whose views
   * reverted) is found again this way, for the one discovery it costs.
   */
  #rediscoverAfterCache = new Set<string>();
  #state: PoolsAtBlock | undefined;
  #checkedAt = 0;
  #refreshing: Promise<PoolsAtBlock> | undefined;
  #cacheWrittenAt = 0;
  #cacheWriting: Promise<void> = Promise.resolve();

  constructor(client: PublicClient, options: PoolIndexOptions) {
    this.#client = client;
    this.#options = options;
    this.#factories = new Map(options.factories.map((factory) => [key(factory.address), factory]));
    this.#announcers = new Map(
      options.factories.flatMap((factory) =>
        [factory.address, ...(poolKinds[factory.kind].logSources?.(factory) ?? [])].map((at) => [key(at), factory] as const),
      ),
    );
  }

  /** The pools at the latest block (or at the last one read within `headMaxAgeMs`). Concurrent calls share one read. */
  async current(): Promise<PoolsAtBlock> {
    if (this.#state && Date.now() - this.#checkedAt < (this.#options.headMaxAgeMs ?? 0)) return this.#state;
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  get #maxCatchUpBlocks(): bigint {
    return this.#options.maxCatchUpBlocks ?? 2_000n;
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
    const followable = known && head.number > known.head.number && head.number - known.head.number <= this.#maxCatchUpBlocks;
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
    const { state, rediscover } = this.#apply(known, head, logs);
    const again = new Set([...rediscover, ...this.#rediscoverAfterCache]);
    this.#rediscoverAfterCache = new Set();
    return this.#readEveryBlock(await this.#recentered(await this.#rediscovered(state, again)));
  }

  /**
   * The state with the pools of each factory a log asked to be read again (a Mento exchange created, a Mento v3 pool
   * deployed) as its kind's discovery finds them at the head: new ones added, ones no longer listed dropped. Only in
   * the blocks with such a log; the new pools' states are read with the block's others.
   */
  async #rediscovered(state: PoolsAtBlock, factories: ReadonlySet<string>): Promise<PoolsAtBlock> {
    if (factories.size === 0) return state;
    const pools = new Map(state.pools);
    const states = new Map(state.states);
    const progress = new Map(state.progress);
    const unroutable = new Map(state.unroutable);
    for (const factoryKey of factories) {
      const factory = this.#factories.get(factoryKey);
      if (!factory) continue;
      const ofFactory = [...pools.values()].filter((pool) => key(pool.factory) === factoryKey);
      const found = await poolKinds[factory.kind].discover(this.#client, factory, { pools: ofFactory, progress: progress.get(factoryKey) }, state.head);
      progress.set(factoryKey, found.progress);
      const listed = new Set(found.pools.map((pool) => key(pool.address)));
      for (const pool of ofFactory) {
        if (listed.has(key(pool.address))) continue;
        pools.delete(key(pool.address));
        states.delete(key(pool.address));
        unroutable.delete(key(pool.address));
      }
      for (const pool of found.pools) {
        const isNew = !pools.has(key(pool.address));
        // A known pool is taken as found now too: what was read of it once (a Mento v3 pool's adapter) may have moved.
        pools.set(key(pool.address), this.#routed(pool));
        if (isNew && !pool.kind.readEveryBlock) await this.#readInto(pool, state.head.number, states, unroutable);
      }
    }
    return { ...state, pools, states, progress, unroutable };
  }

  /**
   * One pool's state read into `states`; a pool whose views revert is left out with the reason, one with no code
   * (announced in blocks a reorg dropped) is dropped from `pools` when given. A node that does not answer throws.
   */
  async #readInto(pool: IndexedPool, blockNumber: bigint, states: Map<string, unknown>, unroutable: Map<string, string>, pools?: Map<string, IndexedPool>) {
    const poolKey = key(pool.address);
    try {
      const read = await pool.kind.readState(this.#client, pool, blockNumber);
      if (read === undefined) {
        pools?.delete(poolKey);
        states.delete(poolKey);
        return;
      }
      states.set(poolKey, read);
      unroutable.delete(poolKey);
    } catch (error) {
      if (!isContractRevert(error)) throw error;
      states.delete(poolKey);
      unroutable.set(poolKey, `${pool.kind.name} pool ${pool.address}: its state reverts: ${reasonOf(error)}`);
    }
  }

  /**
   * The state with the pools of each kind whose state moves with more than its logs (a Mento exchange) read at its
   * head: one request for all of them, however many kinds and pools. A pool whose settings moved since they were read
   * (a Mento v3 pool's oracle adapter) has its factory's pools read again and the block read once more: never
   * quoted at the old settings, and only in the block they moved.
   */
  async #readEveryBlock(state: PoolsAtBlock, again = true): Promise<PoolsAtBlock> {
    const read = await this.#readEveryBlockOnce(state);
    if (read.rediscover.size === 0 || !again) return read.state;
    return this.#readEveryBlock(await this.#rediscovered(read.state, read.rediscover), false);
  }

  async #readEveryBlockOnce(state: PoolsAtBlock): Promise<{ state: PoolsAtBlock; rediscover: ReadonlySet<string> }> {
    const rediscover = new Set<string>();
    const byKind = new Map<EveryBlockRead<unknown>, IndexedPool[]>();
    for (const pool of state.pools.values())
      if (pool.kind.readEveryBlock) byKind.set(pool.kind.readEveryBlock, [...(byKind.get(pool.kind.readEveryBlock) ?? []), pool]);
    if (byKind.size === 0) return { state, rediscover };
    const reads = [...byKind].map(([read, pools]) => ({ read, pools, calls: read.calls(pools) }));
    // Each call answers on its own: one pool's reverting view leaves that pool unroutable, never the block unread.
    const answers = await readEach(
      this.#client,
      reads.flatMap((entry) => entry.calls),
      state.head.number,
    );
    const states = new Map(state.states);
    const unroutable = new Map(state.unroutable);
    let offset = 0;
    for (const { read, pools, calls } of reads) {
      for (const [poolKey, poolState] of read.states(pools, answers.slice(offset, offset + calls.length), state.head)) {
        if (isUnreadable(poolState)) {
          states.delete(poolKey);
          unroutable.set(poolKey, poolState.unreadable);
          const factory = state.pools.get(poolKey)?.factory;
          if (poolState.rediscover && factory) rediscover.add(key(factory));
        } else {
          states.set(poolKey, poolState);
          unroutable.delete(poolKey);
        }
      }
      offset += calls.length;
    }
    return { state: { ...state, states, unroutable }, rediscover };
  }

  /** The state with every pool whose kind says its followed state is not enough (a V3 pool near its ticks' edge) read again. */
  async #recentered(state: PoolsAtBlock): Promise<PoolsAtBlock> {
    const stale = [...state.pools.values()].filter((pool) => {
      const poolState = state.states.get(key(pool.address));
      return poolState !== undefined && pool.kind.needsRead(pool, poolState);
    });
    if (stale.length === 0) return state;
    const states = new Map(state.states);
    const unroutable = new Map(state.unroutable);
    await Promise.all(stale.map((pool) => this.#readInto(pool, state.head.number, states, unroutable)));
    return { ...state, states, unroutable };
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

  /** The state the logs leave, and the factories whose pools only a read can tell (see `IndexDraft.rediscover`). */
  #apply(known: PoolsAtBlock, head: Head, logs: readonly Log[]): { state: PoolsAtBlock; rediscover: ReadonlySet<string> } {
    const draft: IndexDraft = {
      pools: new Map(known.pools),
      states: new Map(known.states),
      progress: new Map(known.progress),
      rediscover: new Set(),
      time: head.timestamp,
      factory: (address) => this.#announcers.get(key(address)),
    };
    let feesChangedAt = known.feesChangedAt;
    const router = this.#options.router;
    const partnerSwaps: PartnerSwap[] = [];
    for (const log of parseEventLogs({ abi: watchedEvents, logs: [...logs], strict: false })) {
      if (router && key(log.address) === key(router)) {
        if (log.eventName === 'FeeChanged' && log.blockNumber !== null) feesChangedAt = log.blockNumber;
        else if (log.eventName === 'Swap' && 'tenantId' in log.args) {
          const { tenantId, input, inputAmount } = log.args as { tenantId?: bigint; input?: Address; inputAmount?: bigint };
          if (tenantId && tenantId > 0n && input && inputAmount !== undefined && log.transactionHash && log.logIndex !== null && log.blockNumber !== null) {
            partnerSwaps.push({
              partner: Number(tenantId),
              tokenIn: input,
              amountIn: inputAmount,
              txHash: log.transactionHash,
              logIndex: log.logIndex,
              blockNumber: log.blockNumber,
            });
          }
        }
        continue;
      }
      // A pool's own kind, or its factory's, takes the log.
      const factory = this.#announcers.get(key(log.address));
      const kind = draft.pools.get(key(log.address))?.kind ?? (factory && poolKinds[factory.kind]);
      kind?.follow(log as unknown as DecodedLog, draft);
    }
    for (const pool of draft.pools.values()) if (!known.pools.has(key(pool.address))) draft.pools.set(key(pool.address), this.#routed(pool));
    for (const factory of this.#options.factories) {
      const progress = poolKinds[factory.kind].progressAfter(draft.progress.get(key(factory.address)), head);
      if (progress !== undefined) draft.progress.set(key(factory.address), progress);
    }
    if (partnerSwaps.length > 0) this.#options.onPartnerSwaps?.(partnerSwaps, head);
    const unroutable = new Map([...known.unroutable].filter(([poolKey]) => draft.pools.has(poolKey)));
    return { state: { head, pools: draft.pools, states: draft.states, progress: draft.progress, feesChangedAt, unroutable }, rediscover: draft.rediscover };
  }

  /** A pool with the adapter it is routed through (its factory's, or an override's). */
  #routed(pool: IndexedPool): IndexedPool {
    const adapter = this.#options.adapterOverride?.(pool.address);
    return adapter ? { ...pool, adapter } : pool;
  }

  /**
   * Every factory's pools read from the chain at `head`, each found as its kind finds them (those already known are
   * kept, not asked again: a pool's tokens never change), and every pool's state. After a reorg the fee settings
   * are read again too. A pool whose state cannot be read because it has no code (announced in blocks a reorg
   * dropped) is left out, not the whole index.
   */
  async #reload(head: Head, known: PoolsAtBlock | undefined): Promise<PoolsAtBlock> {
    // Every factory is discovered afresh here: nothing is left to read again after a start from the file.
    this.#rediscoverAfterCache = new Set();
    const pools = new Map<string, IndexedPool>();
    const progress = new Map<string, bigint>();
    const knownPools = [...(known?.pools.values() ?? [])];
    await Promise.all(
      this.#options.factories.map(async (factory) => {
        const ofFactory = knownPools.filter((pool) => key(pool.factory) === key(factory.address));
        const kind = poolKinds[factory.kind];
        // Reloaded from a known state (a reorg, a revert, a long stop): what was found in the blocks just before may
        // have moved, so a kind whose progress is a block looks again from a catch-up's depth back.
        const reached = known?.progress.get(key(factory.address));
        const from = reached !== undefined && kind.progressBefore ? kind.progressBefore(reached, this.#maxCatchUpBlocks) : reached;
        const found = await kind.discover(this.#client, factory, { pools: ofFactory, progress: from }, head);
        progress.set(key(factory.address), found.progress);
        for (const pool of found.pools) pools.set(key(pool.address), this.#routed(pool));
      }),
    );
    const states = new Map<string, unknown>();
    const unroutable = new Map<string, string>();
    await Promise.all(
      [...pools.values()].filter((pool) => !pool.kind.readEveryBlock).map((pool) => this.#readInto(pool, head.number, states, unroutable, pools)),
    );
    return this.#readEveryBlock({ head, pools, states, progress, feesChangedAt: head.number, unroutable });
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
    const states = new Map<string, unknown>();
    for (const entry of cached.pools) {
      const factory = this.#factories.get(key(entry.factory));
      if (!factory || factory.kind !== entry.kind) continue;
      const { pool, state } = poolKinds[entry.kind].fromCache(entry, factory);
      pools.set(key(pool.address), this.#routed(pool));
      states.set(key(pool.address), state);
    }
    this.#rediscoverAfterCache = new Set(
      this.#options.factories.filter((factory) => poolKinds[factory.kind].readEveryBlock).map((factory) => key(factory.address)),
    );
    return { head: cached.head, pools, states, progress: cached.progress, feesChangedAt: cached.head.number, unroutable: new Map() };
  }

  #maybeSaveCache(state: PoolsAtBlock) {
    if (!this.#options.cacheFile || Date.now() - this.#cacheWrittenAt < CACHE_WRITE_INTERVAL_MS) return;
    this.#cacheWrittenAt = Date.now();
    this.#cacheWriting = this.#cacheWriting.then(() => this.#saveCache(state)).catch(() => {});
  }

  async #saveCache(state: PoolsAtBlock): Promise<void> {
    const file = this.#options.cacheFile;
    if (!file) return;
    const pools = [...state.pools.values()].flatMap((pool) => {
      const poolState = state.states.get(key(pool.address));
      return poolState === undefined ? [] : [pool.kind.toCache(pool, poolState)];
    });
    await writeIndexCache(file, { head: state.head, pools, progress: state.progress, factories: this.#options.factories.map((factory) => factory.address) });
  }
}
