/**
 * What a kind of pool is to the routing service: one module per kind (Uniswap V2's constant product, Uniswap V3's
 * concentrated liquidity, …) with this one shape, so that the index, the search, the server and `doctor` see pool
 * kinds only through it, and a new venue is one new module (and a line in `registry.ts`):
 *  - how its factory's pools are found (`discover`) and how each block's logs move them (`events`, `follow`), read
 *    afresh when that is not enough (`readState`, `needsRead`);
 *  - its exact quote (`quote`, `swap`, `midPrice`), the state it needs (`State`), and when a pool is worth routing;
 *  - its adapters' `extras` encoding and how people read it;
 *  - its state as the index file keeps it;
 *  - for the daemon (src/guard/route.ts, src/price/pool-average.ts): the pool a hop's `extras` names, how a known
 *    factory is proven to have made it (and at what fee), and where its steady price comes from.
 * Models: Swappa's `src/pairs/*.ts` (one file per pair kind behind one interface), Balancer's b-sdk pool classes.
 */
import type { AbiEvent, Address, Hex, PublicClient } from 'viem';
import type { FeePpm, KnownFactory, RoutingFactory } from '../config/chain-data.ts';
import type { CallAnswer, Unreadable } from './batch-read.ts';

export type { CallAnswer, Unreadable };
import type { FpmmPool } from './mento-fpmm/state.ts';
import type { MentoExchange } from './mento/state.ts';
import type { PoolPrices, ShortHistory } from './prices.ts';

/** The kinds of pool, by the id routes and chain data name them with. */
export type PoolKindId = 'uniswap-v2' | 'uniswap-v3' | 'mento-v2' | 'mento-fpmm';

/** How a Uniswap V2 adapter's fee byte counts: Minima's (and the devnet's) per mille, Swappa's in basis points. */
export type FeeUnit = 'per-mille' | 'bips';

/** A pair adapter (ISwappaPairV1) for one kind of pool; `feeUnit` for the kinds whose `extras` carry a fee byte. */
export type PairAdapter = { address: Address; kind: PoolKindId; feeUnit?: FeeUnit };

/** A factory the service finds pools from, and the adapter its pools are routed through. */
export type FactorySource = RoutingFactory & { adapter: PairAdapter };

/** A pool as the service routes it. */
export type PoolInfo = {
  address: Address;
  token0: Address;
  token1: Address;
  /** The pool's swap fee in basis points (30 = 0.3%; a 0.05% pool's is 5). */
  feeBps: number;
  /** Its kind's module: every question about its state goes there. */
  kind: PoolKind;
  /** A Uniswap V3 pool's fee in hundredths of a basis point and its tick spacing (its kind's immutables). */
  v3?: { fee: number; tickSpacing: number };
  /** A Mento exchange's Broker, provider, id and what never changes for it (its kind's immutables). */
  mento?: MentoExchange;
  /** A Mento v3 fixed-price pool's factory, tokens, rate feed and what never changes for it. */
  fpmm?: FpmmPool;
  /** Protocol id, for the `exclude` parameter (`ubeswap`, `sushiswap`, …). */
  protocol: string;
  /** The adapter routes through this pool name in `pairs`. */
  adapter: PairAdapter;
};

/** A pool with its factory, and for a pool its factory lists by number (Uniswap V2's `allPairs`) its place there (else -1). */
export type IndexedPool = PoolInfo & { factory: Address; index: number };

/** A block as the index knows it; its base fee prices the gas of a route's hops. */
export type Head = { number: bigint; hash: Hex; timestamp: bigint; baseFeePerGas: bigint };

/** A log the index decoded, with the name and arguments of its event. */
export type DecodedLog = { address: Address; eventName: string; args: Record<string, unknown>; blockNumber: bigint | null };

/** The index being built from one block's logs: a kind adds its pools and moves their states. */
export type IndexDraft = {
  pools: Map<string, IndexedPool>;
  states: Map<string, unknown>;
  /** How far each factory's discovery got (by lower-case address; see `PoolKind.discover`). */
  progress: Map<string, bigint>;
  /**
   * The factories (lower-case addresses) whose pools a log says changed in a way only a read can tell (a Mento exchange
   * created): the index asks their kind's `discover` again at the draft's head, before the block's state is read.
   */
  rediscover: Set<string>;
  /**
   * The time of the block whose logs are applied (in a catch-up over several blocks, the last one's: what a log dates
   * by it looks later than it was, never earlier).
   */
  time: bigint;
  /** The factory at an address, or whose pools an address announces (`logSources`), when the service finds pools from it. */
  factory(address: Address): FactorySource | undefined;
};

/** A kind's reads of its pools' states at each block: the contract calls, and the states from their answers. */
export type EveryBlockRead<State> = {
  calls(pools: readonly IndexedPool[]): readonly unknown[];
  /**
   * The pools' states (by lower-case address) from the answers to `calls`, in its order, as of `head`; a pool one of
   * whose calls failed is `Unreadable`, with the call that failed, and every other pool is read as usual.
   */
  states(pools: readonly IndexedPool[], answers: readonly CallAnswer[], head: Head): Map<string, State | Unreadable>;
};

/** A pool's token amounts' ratio as a fraction (token out per token in, raw units). */
export type Fraction = { numerator: bigint; denominator: bigint };

/** What the daemon reads of the chain to prove a pool, each answer kept for the process (src/guard/route.ts). */
export type PoolFacts = {
  client: PublicClient;
  /** An address a view answers that never changes once non-zero (a factory's pair for two tokens): read once. */
  address(key: string, read: () => Promise<Address>): Promise<Address>;
  /** A number a view answers that never changes (a pool's fee): read once; undefined when the view reverts. */
  number(key: string, read: () => Promise<number>): Promise<number | undefined>;
};

/**
 * Where a pool's steady price comes from: its own oracle, asked for the mean over the window (`ownAverage`), or its
 * cumulative prices, which the daemon averages itself between a block a window back and now (`cumulativesAt`).
 */
export type SteadyPriceSource =
  /** A kind whose hops are held to an oracle, not to a pool's history (a Mento exchange): why it is no pool source. */
  | { notAPool: string }
  | {
      /** The mean over the window, or, when the pool's oracle does not reach that far back, its price now and why. */
      ownAverage(
        client: PublicClient,
        pool: Address,
        windowSeconds: number,
      ): Promise<Omit<PoolPrices, 'token0' | 'token1'> | Omit<ShortHistory, 'token0' | 'token1'>>;
      /** Its price (token0 in token1, raw units × 2^112) at the end of a block. */
      spotAt(client: PublicClient, pool: Address, blockNumber: bigint): Promise<bigint>;
    }
  | { cumulativesAt(client: PublicClient, pool: Address, at: { blockNumber: bigint } | { blockTag: 'latest' }): Promise<StoredCumulatives> };

/** A pool's cumulative prices (× 2^112 × seconds) as last stored, its reserves and the time it stored them. */
export type StoredCumulatives = { cumulative0: bigint; cumulative1: bigint; reserve0: bigint; reserve1: bigint; updatedAt: number };

// biome-ignore lint/suspicious/noExplicitAny: a pool's state is its kind's own; the collection of kinds is heterogeneous
export interface PoolKind<State = any> {
  readonly id: PoolKindId;
  /** Its name for people ("Uniswap V3"). */
  readonly name: string;
  /** Whether its pools are ERC-20 positions that a farm can hold (deposits and withdrawals go to them). */
  readonly lpPositions: boolean;
  /**
   * The runtime code of routekeeper's own adapter for this kind, where none is published (Mento v3's pools): a user
   * deploys it (`routekeeper deploy-adapter`), and `doctor` holds the one an address book names to it.
   */
  readonly ownAdapterCode?: Hex;
  /** How one of its adapters reads `extras`, for people. */
  adapterName(adapter: PairAdapter): string;
  /** The hop's `extras` for a pool through one of its adapters. */
  extras(adapter: PairAdapter, pool: PoolInfo): Hex;

  /** The events of its factories and pools that each block's one log request carries. */
  readonly events: readonly AbiEvent[];
  /**
   * The addresses whose logs announce a factory's pools, when not only the factory's own (a Mento Broker's exchanges
   * are created and destroyed by its exchange providers): the index gives their logs to this kind with that factory.
   */
  logSources?(factory: FactorySource): readonly Address[];
  /**
   * A factory's pools at `head`: those `known` already lists, and those found since its `progress` (a number only this
   * kind reads: how many pools a factory that numbers them had, or the last block whose creation logs were read).
   */
  discover(
    client: PublicClient,
    factory: FactorySource,
    known: { pools: readonly IndexedPool[]; progress?: bigint },
    head: Head,
  ): Promise<{ pools: IndexedPool[]; progress: bigint }>;
  /**
   * How far a factory's discovery got, taken back `blocks` blocks: where to look again from after a reorg (or a devnet's
   * revert) whose depth is not known, for a kind whose progress is a block (none: its progress holds across reorgs).
   */
  progressBefore?(progress: bigint, blocks: bigint): bigint;
  /** How far a factory's discovery got once every log up to `head` is followed. */
  progressAfter(progress: bigint | undefined, head: Head): bigint | undefined;
  /** A pool's state at a block; undefined when it has no code there (announced in blocks a reorg dropped). */
  readState(client: PublicClient, pool: IndexedPool, blockNumber: bigint): Promise<State | undefined>;
  /**
   * For a kind whose pools' states move with more than their own logs (a Mento exchange: the clock, an oracle, a
   * Reserve's balances): the reads of its pools' states that the index makes each block, every such kind's in one
   * request.
   */
  readonly readEveryBlock?: EveryBlockRead<State>;
  /** One of its logs applied to the draft: a new pool, or a pool's new state. False: not one of its logs. */
  follow(log: DecodedLog, draft: IndexDraft): boolean;
  /** Whether a followed pool's state must be read again (a V3 pool whose price nears the edge of the ticks read). */
  needsRead(pool: PoolInfo, state: State): boolean;
  /** A pool whose factory the index has lost, rebuilt from a cached entry (its tokens and immutables), with its state. */
  fromCache(entry: CachedPool, factory: FactorySource): { pool: IndexedPool; state: State };
  /** What the index file keeps of a pool and its state: JSON-safe (amounts as decimal strings). */
  toCache(pool: IndexedPool, state: State): CachedPool;

  /** Whether a pool is worth routing through: its state holds at least `minReserve` (its own unit) on each side. */
  routable(state: State, minReserve: bigint): boolean;
  /**
   * Why the daemon would find no mean of the pool's own over `windowSeconds` at time `now`, when its state says so for
   * certain (a V3 pool whose one oracle observation was written within the window): such a pool is routed only where
   * the independent reference prices both its tokens (src/routing/chain-state.ts).
   */
  historyShort?(state: State, now: bigint, windowSeconds: number): string | undefined;
  /** What the pool pays for `amountIn` (the search's hot path); 0 when it cannot take it. */
  quote(state: State, pool: PoolInfo, inIs0: boolean, amountIn: bigint): bigint;
  /** What the pool pays and the state it leaves; undefined when it cannot take it. */
  swap(state: State, pool: PoolInfo, inIs0: boolean, amountIn: bigint): { amountOut: bigint; state: State } | undefined;
  /** The pool's mid price, token out per token in (raw units). */
  midPrice(state: State, inIs0: boolean): Fraction;
  /**
   * How much of its input token a pool's state can take, for `doctor` to size the quotes it checks an adapter with;
   * without it, the pool's balance of the token (a Mento exchange holds none: its buckets say).
   */
  depthOf?(state: State, inIs0: boolean): bigint;
  /**
   * Up to `max` of a factory's pools among `tokens` (or any, for a factory that numbers its pools), for `doctor` to hold
   * an adapter's own quote to this module's.
   */
  samplePools(client: PublicClient, factory: FactorySource, tokens: readonly Address[], blockNumber: bigint, max: number): Promise<IndexedPool[]>;

  /** What proves a pool is a factory's when no init code hash is listed, for people ("its getPool"). */
  readonly provenBy: string;
  /** The address a factory's init code hash gives a pool of these tokens (and immutables): CREATE2, no chain read. */
  createdAt(factory: Address, initCodeHash: Hex, pool: PoolInfo): Address;
  /** The pool a hop's `extras` name through a listed adapter of this kind, and the fee they say it charges; a string: why they are not. */
  readExtras(extras: Hex): { pool: Address; feePpm?: FeePpm } | string;
  /** The fee of `pool` (millionths) when `factory`, one of this kind, made it for these sorted tokens; undefined when it did not. */
  madeBy(facts: PoolFacts, factory: KnownFactory, pool: Address, tokens: readonly [Address, Address]): Promise<FeePpm | undefined>;
  /** The most a pool of `factory` may charge (millionths): what a pool not yet proven is assumed to. */
  highestFeePpm(factory: KnownFactory): FeePpm;
  /** Where its pools' steady price comes from. */
  readonly steadyPrice: SteadyPriceSource;
  /** Whether a contract answers as one of its pools (asked once of a pool only a simulation's flows showed). */
  recognises(client: PublicClient, pool: Address): Promise<boolean>;
}

/** A pool as the index file keeps it: the common fields, and its kind's own (immutables and state). */
export type CachedPool = { kind: PoolKindId; address: Address; token0: Address; token1: Address; factory: Address; index: number; [field: string]: unknown };
