/**
 * Turns a request and a chain snapshot into the service's answers. Every amount is what the contracts
 * will pay when the transaction is mined on top of that snapshot: swaps and farm steps are simulated in
 * the order OneClickFarm runs them, on a copy of the reserves.
 */
import { type Address, type Hex, encodeFunctionData, isAddressEqual } from 'viem';
import { routerAbi } from '../contracts/abi.ts';
import { encodeGaugeFarmData, encodePoolExtras, partnerDigest } from '../contracts/encoding.ts';
import {
  type EarnRouteJson,
  type EarnRouteQuery,
  type RouteDetailJson,
  type SplitRouteJson,
  type SwapRouteJson,
  type SwapRouteQuery,
  interpretDeadline,
} from '../routing-api/schemas.ts';
import { mentoProtocol } from '../config/chain-data.ts';
import { addLiquidity, removeLiquidity } from '../pools/uniswap-v2/math.ts';
import type { MarketAtBlock } from './chain-state.ts';
import { badRequest, chainUnavailable, noRoute, unsupportedTokens } from './errors.ts';
import type { Hop, Market, PoolInfo } from './market.ts';
import { type FoundPath, type RouteSearch, type SearchOutcome, bestPathNow, searchWithin } from './search.ts';

/** An LP or gauge token the service can deposit into and withdraw from, the farm that does it and the OneClickFarm that calls it. */
export type Position = { token: Address; pool: PoolInfo; farm: Address; farmData: Hex; oneClickFarm: Address };

/**
 * The farms deposit and withdraw quotes go through: with a Uniswap V2 farm every routable pool's LP token is a
 * position, with the gauge farm each gauge's token (staking its pool's LP).
 */
export type EarnConfig = {
  oneClickFarm: Address;
  uniswapV2Farm?: Address;
  gaugeFarm?: Address;
  gauges: readonly { address: Address; pool: Address }[];
};

/** A partner resolved from an API key: its id, and a signer for the router's partner signature. */
export type Partner = { id: number; sign(digest: Hex): Promise<Hex> };

export type QuoteEngineConfig = {
  router: Address;
  /** What deposit and withdraw quotes can reach; none: the service quotes swaps only. */
  earn?: EarnConfig;
  /** The longest a swap's search may take before it answers with the best route found so far (default 250 ms). */
  searchBudgetMs?: number;
  /** The token gas is paid in, as it trades in the pools (CELO on Celo): it prices a hop's gas in tokenOut. */
  gasToken?: Address;
  /**
   * The tokens (lower-case) a route may pass through between its ends: the chain data's token list, which the daemon
   * holds a route's middle tokens to. None: any.
   */
  through?: ReadonlySet<string>;
};

/** The most routes one split answer shares an amount among, and the parts it shares it in. */
export const maxSplitRoutes = 4;
const splitParts = 20n;

/**
 * `amountIn` shared among `paths` (disjoint) in `splitParts` parts, each part to the path whose output grows most by
 * it: what each path carries.
 */
function shareAmong(market: Market, paths: readonly Hop[][], amountIn: bigint): bigint[] {
  const carried = paths.map(() => 0n);
  const paid = paths.map(() => 0n);
  const part = amountIn / splitParts > 0n ? amountIn / splitParts : amountIn;
  for (let given = 0n; given < amountIn; ) {
    const size = amountIn - given < part * 2n ? amountIn - given : part;
    let best = 0;
    let bestGain = -1n;
    for (let i = 0; i < paths.length; i++) {
      const gain = market.pathOutput(paths[i] as Hop[], (carried[i] as bigint) + size) - (paid[i] as bigint);
      if (gain > bestGain) [best, bestGain] = [i, gain];
    }
    // No route takes this part on top of what it carries (each past a venue's limit): the amount cannot be shared.
    if (bestGain <= 0n) throw noRoute('no route takes the whole amount, shared among them');
    carried[best] = (carried[best] as bigint) + size;
    paid[best] = (paid[best] as bigint) + bestGain;
    given += size;
  }
  return carried;
}

/** About what one more hop costs a swap in gas: the adapter, the pool's swap and a token transfer. */
export const gasPerHop = 100_000n;
export const defaultSearchBudgetMs = 250;

/** Generous gas for a ready-to-sign swap: the router's own work plus each hop (pool, adapter, transfers). */
export const readyTransactionGas = (hops: number) => 150_000n + 110_000n * BigInt(hops);

const PRICE_IMPACT_SCALE = 10n ** 18n;

export class QuoteEngine {
  /** Searches under way, by block and question: identical requests at once share one. */
  readonly #searches = new Map<string, Promise<SearchOutcome>>();

  constructor(private readonly config: QuoteEngineConfig) {}

  async swap(snapshot: MarketAtBlock, query: SwapRouteQuery, partner?: Partner): Promise<SwapRouteJson> {
    const { market } = snapshot;
    this.#requireToken(market, query.tokenIn, 'tokenIn');
    this.#requireToken(market, query.tokenOut, 'tokenOut');
    const search = await this.#search(snapshot, query);
    const best = search.best;
    if (!best) throw noRoute(search.complete ? undefined : `nothing found within the ${this.#budgetMs} ms search budget`);
    const answer = await this.#swapAnswer(snapshot, query, best, partner);
    if (!search.complete) answer.search = { complete: false, budgetMs: this.#budgetMs, pricedHops: search.priced };
    return answer;
  }

  /** The answer for a path found: its details (signed for a partner), minimum, and the transaction when `from` is given. */
  async #swapAnswer(snapshot: MarketAtBlock, query: SwapRouteQuery, best: FoundPath, partner?: Partner): Promise<SwapRouteJson> {
    const { market } = snapshot;
    const deadline = this.#deadline(snapshot, query.deadlineMs);
    const expectedOut = best.amountOut - partnerFee(best.amountOut, this.#feeOf(snapshot, partner));
    if (expectedOut === 0n) throw noRoute('the amount is too small to pay any output');

    const details = await this.#routeDetail(query.tokenIn, best.hops, query.amountIn, expectedOut, deadline, partner);
    const minimumExpectedOut = (expectedOut * BigInt(10_000 - query.slippage)) / 10_000n;
    const answer: SwapRouteJson = {
      expectedOut: expectedOut.toString(),
      routerAddress: this.config.router,
      details,
      minimumExpectedOut: minimumExpectedOut.toString(),
      blockNumber: snapshot.blockNumber.toString(),
    };
    if (query.priceImpact) answer.priceImpact = priceImpact(market, best.hops, query.amountIn, best.amountOut);
    if (query.from) {
      const data = encodeFunctionData({
        abi: routerAbi,
        functionName: 'swapExactInputForOutput',
        args: [
          {
            path: details.path as Address[],
            pairs: details.pairs as Address[],
            extras: details.extras as Hex[],
            inputAmount: query.amountIn,
            minOutputAmount: minimumExpectedOut,
            expectedOutputAmount: expectedOut,
            to: query.to ?? query.from,
            deadline,
            partner: BigInt(partner?.id ?? 0),
            sig: details.sig as Hex,
          },
        ],
      });
      answer.txn = { to: this.config.router, from: query.from, data, value: '0', gas: readyTransactionGas(best.hops.length).toString() };
    }
    return answer;
  }

  /**
   * An amount split across routes through disjoint pools, in one block (our extension, GET /routes/split): up to
   * `maxSplitRoutes` routes found one after another, each without the pools of those before it; the amount shared
   * among them in `splitParts` parts, each part to the route that pays most for it on top of what it carries already;
   * each route then answered for its part as GET /routes answers a path, with the pools it goes through. One route
   * only where sharing gains nothing. The routes' pools being disjoint, their outputs add up on one state.
   */
  async split(snapshot: MarketAtBlock, query: SwapRouteQuery, partner?: Partner): Promise<SplitRouteJson> {
    const { market } = snapshot;
    this.#requireToken(market, query.tokenIn, 'tokenIn');
    this.#requireToken(market, query.tokenOut, 'tokenOut');
    const paths: Hop[][] = [];
    let excluded: Address[] = [...(query.excludePools ?? [])];
    // The first route is the best for the whole amount (the answer where sharing gains nothing, as GET /routes gives
    // it); the others are the best for one part of it: a venue that caps a swap's size (Mento's trading limits) takes
    // parts of an amount it could never take whole.
    const onePart = { ...query, amountIn: query.amountIn / splitParts > 0n ? query.amountIn / splitParts : query.amountIn };
    for (let found = 0; found < maxSplitRoutes; found++) {
      const search = (asked: SwapRouteQuery) => this.#search(snapshot, { ...asked, excludePools: excluded });
      const best = (found === 0 ? (await search(query)).best : undefined) ?? (await search(onePart)).best;
      if (!best) break;
      paths.push(best.hops);
      excluded = [...excluded, ...best.hops.map((hop) => hop.pool.address)];
    }
    if (paths.length === 0) throw noRoute();
    const shares = shareAmong(market, paths, query.amountIn);
    const used = paths.map((hops, i) => ({ hops, amountIn: shares[i] as bigint })).filter((share) => share.amountIn > 0n);
    const routes: SplitRouteJson['routes'] = [];
    for (const { hops, amountIn } of used) {
      const route = await this.#swapAnswer(snapshot, { ...query, amountIn }, { hops, amountOut: market.pathOutput(hops, amountIn) }, partner);
      routes.push({ amountIn: amountIn.toString(), pools: hops.map((hop) => hop.pool.address), route });
    }
    const expectedOut = routes.reduce((sum, { route }) => sum + BigInt(route.expectedOut), 0n);
    return { expectedOut: expectedOut.toString(), routes, blockNumber: snapshot.blockNumber.toString() };
  }

  /**
   * Splits `inputAmount` of tokenIn between the position's two underlyings so that the farm adds almost all
   * of both: the split is found by bisection on the exact outcome, swaps' price impact included.
   */
  async deposit(snapshot: MarketAtBlock, query: EarnRouteQuery, partner?: Partner): Promise<EarnRouteJson> {
    const position = this.#position(snapshot.market, query.tokenOut, 'tokenOut');
    this.#requireToken(snapshot.market, query.tokenIn, 'tokenIn');
    const deadline = this.#deadline(snapshot, query.deadlineMs);
    const fee = this.#feeOf(snapshot, partner);
    const { pool } = position;
    const total = query.inputAmount;
    if (total < 2n) throw noRoute('the amount is too small to split between two tokens');

    const legs = [pool.token0, pool.token1].map((underlying) => {
      if (isAddressEqual(underlying, query.tokenIn)) return [];
      const path = bestPathNow(snapshot.market, query.tokenIn, underlying, total / 2n, this.#legSearch(query));
      if (!path) throw noRoute(`nothing reaches ${underlying}`);
      return path.hops;
    }) as [Hop[], Hop[]];

    const outcome = (toToken0: bigint) => {
      const market = snapshot.market.clone();
      const out0 = legOutput(market, legs[0], toToken0, fee);
      const out1 = legOutput(market, legs[1], total - toToken0, fee);
      const { reserve0, reserve1, totalSupply } = market.supplied(pool);
      const { liquidity } = addLiquidity(out0, out1, reserve0, reserve1, totalSupply);
      return { toToken0, out0, out1, liquidity, excess0: out0 * reserve1 - out1 * reserve0 };
    };
    // More to token0 means more token0 and less token1 at the farm: the excess of token0 grows with the split.
    let [low, high] = [1n, total - 1n];
    while (low < high) {
      const mid = (low + high + 1n) / 2n;
      if (outcome(mid).excess0 <= 0n) low = mid;
      else high = mid - 1n;
    }
    const candidates = [outcome(low), ...(low + 1n <= total - 1n ? [outcome(low + 1n)] : [])];
    const best = candidates.reduce((a, b) => (b.liquidity > a.liquidity ? b : a));
    if (best.liquidity === 0n || best.out0 === 0n || best.out1 === 0n) throw noRoute('the amount is too small to mint any liquidity');

    const underlyingRoutes = await Promise.all([
      this.#routeDetail(query.tokenIn, legs[0], best.toToken0, best.out0, deadline, partner),
      this.#routeDetail(query.tokenIn, legs[1], total - best.toToken0, best.out1, deadline, partner),
    ]);
    return this.#earnAnswer(snapshot, best.liquidity, underlyingRoutes, position);
  }

  /** Unwinds the position's share of the pool and routes each underlying to tokenOut, in the order the farm does. */
  async withdraw(snapshot: MarketAtBlock, query: EarnRouteQuery, partner?: Partner): Promise<EarnRouteJson> {
    const position = this.#position(snapshot.market, query.tokenIn, 'tokenIn');
    this.#requireToken(snapshot.market, query.tokenOut, 'tokenOut');
    const deadline = this.#deadline(snapshot, query.deadlineMs);
    const fee = this.#feeOf(snapshot, partner);
    const { pool } = position;
    const market = snapshot.market.clone();
    const { reserve0, reserve1, totalSupply } = market.supplied(pool);
    if (query.inputAmount > totalSupply) throw badRequest('inputAmount', `exceeds the position's total supply ${totalSupply}`);
    const { amount0, amount1 } = removeLiquidity(query.inputAmount, reserve0, reserve1, totalSupply);
    market.setReserves(pool, { reserve0: reserve0 - amount0, reserve1: reserve1 - amount1, totalSupply: totalSupply - query.inputAmount });

    const underlyingRoutes: RouteDetailJson[] = [];
    let expectedOut = 0n;
    for (const [underlying, amount] of [
      [pool.token0, amount0],
      [pool.token1, amount1],
    ] as const) {
      if (amount === 0n) continue;
      let hops: Hop[] = [];
      if (!isAddressEqual(underlying, query.tokenOut)) {
        const path = bestPathNow(market, underlying, query.tokenOut, amount, this.#legSearch(query));
        if (!path) throw noRoute(`nothing takes ${underlying} to ${query.tokenOut}`);
        hops = path.hops;
      }
      const out = legOutput(market, hops, amount, fee);
      underlyingRoutes.push(await this.#routeDetail(underlying, hops, amount, out, deadline, partner));
      expectedOut += out;
    }
    if (expectedOut === 0n) throw noRoute('the amount is too small to pay any output');
    return this.#earnAnswer(snapshot, expectedOut, underlyingRoutes, position);
  }

  #earnAnswer(snapshot: MarketAtBlock, expectedOut: bigint, underlyingRoutes: RouteDetailJson[], position: Position): EarnRouteJson {
    return {
      expectedOut: expectedOut.toString(),
      blockNumber: snapshot.blockNumber.toString(),
      routerAddress: this.config.router,
      oneClickFarmAddress: position.oneClickFarm,
      underlyingRoutes,
      depositData: { addr: position.farm, extra: position.farmData },
    };
  }

  async #routeDetail(
    tokenIn: Address,
    hops: readonly Hop[],
    inputAmount: bigint,
    expectedOutputAmount: bigint,
    deadline: bigint,
    partner: Partner | undefined,
  ): Promise<RouteDetailJson> {
    const path = [tokenIn, ...hops.map((hop) => hop.tokenOut)];
    const pairs = hops.map((hop) => hop.pool.adapter.address);
    const tokenOut = path[path.length - 1] as Address;
    return {
      path,
      pairs,
      extras: hops.map((hop) => hop.pool.kind.extras(hop.pool.adapter, hop.pool)),
      inputAmount: inputAmount.toString(),
      expectedOutputAmount: expectedOutputAmount.toString(),
      deadline: Number(deadline),
      partner: partner?.id ?? 0,
      sig: partner ? await partner.sign(partnerDigest(BigInt(partner.id), deadline, tokenIn, tokenOut)) : '0x',
    };
  }

  get #budgetMs(): number {
    return this.config.searchBudgetMs ?? defaultSearchBudgetMs;
  }

  /** The swap's search, shared with identical requests on the same block while it runs. */
  #search(snapshot: MarketAtBlock, query: SwapRouteQuery): Promise<SearchOutcome> {
    const route: RouteSearch = { ...searchOf(query), through: this.config.through, hopCost: this.#hopCost(snapshot, query.tokenOut) };
    const id = [
      snapshot.blockHash,
      query.tokenIn,
      query.tokenOut,
      query.amountIn,
      route.maxHops,
      [...(route.exclude ?? [])].sort().join(','),
      [...(route.excludePools ?? [])].sort().join(','),
    ]
      .join(':')
      .toLowerCase();
    let search = this.#searches.get(id);
    if (!search) {
      search = searchWithin(snapshot.market, query.tokenIn, query.tokenOut, query.amountIn, route, { budgetMs: this.#budgetMs });
      this.#searches.set(id, search);
      const forget = () => this.#searches.delete(id);
      search.then(forget, forget);
    }
    return search;
  }

  /** A hop's gas at the block's base fee, in tokenOut: the gas token's worth through the pools (0 where none prices it). */
  #legSearch(query: SearchQuery): RouteSearch {
    return { ...legSearchOf(query), through: this.config.through };
  }

  #hopCost(snapshot: MarketAtBlock, tokenOut: Address): bigint {
    const gasToken = this.config.gasToken;
    const wei = gasPerHop * snapshot.gasPrice;
    if (!gasToken || wei === 0n) return 0n;
    if (isAddressEqual(gasToken, tokenOut)) return wei;
    return bestPathNow(snapshot.market, gasToken, tokenOut, wei, { maxHops: 2 })?.amountOut ?? 0n;
  }

  #position(market: Market, token: Address, field: string): Position {
    const position = this.positionOf(market, token);
    if (!position) throw badRequest(field, `${token} is not an LP or gauge token this service can route`);
    return position;
  }

  /**
   * The position `token` is: a gauge's token, or a routable pool's LP token. Positions are in constant-product pools
   * only: no farm for Uniswap V3 positions is named, and a V3 pool has no LP token.
   */
  positionOf(market: Market, token: Address): Position | undefined {
    const earn = this.config.earn;
    if (!earn) return undefined;
    const gauge = earn.gauges.find((candidate) => isAddressEqual(candidate.address, token));
    if (gauge && earn.gaugeFarm) {
      const pool = market.pool(gauge.pool);
      return pool?.kind.lpPositions
        ? { token, pool, farm: earn.gaugeFarm, farmData: encodeGaugeFarmData(pool.address, gauge.address), oneClickFarm: earn.oneClickFarm }
        : undefined;
    }
    const pool = earn.uniswapV2Farm ? market.pool(token) : undefined;
    // The V2 farm reads the pool's fee as a per-mille byte.
    if (!pool?.kind.lpPositions || !earn.uniswapV2Farm || pool.feeBps % 10 !== 0) return undefined;
    return { token, pool, farm: earn.uniswapV2Farm, farmData: encodePoolExtras(pool.address, pool.feeBps / 10), oneClickFarm: earn.oneClickFarm };
  }

  #requireToken(market: Market, token: Address, field: 'tokenIn' | 'tokenOut') {
    if (!market.hasToken(token)) throw unsupportedTokens(field, [token]);
  }

  /** Absolute deadline in Unix seconds: a duration counts from the latest block's time, not the wall clock. */
  #deadline(snapshot: MarketAtBlock, deadlineMs: number | undefined): bigint {
    const deadline = interpretDeadline(deadlineMs);
    if (deadline.kind === 'duration') return snapshot.blockTimestamp + BigInt(Math.ceil(deadline.ms / 1000));
    if (BigInt(deadline.unixSeconds) <= snapshot.blockTimestamp) {
      throw badRequest('deadlineMs', `${deadline.unixSeconds} (Unix seconds) is not after the latest block's time ${snapshot.blockTimestamp}`);
    }
    return BigInt(deadline.unixSeconds);
  }

  #feeOf(snapshot: MarketAtBlock, partner: Partner | undefined): bigint {
    if (!partner) return 0n;
    const fees = snapshot.partnerFees;
    if ('unreadable' in fees) throw chainUnavailable(`Partner fees unavailable: the router's getPartnerFee did not answer (${fees.unreadable})`);
    return fees.get(partner.id) ?? 0n;
  }
}

type SearchQuery = { maxHops: number; exclude?: string[] | undefined; excludePools?: Address[] | undefined };

function searchOf(query: SearchQuery): RouteSearch {
  return { maxHops: query.maxHops, exclude: query.exclude ?? [], excludePools: query.excludePools ?? [] };
}

/**
 * A deposit's or withdraw's legs: never through Mento, whose hops the daemon holds to per-hop quotes that a farm's
 * legs do not carry (it refuses such a leg).
 */
function legSearchOf(query: SearchQuery): RouteSearch {
  return { ...searchOf(query), exclude: [...(query.exclude ?? []), mentoProtocol] };
}

/** Runs one leg on `market` and returns what reaches its recipient: an empty leg is the token itself. */
function legOutput(market: Market, hops: readonly Hop[], amountIn: bigint, feeNumerator: bigint): bigint {
  if (hops.length === 0) return amountIn;
  const gross = market.apply(hops, amountIn);
  return gross - partnerFee(gross, feeNumerator);
}

/**
 * How far below the mid-price output the trade lands, pool fees included, as numerator / 1e18:
 * the mid-price output is amountIn times each pool's mid price (reserveOut / reserveIn, or a V3 pool's √price²).
 */
function priceImpact(market: Market, hops: readonly Hop[], amountIn: bigint, amountOut: bigint) {
  let spotNumerator = amountIn;
  let spotDenominator = 1n;
  for (const hop of hops) {
    const { numerator, denominator } = market.midPrice(hop);
    spotNumerator *= numerator;
    spotDenominator *= denominator;
  }
  const numerator = ((spotNumerator - amountOut * spotDenominator) * PRICE_IMPACT_SCALE) / spotNumerator;
  return { numerator: numerator.toString(), denominator: PRICE_IMPACT_SCALE.toString() };
}

/** The router's partner fee on an output: numerator over 1e10. */
function partnerFee(output: bigint, feeNumerator: bigint): bigint {
  return (output * feeNumerator) / 10_000_000_000n;
}
