/**
 * A pool's price that no single trade can move, from where its kind (src/pools/) says it comes from. A pool with an
 * oracle of its own answers it itself (a Uniswap V3 pool's `observe`: the time-weighted mean tick over the window; a
 * pool whose oracle does not reach a window back is no price source). For a pool that stores cumulative prices (a
 * Uniswap V2 pair) it is the time-weighted average over a window, from the
 * pool's own cumulative prices (UniswapV2Pair.price0CumulativeLast / price1CumulativeLast, each the running sum
 * of the price times the seconds it held). The average between two instants is the difference of the
 * cumulatives over the seconds between them. "Now" is the latest block, with the time since the pool's last
 * update added at its current reserves, as Uniswap's oracle library does; "then" is an instant a window before,
 * from the state of the last block at or before it (state holds between blocks, so this is exact however sparse
 * the blocks), found once and kept for every pool until it is a quarter window older than that.
 * An attacker who moves the pool in the block before our trade moves the average by (seconds held / window).
 */
import type { Address } from 'viem';
import { getBlock, readContract } from 'viem/actions';
import type { ChainClient } from '../chains.ts';
import { uniswapV2PairAbi as pairAbi } from '../contracts/abi.ts';
import type { PoolKind, PoolKindId, SteadyPriceSource } from '../pools/kind.ts';
import { NoAverageError, type PoolPrices, Q112, type ShortHistory, defaultAverageWindowSeconds } from '../pools/prices.ts';
import { poolKinds } from '../pools/registry.ts';
import { ChainTooYoungError, blockAt } from './block-at.ts';

export { NoAverageError, type PoolPrices, Q112, type ShortHistory } from '../pools/prices.ts';

/** The cumulative-prices source of a kind whose pools store them. */
type CumulativeSource = Extract<SteadyPriceSource, { cumulativesAt: unknown }>;

type Cumulatives = { cumulative0: bigint; cumulative1: bigint; timestamp: bigint };
type Head = { number: bigint; timestamp: bigint };
/** Where averages start: an instant a window or more ago, the block whose state held then, and pools' cumulatives. */
type Anchor = { time: bigint; block: bigint; pools: Map<string, Promise<Cumulatives>> };

export type PoolAverageOptions = {
  windowSeconds: number;
  /** The chain's usual block time, to guess how many blocks back a window starts (Celo: 1 s). */
  blockTimeSeconds: number;
};

export const defaultPoolAverageOptions: PoolAverageOptions = { windowSeconds: defaultAverageWindowSeconds, blockTimeSeconds: 1 };

export class PoolAverages {
  readonly #client: ChainClient;
  readonly options: PoolAverageOptions;
  readonly #tokens = new Map<string, Promise<readonly [Address, Address]>>();
  /** Each pool's kind, as it answers (asked once, of a pool whose kind no factory told). */
  readonly #kinds = new Map<string, Promise<PoolKind>>();
  /** The past block the averages start from, and each pool's cumulatives there. */
  #anchor: Anchor | undefined;
  #anchorSearch: Promise<Anchor> | undefined;

  constructor(client: ChainClient, options: Partial<PoolAverageOptions> = {}) {
    this.#client = client;
    this.options = {
      windowSeconds: options.windowSeconds ?? defaultPoolAverageOptions.windowSeconds,
      blockTimeSeconds: options.blockTimeSeconds ?? defaultPoolAverageOptions.blockTimeSeconds,
    };
  }

  /**
   * The pool's spot and average prices now, from where its kind says its steady price comes from: its own oracle, or
   * its cumulative prices, read at the latest block at once, in the same batch as `head`, the latest block as the
   * caller reads it (for its time and the average's start). Without `kind`, the pool is asked once what it is. A pool
   * whose own oracle does not reach the window answers its price now and why it has no average (`short`).
   */
  async read(pool: Address, head: Head | Promise<Head>, kind?: PoolKindId): Promise<PoolPrices | ShortHistory> {
    const source = await this.#sourceOf(pool, kind);
    if ('notAPool' in source) throw new NoAverageError(`${pool} is no pool with a price history: ${source.notAPool}`);
    if ('ownAverage' in source) {
      // Asked together: the pool's tokens (read once) and its oracle, in the same batch as the caller's other reads.
      const [[token0, token1], prices] = await Promise.all([this.#tokensOf(pool), source.ownAverage(this.#client, pool, this.options.windowSeconds)]);
      return { ...prices, token0, token1 };
    }
    const at = Promise.resolve(head);
    const nowRead = this.#cumulativesAt(
      source,
      pool,
      'latest',
      at.then((known) => known.timestamp),
    );
    const [tokens, read, then] = await Promise.all([this.#tokensOf(pool), nowRead, at.then((known) => this.#anchorCumulatives(source, pool, known))]);
    const known = await at;
    // A pair's cumulatives only grow (they would wrap only after a century at the most extreme price): a start above
    // now means the reads do not describe one history.
    const belowStart = (candidate: Cumulatives) => then.cumulative0 > candidate.cumulative0 || then.cumulative1 > candidate.cumulative1;
    // A node can answer the reads of one batch from two states while it mines (anvil does): the pool's state (one call,
    // so of one block) from a block newer than the head read beside it (straddled). A node that answers cumulatives
    // below the start may have reverted since. Either way all are read again, together, once.
    let now = read;
    if (now.straddled || belowStart(now)) {
      now = await this.#cumulativesAt(
        source,
        pool,
        'latest',
        getBlock(this.#client, { blockTag: 'latest' }).then((block) => block.timestamp),
      );
      if (now.straddled) throw new NoAverageError(`pool ${pool}: the chain moved on while its state was read, twice; it is read again at the next run`);
    }
    // Still below: the chain was reorganised or reverted since the start. No average, rather than one that wraps
    // around to an absurd price.
    if (belowStart(now)) {
      this.#anchor = undefined;
      throw new NoAverageError(
        `pool ${pool}: its cumulative prices at block ${known.number} are below those a window earlier; the two reads do not describe one history`,
      );
    }
    const span = now.timestamp - then.timestamp;
    if (span <= 0n) throw new NoAverageError(`pool ${pool}: no time has passed since the average's start`);
    const [reserve0, reserve1] = now.reserves;
    if (reserve0 === 0n || reserve1 === 0n) throw new NoAverageError(`pool ${pool} is empty`);
    return {
      pool,
      token0: tokens[0],
      token1: tokens[1],
      spot0: (reserve1 * Q112) / reserve0,
      spot1: (reserve0 * Q112) / reserve1,
      average0: (now.cumulative0 - then.cumulative0) / span,
      average1: (now.cumulative1 - then.cumulative1) / span,
      spanSeconds: span,
    };
  }

  /** A pool's price (token0 in token1, raw units × 2^112) at the end of a block, for a kind whose pools keep their own oracle. */
  async spotAt(pool: Address, blockNumber: bigint, kind?: PoolKindId): Promise<bigint> {
    const source = await this.#sourceOf(pool, kind);
    if (!('spotAt' in source)) throw new NoAverageError(`${pool} keeps no oracle of its own`);
    return source.spotAt(this.#client, pool, blockNumber);
  }

  async #sourceOf(pool: Address, kind?: PoolKindId): Promise<SteadyPriceSource> {
    return (kind ? poolKinds[kind] : await this.#kindOf(pool)).steadyPrice;
  }

  /** The kind of a pool only a simulation's flows showed: the one whose pools it answers as. */
  #kindOf(pool: Address): Promise<PoolKind> {
    const key = pool.toLowerCase();
    let known = this.#kinds.get(key);
    if (!known) {
      const kinds = Object.values(poolKinds);
      known = Promise.all(kinds.map((kind) => kind.recognises(this.#client, pool))).then((answers) => {
        const kind = kinds[answers.indexOf(true)];
        if (!kind) throw new NoAverageError(`pool ${pool} answers as no kind of pool this daemon knows`);
        return kind;
      });
      this.#kinds.set(key, known);
      // A node that did not answer is asked again next time.
      known.catch(() => this.#kinds.delete(key));
    }
    return known;
  }

  #tokensOf(pool: Address): Promise<readonly [Address, Address]> {
    const key = pool.toLowerCase();
    let known = this.#tokens.get(key);
    if (!known) {
      known = Promise.all([
        readContract(this.#client, { address: pool, abi: pairAbi, functionName: 'token0' }),
        readContract(this.#client, { address: pool, abi: pairAbi, functionName: 'token1' }),
      ]);
      this.#tokens.set(key, known);
      known.catch(() => this.#tokens.delete(key));
    }
    return known;
  }

  /**
   * The pool's cumulative prices at instant `time`, from its state at `block` (the one that held then): the stored
   * cumulatives plus the current reserves' price for the seconds since the pool's last update. For the latest block,
   * `time` is that block's, read beside it; should the state read be of a block newer than that (one mined between
   * the two reads of a batch), the instant is the pool's own last update.
   */
  async #cumulativesAt(
    source: CumulativeSource,
    pool: Address,
    block: bigint | 'latest',
    time: bigint | Promise<bigint>,
  ): Promise<Cumulatives & { reserves: readonly [bigint, bigint]; straddled: boolean }> {
    const [{ cumulative0, cumulative1, reserve0, reserve1, updatedAt }, told] = await Promise.all([
      source.cumulativesAt(this.#client, pool, block === 'latest' ? { blockTag: 'latest' } : { blockNumber: block }),
      time,
    ]);
    // The pair keeps its time as uint32 seconds (wrapping in 2106); the difference is taken the same way.
    const elapsed = (told - BigInt(updatedAt)) % 2n ** 32n;
    const since = elapsed > 0n && reserve0 > 0n && reserve1 > 0n;
    return {
      cumulative0: cumulative0 + (since ? ((reserve1 * Q112) / reserve0) * elapsed : 0n),
      cumulative1: cumulative1 + (since ? ((reserve0 * Q112) / reserve1) * elapsed : 0n),
      timestamp: elapsed < 0n && block === 'latest' ? told - elapsed : told,
      reserves: [reserve0, reserve1],
      straddled: elapsed < 0n && block === 'latest',
    };
  }

  /**
   * The pool's cumulatives at the anchor, an instant between a window and 1.25 windows before `head`: chosen anew
   * (a window back) when `head` leaves that range, and shared by every pool meanwhile.
   */
  async #anchorCumulatives(source: CumulativeSource, pool: Address, head: Head): Promise<Cumulatives> {
    const window = BigInt(this.options.windowSeconds);
    // An anchor serves a head from a window to 1.25 windows after it, and only one it is older than. (A chain
    // reverted to before the anchor, as tests do, also gets a new one.)
    const serves = (candidate: Anchor | undefined): candidate is Anchor => {
      if (!candidate) return false;
      const age = head.timestamp - candidate.time;
      return age >= window && age <= window + window / 4n && candidate.block < head.number;
    };
    let anchor: Anchor | undefined = this.#anchor;
    if (!serves(anchor)) {
      const time = head.timestamp - window;
      // Callers at one head share a search; one whose head the search in flight does not serve makes its own.
      const search = (this.#anchorSearch ??= this.#blockAt(time, head)
        .then((block) => ({ time, block, pools: new Map() }))
        .finally(() => (this.#anchorSearch = undefined)));
      const found = await search;
      anchor = serves(found) ? found : await this.#blockAt(time, head).then((block) => ({ time, block, pools: new Map() }));
      this.#anchor = anchor;
    }
    const { pools, block, time } = anchor as Anchor;
    const key = pool.toLowerCase();
    let cumulatives = pools.get(key);
    if (!cumulatives) {
      cumulatives = this.#cumulativesAt(source, pool, block, time).catch((error: unknown) => {
        pools.delete(key);
        throw new NoAverageError(
          `pool ${pool} has no history at block ${block}, a window (${this.options.windowSeconds} s) ago: ${(error as Error).message.split('\n')[0]}`,
        );
      });
      pools.set(key, cumulatives);
    }
    return cumulatives;
  }

  /**
   * The last block at or before `time` (whose state held at that instant), found a few batched reads at a time, at the
   * chain's usual block time; ChainTooYoungError when the chain has none that old.
   */
  blockAt(time: bigint, head: Head): Promise<bigint> {
    const readTimes = (numbers: readonly bigint[]) =>
      Promise.all(numbers.map((blockNumber) => getBlock(this.#client, { blockNumber }).then((block) => block.timestamp)));
    return blockAt(readTimes, time, head, { blockTimeSeconds: this.options.blockTimeSeconds });
  }

  async #blockAt(time: bigint, head: Head): Promise<bigint> {
    try {
      return await this.blockAt(time, head);
    } catch (error) {
      if (error instanceof ChainTooYoungError)
        throw new NoAverageError(`the chain is younger than the price average's window (${this.options.windowSeconds} s): ${error.message}`);
      throw error;
    }
  }
}
