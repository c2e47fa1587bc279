/**
 * Turns a request and a chain snapshot into the service's answers. Every amount is what the contracts
 * will pay when the transaction is mined on top of that snapshot: swaps and farm steps are simulated in
 * the order OneClickFarm runs them, on a copy of the reserves.
 */
import { type Address, type Hex, encodeFunctionData, isAddressEqual } from 'viem';
import { routerAbi } from '../../contracts/abi.ts';
import { encodePoolExtras, partnerDigest } from '../../contracts/encoding.ts';
import {
  type EarnRouteJson,
  type EarnRouteQuery,
  type RouteDetailJson,
  type SwapRouteJson,
  type SwapRouteQuery,
  interpretDeadline,
} from '../../service/schemas.ts';
import { addLiquidity, partnerFee, removeLiquidity } from './amm.ts';
import type { ChainSnapshot } from './chain-state.ts';
import { badRequest, noRoute, unsupportedTokens } from './errors.ts';
import type { Hop, Market, PoolInfo, RouteSearch } from './market.ts';

/** An LP or gauge token the service can deposit into and withdraw from, and the farm that does it. */
export type Position = { token: Address; pool: PoolInfo; farm: Address; farmData: Hex };

/** A partner resolved from an API key: its id, and a signer for the router's partner signature. */
export type Partner = { id: number; sign(digest: Hex): Promise<Hex> };

export type QuoteEngineConfig = {
  router: Address;
  oneClickFarm: Address;
  /** The pair adapter to use for each pool protocol, and how it reads a pool from `extras`. */
  adapters: Readonly<Record<string, { address: Address; extras(pool: PoolInfo): Hex }>>;
  positions: readonly Position[];
};

/** Generous gas for a ready-to-sign swap: the router's own work plus each hop (pool, adapter, transfers). */
export const readyTransactionGas = (hops: number) => 150_000n + 110_000n * BigInt(hops);

const PRICE_IMPACT_SCALE = 10n ** 18n;

export class QuoteEngine {
  constructor(private readonly config: QuoteEngineConfig) {}

  async swap(snapshot: ChainSnapshot, query: SwapRouteQuery, partner?: Partner): Promise<SwapRouteJson> {
    const { market } = snapshot;
    this.#requireToken(market, query.tokenIn, 'tokenIn');
    this.#requireToken(market, query.tokenOut, 'tokenOut');
    const deadline = this.#deadline(snapshot, query.deadlineMs);
    const best = market.bestPath(query.tokenIn, query.tokenOut, query.amountIn, searchOf(query));
    if (!best) throw noRoute();
    const expectedOut = best.amountOut - partnerFee(best.amountOut, this.#feeOf(snapshot, partner));
    if (expectedOut === 0n) throw noRoute('the amount is too small to pay any output');

    const details = await this.#routeDetail(query.tokenIn, best.hops, query.amountIn, expectedOut, deadline, partner);
    const minimumExpectedOut = (expectedOut * BigInt(10_000 - query.slippage)) / 10_000n;
    const answer: SwapRouteJson = {
      expectedOut: expectedOut.toString(),
      routerAddress: this.config.router,
      details,
      minimumExpectedOut: minimumExpectedOut.toString(),
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
   * Splits `inputAmount` of tokenIn between the position's two underlyings so that the farm adds almost all
   * of both: the split is found by bisection on the exact outcome, swaps' price impact included.
   */
  async deposit(snapshot: ChainSnapshot, query: EarnRouteQuery, partner?: Partner): Promise<EarnRouteJson> {
    const position = this.#position(query.tokenOut, 'tokenOut');
    this.#requireToken(snapshot.market, query.tokenIn, 'tokenIn');
    const deadline = this.#deadline(snapshot, query.deadlineMs);
    const fee = this.#feeOf(snapshot, partner);
    const { pool } = position;
    const total = query.inputAmount;
    if (total < 2n) throw noRoute('the amount is too small to split between two tokens');

    const legs = [pool.token0, pool.token1].map((underlying) => {
      if (isAddressEqual(underlying, query.tokenIn)) return [];
      const path = snapshot.market.bestPath(query.tokenIn, underlying, total / 2n, searchOf(query));
      if (!path) throw noRoute(`nothing reaches ${underlying}`);
      return path.hops;
    }) as [Hop[], Hop[]];

    const outcome = (toToken0: bigint) => {
      const market = snapshot.market.clone();
      const out0 = legOutput(market, legs[0], toToken0, fee);
      const out1 = legOutput(market, legs[1], total - toToken0, fee);
      const { reserve0, reserve1, totalSupply } = market.reserves(pool);
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
    return this.#earnAnswer(best.liquidity, underlyingRoutes, position);
  }

  /** Unwinds the position's share of the pool and routes each underlying to tokenOut, in the order the farm does. */
  async withdraw(snapshot: ChainSnapshot, query: EarnRouteQuery, partner?: Partner): Promise<EarnRouteJson> {
    const position = this.#position(query.tokenIn, 'tokenIn');
    this.#requireToken(snapshot.market, query.tokenOut, 'tokenOut');
    const deadline = this.#deadline(snapshot, query.deadlineMs);
    const fee = this.#feeOf(snapshot, partner);
    const { pool } = position;
    const market = snapshot.market.clone();
    const { reserve0, reserve1, totalSupply } = market.reserves(pool);
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
        const path = market.bestPath(underlying, query.tokenOut, amount, searchOf(query));
        if (!path) throw noRoute(`nothing takes ${underlying} to ${query.tokenOut}`);
        hops = path.hops;
      }
      const out = legOutput(market, hops, amount, fee);
      underlyingRoutes.push(await this.#routeDetail(underlying, hops, amount, out, deadline, partner));
      expectedOut += out;
    }
    if (expectedOut === 0n) throw noRoute('the amount is too small to pay any output');
    return this.#earnAnswer(expectedOut, underlyingRoutes, position);
  }

  isPosition(token: Address): boolean {
    return this.config.positions.some((position) => isAddressEqual(position.token, token));
  }

  #earnAnswer(expectedOut: bigint, underlyingRoutes: RouteDetailJson[], position: Position): EarnRouteJson {
    return {
      expectedOut: expectedOut.toString(),
      routerAddress: this.config.router,
      oneClickFarmAddress: this.config.oneClickFarm,
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
    const pairs = hops.map((hop) => {
      const adapter = this.config.adapters[hop.pool.protocol];
      if (!adapter) throw new Error(`no adapter configured for protocol ${hop.pool.protocol}`);
      return adapter.address;
    });
    const tokenOut = path[path.length - 1] as Address;
    return {
      path,
      pairs,
      extras: hops.map((hop) => (this.config.adapters[hop.pool.protocol] as { extras(pool: PoolInfo): Hex }).extras(hop.pool)),
      inputAmount: inputAmount.toString(),
      expectedOutputAmount: expectedOutputAmount.toString(),
      deadline: Number(deadline),
      partner: partner?.id ?? 0,
      sig: partner ? await partner.sign(partnerDigest(BigInt(partner.id), deadline, tokenIn, tokenOut)) : '0x',
    };
  }

  #position(token: Address, field: string): Position {
    const position = this.config.positions.find((candidate) => isAddressEqual(candidate.token, token));
    if (!position) throw badRequest(field, `${token} is not an LP or gauge token this service can route`);
    return position;
  }

  #requireToken(market: Market, token: Address, field: 'tokenIn' | 'tokenOut') {
    if (!market.hasToken(token)) throw unsupportedTokens(field, [token]);
  }

  /** Absolute deadline in Unix seconds: a duration counts from the latest block's time, not the wall clock. */
  #deadline(snapshot: ChainSnapshot, deadlineMs: number | undefined): bigint {
    const deadline = interpretDeadline(deadlineMs);
    if (deadline.kind === 'duration') return snapshot.blockTimestamp + BigInt(Math.ceil(deadline.ms / 1000));
    if (BigInt(deadline.unixSeconds) <= snapshot.blockTimestamp) {
      throw badRequest('deadlineMs', `${deadline.unixSeconds} (Unix seconds) is not after the latest block's time ${snapshot.blockTimestamp}`);
    }
    return BigInt(deadline.unixSeconds);
  }

  #feeOf(snapshot: ChainSnapshot, partner: Partner | undefined): bigint {
    return partner ? (snapshot.partnerFees.get(partner.id) ?? 0n) : 0n;
  }
}

function searchOf(query: { maxHops: number; exclude?: string[] | undefined }): RouteSearch {
  return { maxHops: query.maxHops, exclude: query.exclude ?? [] };
}

/** Runs one leg on `market` and returns what reaches its recipient: an empty leg is the token itself. */
function legOutput(market: Market, hops: readonly Hop[], amountIn: bigint, feeNumerator: bigint): bigint {
  if (hops.length === 0) return amountIn;
  const gross = market.apply(hops, amountIn);
  return gross - partnerFee(gross, feeNumerator);
}

/**
 * How far below the mid-price output the trade lands, pool fees included, as numerator / 1e18:
 * the mid-price output is amountIn · Π reserveOut / Π reserveIn at the snapshot's reserves.
 */
function priceImpact(market: Market, hops: readonly Hop[], amountIn: bigint, amountOut: bigint) {
  let spotNumerator = amountIn;
  let spotDenominator = 1n;
  for (const hop of hops) {
    const { reserve0, reserve1 } = market.reserves(hop.pool);
    const inIs0 = isAddressEqual(hop.tokenIn, hop.pool.token0);
    spotNumerator *= inIs0 ? reserve1 : reserve0;
    spotDenominator *= inIs0 ? reserve0 : reserve1;
  }
  const numerator = ((spotNumerator - amountOut * spotDenominator) * PRICE_IMPACT_SCALE) / spotNumerator;
  return { numerator: numerator.toString(), denominator: PRICE_IMPACT_SCALE.toString() };
}
