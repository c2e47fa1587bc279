/**
 * The independent price reference: what a token is worth in USD, from sources named per chain and per token
 * as data (chain-data.ts), never from the routing service. A feed is an oracle's report of the off-chain
 * market; a pool source prices a token through the reserves of a known pool against a token that has a price
 * of its own. When two sources of a token both answer, they must agree, or the token has no price: a
 * manipulated pool or a broken feed then stops trading instead of setting its price.
 */
import { type Address, erc20Abi, isAddressEqual, parseAbi } from 'viem';
import type { ChainClient } from '../chain/chains.ts';
import type { PriceSource, PriceSources } from '../config/chain-data.ts';
import { RoutekeeperError } from '../errors.ts';
import { readFeed } from './feed.ts';

/** A token's USD price with 18 decimals per whole token, and where it came from. */
export type UsdPrice = { token: Address; usdE18: bigint; source: string };

/** No usable price for a token: no source, every source failed, or the sources disagree. */
export class NoPriceError extends RoutekeeperError {
  override name = 'NoPriceError';
}

export type PriceReferenceOptions = {
  /** Two sources of one token further apart than this (basis points) give no price. */
  maxSourceDisagreementBps: number;
  /**
   * The chain's latest block number as the client last read it. When given, a token's price "now" is read once per
   * block and shared by every trade checked in it (a price cannot change within a block).
   */
  currentBlock?: () => Promise<bigint>;
};

export const defaultPriceReferenceOptions: PriceReferenceOptions = { maxSourceDisagreementBps: 300 };

const pairAbi = parseAbi([
  'function token0() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);

/** A pool source may lean on another token's price, which may lean on another: never deeper than this. */
const maxDepth = 3;

export class PriceReference {
  readonly #client: ChainClient;
  readonly #sources: PriceSources;
  readonly #options: PriceReferenceOptions;
  readonly #decimals = new Map<string, Promise<number>>();
  /** Prices "now" of the block last seen, and that block's time. */
  #thisBlock: { number: bigint; time: Promise<bigint>; prices: Map<string, Promise<UsdPrice>> } | undefined;

  constructor(client: ChainClient, sources: PriceSources, options: Partial<PriceReferenceOptions> = {}) {
    this.#client = client;
    this.#sources = sources;
    this.#options = { ...defaultPriceReferenceOptions, ...options };
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
    return chainTime === undefined ? this.#priceNow(token) : this.#price(token, this.#time(chainTime), 0);
  }

  /** What `amountIn` of tokenIn is worth in tokenOut at the reference prices (rounded down). */
  async convert(tokenIn: Address, tokenOut: Address, amountIn: bigint, chainTime?: bigint): Promise<{ amountOut: bigint; priceIn: UsdPrice; priceOut: UsdPrice }> {
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

  /** The price now: once per block when the current block is known, else read each time. */
  async #priceNow(token: Address): Promise<UsdPrice> {
    if (!this.#options.currentBlock) return this.#price(token, this.#time(undefined), 0);
    const number = await this.#options.currentBlock();
    if (this.#thisBlock?.number !== number) {
      const time = this.#time(undefined);
      this.#thisBlock = { number, time, prices: new Map() };
      time.catch(() => this.#thisBlock?.time === time && (this.#thisBlock = undefined));
    }
    const { prices, time } = this.#thisBlock;
    const key = token.toLowerCase();
    let price = prices.get(key);
    if (!price) {
      price = this.#price(token, time, 0);
      prices.set(key, price);
      // A failure is not remembered: the next trade asks again.
      price.catch(() => prices.get(key) === price && prices.delete(key));
    }
    return price;
  }

  /** The chain's time, given or read alongside the sources (one batch). */
  #time(chainTime: bigint | undefined): Promise<bigint> {
    if (chainTime !== undefined) return Promise.resolve(chainTime);
    const read = this.#client.getBlock({ blockTag: 'latest' }).then((block) => block.timestamp);
    read.catch(() => {});
    return read;
  }

  async #price(token: Address, chainTime: Promise<bigint>, depth: number): Promise<UsdPrice> {
    const sources = this.#sources.get(token.toLowerCase()) ?? [];
    if (sources.length === 0) throw new NoPriceError(`no price source is known for token ${token}`);
    if (depth >= maxDepth) throw new NoPriceError(`the price sources of ${token} lean on each other more than ${maxDepth} deep`);
    const readings = await Promise.all(sources.map((source) => this.#read(token, source, chainTime, depth)));
    const usable = readings.filter((reading): reading is UsdPrice => !('why' in reading));
    if (usable.length === 0) throw new NoPriceError(`no usable price for ${token}: ${readings.map((reading) => ('why' in reading ? reading.why : '')).join('; ')}`);
    const [first, ...others] = usable as [UsdPrice, ...UsdPrice[]];
    for (const other of others) {
      const gap = first.usdE18 > other.usdE18 ? first.usdE18 - other.usdE18 : other.usdE18 - first.usdE18;
      if (gap * 10_000n > first.usdE18 * BigInt(this.#options.maxSourceDisagreementBps)) {
        throw new NoPriceError(
          `the price sources of ${token} disagree by more than ${this.#options.maxSourceDisagreementBps} bps: ${first.source} says ${first.usdE18}, ${other.source} says ${other.usdE18} (USD × 1e18)`,
        );
      }
    }
    return first;
  }

  async #read(token: Address, source: PriceSource, chainTime: Promise<bigint>, depth: number): Promise<UsdPrice | { why: string }> {
    if (source.kind === 'feed') {
      // A feed answers decimals() exactly as a token does.
      const decimals = await this.decimals(source.address).catch(() => undefined);
      if (decimals === undefined) return { why: `feed ${source.address} does not answer decimals()` };
      const reading = await readFeed(this.#client, source.address, decimals, source.maxAgeSeconds, chainTime);
      return reading.ok ? { token, usdE18: reading.usdE18, source: `feed ${source.address}` } : { why: reading.why };
    }
    try {
      const [token0, [reserve0, reserve1], quotePrice, decimalsToken, decimalsQuote] = await Promise.all([
        this.#client.readContract({ address: source.pool, abi: pairAbi, functionName: 'token0' }),
        this.#client.readContract({ address: source.pool, abi: pairAbi, functionName: 'getReserves' }),
        this.#price(source.quote, chainTime, depth + 1),
        this.decimals(token),
        this.decimals(source.quote),
      ]);
      const tokenIs0 = isAddressEqual(token0, token);
      const [reserveToken, reserveQuote] = tokenIs0 ? [reserve0, reserve1] : [reserve1, reserve0];
      if (reserveToken === 0n || reserveQuote === 0n) return { why: `pool ${source.pool} is empty` };
      const usdE18 = (quotePrice.usdE18 * reserveQuote * 10n ** BigInt(decimalsToken)) / (reserveToken * 10n ** BigInt(decimalsQuote));
      return { token, usdE18, source: `pool ${source.pool} × ${quotePrice.source}` };
    } catch (error) {
      return { why: `pool ${source.pool}: ${(error as Error).message.split('\n')[0]}` };
    }
  }
}
