/**
 * The independent price reference: what a token is worth in USD, from sources named per chain and per token
 * as data (chain-data.ts), never from the routing service. A feed is an oracle's report of the off-chain
 * market; a pool source prices a token through the time-weighted average of a known pool (pool-average.ts)
 * against a token that has a price of its own, never through its spot reserves, which one trade can move.
 * When two sources of a token both answer, they must agree, or the token has no price: a manipulated pool or
 * a broken feed then stops trading instead of setting its price. They must agree on freshness too: one source
 * stale beside a fresh one gives no price (a stalled oracle is named, not quietly dropped while a second reading
 * of the same network goes on pricing). A feed of a token's peg (an exchange rate such as EUR / USD) prices the
 * token only beside a market source that answers and agrees, so a depegged stable is not valued at par.
 * On an L2 whose chain data names a sequencer uptime feed, no price is given while the sequencer is down, within
 * a grace period after it came back, or when the feed's round is invalid.
 */
import { type Address, erc20Abi, formatUnits, isAddressEqual } from 'viem';
import type { ChainClient } from '../chains.ts';
import type { PriceSource, PriceSources } from '../config/chain-data.ts';
import { sortedOraclesAbi } from '../contracts/abi.ts';
import { RoutekeeperError } from '../errors.ts';
import { aggregatorV3Abi, readFeed } from './feed.ts';
import type { PoolKind } from '../guard/route.ts';
import { NoAverageError, type PoolAverageOptions, PoolAverages, Q112, type ShortHistory } from './pool-average.ts';

/** A token's USD price with 18 decimals per whole token, and where it came from. */
export type UsdPrice = { token: Address; usdE18: bigint; source: string };

/** No usable price for a token: no source, every source failed, or the sources disagree. */
export class NoPriceError extends RoutekeeperError {
  override name = 'NoPriceError';
}

/** The L2's sequencer is down, or came back less than the grace period ago: no price is trusted meanwhile. */
export class SequencerDownError extends NoPriceError {
  override name = 'SequencerDownError';
}

/** A Chainlink L2 sequencer uptime feed (answer 0: up, 1: down; startedAt: when that status began). */
export type SequencerFeed = { address: Address; gracePeriodSeconds: number };

export type PriceReferenceOptions = {
  /** Two sources of one token further apart than this (basis points) give no price. */
  maxSourceDisagreementBps: number;
  /** The window of pool averages (pool sources and the steadiness check), and the chain's usual block time. */
  averages?: Partial<PoolAverageOptions>;
  sequencer?: SequencerFeed;
};

export const defaultPriceReferenceOptions: PriceReferenceOptions = { maxSourceDisagreementBps: 300 };

type Head = { number: bigint; timestamp: bigint };
/** One source's answer: a price (`peg`: of the token's peg, not the token), or why it gives none (`stale`: it answered too long ago). */
type Reading = { ok: true; price: UsdPrice; peg: boolean } | { ok: false; why: string; stale: boolean };
type Snapshot = { head: Promise<Head>; prices: Map<string, Promise<UsdPrice>> };

/** A pool source may lean on another token's price, which may lean on another: never deeper than this. */
const maxDepth = 3;

export class PriceReference {
  readonly #client: ChainClient;
  readonly #sources: PriceSources;
  readonly #options: PriceReferenceOptions;
  readonly #decimals = new Map<string, Promise<number>>();
  readonly averages: PoolAverages;
  /** The latest block and the prices "now" read with it, while that read is in flight. */
  #inFlight: Snapshot | undefined;

  constructor(client: ChainClient, sources: PriceSources, options: Partial<PriceReferenceOptions> = {}) {
    this.#client = client;
    this.#sources = sources;
    this.#options = { ...defaultPriceReferenceOptions, ...options };
    this.averages = new PoolAverages(client, this.#options.averages);
  }

  hasSource(token: Address): boolean {
    return (this.#sources.get(token.toLowerCase())?.length ?? 0) > 0;
  }

  /** A token's decimals as its contract reports them (read once). */
  decimals(token: Address): Promise<number> {
    const key = token.toLowerCase();
    let known = this.#decimals.get(key);
    if (!known) {
      known = this.#client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' });
      this.#decimals.set(key, known);
      known.catch(() => this.#decimals.delete(key));
    }
    return known;
  }

  /** The token's USD price now, by the chain's clock. Throws NoPriceError. */
  async usdPrice(token: Address, chainTime?: bigint): Promise<UsdPrice> {
    return chainTime === undefined ? this.#priceNow(token) : this.#price(token, this.#head(chainTime), 0);
  }

  /** The latest block that prices asked for now (no chain time given) are read at: the same one read, shared. */
  headNow(): Promise<{ number: bigint; timestamp: bigint }> {
    return this.#now().head;
  }

  /**
   * A pool the trade swaps in is steady: its spot price within `toleranceBps` of its time-weighted average (`kind`,
   * when its factory told it, saves asking the pool). A pool whose own oracle does not reach the window (one
   * observation, and a trade within the window) is held to the independent reference instead (`#steadyAtReference`).
   * Throws ManipulatedPoolError with both prices (token0 in token1, in whole units) when it is not; NoPriceError when
   * nothing prices it.
   */
  async checkSteady(pool: Address, toleranceBps: number, kind?: PoolKind): Promise<void> {
    const head = this.#now().head;
    const prices = await this.averages.read(pool, head, kind);
    if ('short' in prices) return this.#steadyAtReference(prices, await head, toleranceBps, kind);
    const gap = distance(prices.spot0, prices.average0);
    if (gap * 10_000n > prices.average0 * BigInt(toleranceBps)) {
      const whole = await this.#wholeUnits(prices);
      const minutes = Number(prices.spanSeconds) / 60;
      throw new ManipulatedPoolError(
        `pool ${pool} prices ${prices.token0} at ${whole(prices.spot0)} of ${prices.token1} now, ` +
          `${percent(gap, prices.average0)} from its ${minutes.toFixed(1)}-minute average ${whole(prices.average0)} ` +
          `(tolerance ${toleranceBps / 100}%): moved within the window, not traded into`,
      );
    }
  }

  /**
   * A pool with no history of its own to hold it to (docs/safety.md, "Pools whose own oracle does not reach the window"):
   * its price at the latest block must be within the tolerance of the reference's price of its two tokens (each from
   * sources that are not this pool: a pool with no average prices nothing), and it must not have moved by more than
   * the tolerance in that block, the one before ours. Nothing independent prices a token: no price, and no trade.
   */
  async #steadyAtReference(prices: ShortHistory, head: Head, toleranceBps: number, kind?: PoolKind): Promise<void> {
    const { pool, token0, token1 } = prices;
    // The prices beside the head the check read (no second head read).
    const at = Promise.resolve(head);
    const [price0, price1, decimals0, decimals1, now, before] = await Promise.all([
      this.#price(token0, at, 0),
      this.#price(token1, at, 0),
      this.decimals(token0),
      this.decimals(token1),
      // At the block the reference is read at, and the one before: what that block moved it by.
      this.averages.spotAt(pool, head.number, kind),
      this.averages.spotAt(pool, head.number - 1n, kind),
    ]).catch((error: unknown) => {
      if (error instanceof NoPriceError) throw new NoPriceError(`${prices.short}, and nothing independent prices it: ${error.shortMessage}`);
      throw error;
    });
    const reference = (price0.usdE18 * 10n ** BigInt(decimals1) * Q112) / (price1.usdE18 * 10n ** BigInt(decimals0));
    const whole = await this.#wholeUnits(prices);
    const offReference = distance(now, reference);
    if (offReference * 10_000n > reference * BigInt(toleranceBps)) {
      throw new ManipulatedPoolError(
        `pool ${pool} prices ${token0} at ${whole(now)} of ${token1} at block ${head.number}, ${percent(offReference, reference)} from the reference ` +
          `${whole(reference)} (${price0.source}; ${price1.source}; tolerance ${toleranceBps / 100}%), and ${prices.short}: not traded into`,
      );
    }
    const moved = distance(now, before);
    if (moved * 10_000n > before * BigInt(toleranceBps)) {
      throw new ManipulatedPoolError(
        `pool ${pool} moved ${percent(moved, before)} in block ${head.number}, the block before ours (from ${whole(before)} to ` +
          `${whole(now)} ${token1} per ${token0}; tolerance ${toleranceBps / 100}%), and ${prices.short}: not traded into`,
      );
    }
  }

  /** Formats a pool's token0-in-token1 price (raw units × 2^112) in whole units, to six significant digits. */
  async #wholeUnits(prices: { token0: Address; token1: Address }): Promise<(price: bigint) => string> {
    const [decimals0, decimals1] = await Promise.all([this.decimals(prices.token0), this.decimals(prices.token1)]);
    return (price) => ((Number(price) / Number(Q112)) * 10 ** (decimals0 - decimals1)).toPrecision(6);
  }

  /** What `amountIn` of tokenIn is worth in tokenOut at the reference prices (rounded down). */
  async convert(
    tokenIn: Address,
    tokenOut: Address,
    amountIn: bigint,
    chainTime?: bigint,
  ): Promise<{ amountOut: bigint; priceIn: UsdPrice; priceOut: UsdPrice }> {
    const priceOf = (token: Address) => this.usdPrice(token, chainTime);
    const [priceIn, priceOut, decimalsIn, decimalsOut] = await Promise.all([
      priceOf(tokenIn),
      priceOf(tokenOut),
      this.decimals(tokenIn),
      this.decimals(tokenOut),
    ]);
    const amountOut = (amountIn * priceIn.usdE18 * 10n ** BigInt(decimalsOut)) / (priceOut.usdE18 * 10n ** BigInt(decimalsIn));
    return { amountOut, priceIn, priceOut };
  }

  /**
   * The latest block and the prices read with it: shared by every caller that asks while it is in flight, so the
   * checks of many trades starting together read each price once, in the same batch as their own reads.
   * A read that has answered is not used again: the next caller reads the chain anew.
   */
  #now(): Snapshot {
    if (this.#inFlight) return this.#inFlight;
    const snapshot: Snapshot = { head: this.#head(undefined), prices: new Map() };
    this.#inFlight = snapshot;
    const done = () => this.#inFlight === snapshot && (this.#inFlight = undefined);
    snapshot.head.then(done, done);
    return snapshot;
  }

  /** The price now, shared with the other callers of the same read. */
  #priceNow(token: Address): Promise<UsdPrice> {
    const { prices, head } = this.#now();
    const key = token.toLowerCase();
    let price = prices.get(key);
    if (!price) {
      price = this.#price(token, head, 0);
      prices.set(key, price);
    }
    return price;
  }

  /**
   * The latest block (its number, for pool averages) and the chain's time (given, or that block's), read alongside
   * the sources (one batch); with a sequencer feed, its status is read in the same batch and must allow prices.
   */
  #head(chainTime: bigint | undefined): Promise<Head> {
    const latest = this.#client.getBlock({ blockTag: 'latest' });
    const sequencer = this.#options.sequencer;
    const read = Promise.all([
      latest,
      sequencer ? this.#client.readContract({ address: sequencer.address, abi: aggregatorV3Abi, functionName: 'latestRoundData' }) : undefined,
    ]).then(([block, round]) => {
      const head = { number: block.number, timestamp: chainTime ?? block.timestamp };
      if (sequencer && round) checkSequencer(sequencer, round, block.timestamp);
      return head;
    });
    read.catch(() => {});
    return read;
  }

  async #price(token: Address, head: Promise<Head>, depth: number): Promise<UsdPrice> {
    const sources = this.#sources.get(token.toLowerCase()) ?? [];
    if (sources.length === 0) throw new NoPriceError(`no price source is known for token ${token}`);
    if (depth >= maxDepth) throw new NoPriceError(`the price sources of ${token} lean on each other more than ${maxDepth} deep`);
    // The sources are read beside the head (one batch); a sequencer that is down gives no price at all, whatever they say.
    const reading = Promise.all(sources.map((source) => this.#read(token, source, head, depth)));
    reading.catch(() => {});
    await head;
    return agreedPrice(token, await reading, this.#options.maxSourceDisagreementBps);
  }

  async #read(token: Address, source: PriceSource, head: Promise<Head>, depth: number): Promise<Reading> {
    const chainTime = head.then((known) => known.timestamp);
    // A reading that fails before it needs the time leaves it unread; the head's own failure is the caller's to report.
    chainTime.catch(() => {});
    if (source.kind === 'feed') {
      // A feed answers decimals() exactly as a token does.
      const decimals = await this.decimals(source.address).catch(() => undefined);
      if (decimals === undefined) return { ok: false, why: `feed ${source.address} does not answer decimals()`, stale: false };
      const reading = await readFeed(this.#client, source.address, decimals, source.maxAgeSeconds, chainTime);
      if (!reading.ok) return { ok: false, why: reading.why, stale: reading.stale };
      return {
        ok: true,
        price: { token, usdE18: reading.usdE18, source: `feed ${source.address}${source.peg ? ' (its peg)' : ''}` },
        peg: source.peg === true,
      };
    }
    if (source.kind === 'sorted-oracles') return this.#readSortedOracles(token, source, head, depth);
    try {
      const [pool, quotePrice, decimalsToken, decimalsQuote] = await Promise.all([
        this.averages.read(source.pool, head, source.uniswapV3 ? 'uniswap-v3' : 'uniswap-v2'),
        this.#price(source.quote, head, depth + 1),
        this.decimals(token),
        this.decimals(source.quote),
      ]);
      // A pool whose own oracle does not reach the window prices nothing.
      if ('short' in pool) return { ok: false, why: `${pool.short}: it is no price source`, stale: false };
      // The average price of the token in the quote token (raw units × 2^112).
      const average = isAddressEqual(pool.token0, token) ? pool.average0 : pool.average1;
      const usdE18 = (quotePrice.usdE18 * average * 10n ** BigInt(decimalsToken)) / (Q112 * 10n ** BigInt(decimalsQuote));
      const minutes = (Number(pool.spanSeconds) / 60).toFixed(1);
      return { ok: true, price: { token, usdE18, source: `pool ${source.pool} (${minutes}-minute average) × ${quotePrice.source}` }, peg: false };
    } catch (error) {
      if (error instanceof NoAverageError) return { ok: false, why: error.shortMessage, stale: false };
      if (error instanceof NoPriceError) return { ok: false, why: `pool ${source.pool}: its quote token has no price: ${error.shortMessage}`, stale: false };
      return { ok: false, why: `pool ${source.pool}: ${(error as Error).message.split('\n')[0]}`, stale: false };
    }
  }

  /**
   * A SortedOracles median: `quote` per whole token as numerator / denominator (0 when nobody has reported). The rate
   * feed's own median is read, never `medianRate`, which follows a governance mapping to another feed
   * (`setEquivalentToken`) while `medianTimestamp` does not: that pair would date one feed's rate by another's time.
   */
  async #readSortedOracles(token: Address, source: Extract<PriceSource, { kind: 'sorted-oracles' }>, head: Promise<Head>, depth: number): Promise<Reading> {
    const name = `SortedOracles ${source.address} rate feed ${source.rateFeedId}`;
    try {
      const [[numerator, denominator], reportedAt, quotePrice, { timestamp }] = await Promise.all([
        this.#client.readContract({
          address: source.address,
          abi: sortedOraclesAbi,
          functionName: 'medianRateWithoutEquivalentMapping',
          args: [source.rateFeedId],
        }),
        this.#client.readContract({ address: source.address, abi: sortedOraclesAbi, functionName: 'medianTimestamp', args: [source.rateFeedId] }),
        source.quote === 'USD' ? { usdE18: 10n ** 18n, source: 'USD' } : this.#price(source.quote, head, depth + 1),
        head,
      ]);
      if (denominator === 0n || numerator === 0n || reportedAt === 0n) return { ok: false, why: `${name} has no report`, stale: false };
      const age = timestamp - reportedAt;
      if (age > BigInt(source.maxAgeSeconds)) {
        return {
          ok: false,
          why: `${name} is stale: its median was reported ${age} s before the chain's time, more than ${source.maxAgeSeconds} s`,
          stale: true,
        };
      }
      const per = source.quote === 'USD' ? 'in USD' : `× ${quotePrice.source}`;
      return { ok: true, price: { token, usdE18: (quotePrice.usdE18 * numerator) / denominator, source: `${name} ${per}` }, peg: false };
    } catch (error) {
      const why = error instanceof NoPriceError ? error.shortMessage : (error as Error).message.split('\n')[0];
      return { ok: false, why: `${name}: ${why}`, stale: false };
    }
  }
}

/**
 * The token's price from its sources' readings, or NoPriceError naming why not: no source answered; one is stale
 * while another is fresh; only feeds of its peg answered; or two answers are further apart than the bound.
 */
function agreedPrice(token: Address, readings: readonly Reading[], maxDisagreementBps: number): UsdPrice {
  const answered = readings.flatMap((reading) => (reading.ok ? [reading] : []));
  const failed = readings.flatMap((reading) => (reading.ok ? [] : [reading]));
  if (answered.length === 0) throw new NoPriceError(`no usable price for ${token}: ${failed.map((reading) => reading.why).join('; ')}`);
  const stale = failed.filter((reading) => reading.stale);
  if (stale.length > 0) {
    throw new NoPriceError(
      `the price sources of ${token} disagree on freshness: ${stale.map((reading) => reading.why).join('; ')}; while ${answered.map((reading) => reading.price.source).join(' and ')} answered fresh`,
    );
  }
  if (answered.every((reading) => reading.peg)) {
    const others = failed.length > 0 ? `: ${failed.map((reading) => reading.why).join('; ')}` : ' (none is configured)';
    throw new NoPriceError(
      `${answered.map((reading) => reading.price.source).join(' and ')} prices the peg of ${token}, not the token, and no market source of it answered${others}`,
    );
  }
  const [first, ...others] = answered.map((reading) => reading.price) as [UsdPrice, ...UsdPrice[]];
  for (const other of others) {
    const gap = first.usdE18 > other.usdE18 ? first.usdE18 - other.usdE18 : other.usdE18 - first.usdE18;
    if (gap * 10_000n > first.usdE18 * BigInt(maxDisagreementBps)) {
      const apart = ((Number(gap) / Number(first.usdE18)) * 100).toFixed(2);
      throw new NoPriceError(
        `the price sources of ${token} disagree by more than ${maxDisagreementBps} bps: ${first.source} says ${usd(first.usdE18)}, ${other.source} says ${usd(other.usdE18)} (${apart}% apart)`,
      );
    }
  }
  return first;
}

const distance = (a: bigint, b: bigint) => (a > b ? a - b : b - a);
const percent = (part: bigint, whole: bigint) => `${((Number(part) / Number(whole)) * 100).toFixed(2)}%`;

/** A USD price for people: six significant digits, trailing zeros cut. */
const usd = (usdE18: bigint) => `$${Number(Number(formatUnits(usdE18, 18)).toPrecision(6))}`;

/** A pool the trade would swap in moved away from its average within the window. */
export class ManipulatedPoolError extends RoutekeeperError {
  override name = 'ManipulatedPoolError';
}

function checkSequencer(sequencer: SequencerFeed, round: readonly [bigint, bigint, bigint, bigint, bigint], chainTime: bigint): void {
  const [, answer, startedAt] = round;
  // Chainlink documents a round that started at 0 as invalid: it says nothing of the sequencer, up or down.
  if (startedAt === 0n)
    throw new SequencerDownError(`the sequencer uptime feed ${sequencer.address} answers a round that started at 0, which is no answer (an invalid round)`);
  if (answer !== 0n) throw new SequencerDownError(`the sequencer uptime feed ${sequencer.address} says the sequencer is down (since ${startedAt})`);
  const upFor = chainTime - startedAt;
  if (upFor < BigInt(sequencer.gracePeriodSeconds)) {
    throw new SequencerDownError(
      `the sequencer came back ${upFor} s ago, within the ${sequencer.gracePeriodSeconds} s grace period (feed ${sequencer.address})`,
    );
  }
}
