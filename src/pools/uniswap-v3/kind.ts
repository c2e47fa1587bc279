/**
 * Uniswap V3 concentrated-liquidity pools as a pool kind (kind.ts): a factory's `PoolCreated` logs name its pools
 * with their fee and tick spacing (read from its deployment block at a first start); a pool's `Initialize` and `Swap`
 * carry its price, tick and liquidity after them, its `Mint` and `Burn` the liquidity a position adds or removes
 * between two ticks; a pool whose price nears the edge of the ticks read is read again around it. A quote runs the
 * pool's own swap loop (math.ts). Adapters read `extras` as the pool alone (20 bytes).
 */
import { type Address, type Hex, getAddress, isAddressEqual, parseEventLogs, size, zeroAddress } from 'viem';
import { multicall } from 'viem/actions';
import { answers, isContractRevert } from '../../contracts/revert.ts';
import { uniswapV3FactoryAbi, uniswapV3PoolAbi } from '../../contracts/abi.ts';
import { v3PoolAddress } from '../../contracts/encoding.ts';
import type { CachedPool, FactorySource, IndexedPool, PoolKind } from '../kind.ts';
import { NoAverageError, Q112 } from '../prices.ts';
import { oracleInitialized, oracleShortOfWindow, oracleWritten } from './oracle.ts';
import { type InitializedTick, type V3Oracle, type V3PoolState, quoteExactIn, sqrtRatioAtTick, swapExactIn, withPositionChange } from './math.ts';
import { readV3PoolState } from './state.ts';

/** A V3 pool whose price is within this many bitmap words of the edge of those read is read again around it. */
const EDGE_WORDS = 1;

/** A pool created but not yet initialized: no price, nothing to route. */
const uninitialized: V3PoolState = { sqrtPriceX96: 0n, tick: 0, liquidity: 0n, ticks: [], words: { low: -32768, high: 32767 } };

const poolCreatedEvent = uniswapV3FactoryAbi.filter((item) => item.type === 'event');

/** The widest block range one `eth_getLogs` for a factory's `PoolCreated` asks for (halved when a node refuses it). */
const DISCOVERY_LOG_RANGE = 50_000n;

function poolOf(factory: FactorySource, pool: Address, token0: Address, token1: Address, fee: number, tickSpacing: number): IndexedPool {
  return {
    address: getAddress(pool),
    token0: getAddress(token0),
    token1: getAddress(token1),
    feeBps: fee / 100,
    kind: uniswapV3,
    v3: { fee, tickSpacing },
    protocol: factory.protocol,
    adapter: factory.adapter,
    factory: factory.address,
    index: -1,
  };
}

/** An oracle as the index file keeps it; anything else is not known. */
function oracleFromCache(entry: unknown): V3Oracle | undefined {
  const oracle = entry as { index?: unknown; cardinality?: unknown; cardinalityNext?: unknown; lastWrite?: unknown } | undefined;
  const { index, cardinality, cardinalityNext } = oracle ?? {};
  if (typeof index !== 'number' || typeof cardinality !== 'number' || typeof cardinalityNext !== 'number') return undefined;
  return { index, cardinality, cardinalityNext, lastWrite: integer(oracle?.lastWrite) };
}

const integer = (value: unknown) => (typeof value === 'string' && /^-?\d+$/.test(value) ? BigInt(value) : 0n);
const spacingOf = (pool: { v3?: { tickSpacing: number } }) => pool.v3?.tickSpacing ?? 1;

/** A √price × 2^96 as a V2 pair's prices are kept: raw token1 per raw token0, × 2^112. */
function spotOf(pool: Address, sqrtPriceX96: bigint): bigint {
  const price = (sqrtPriceX96 * sqrtPriceX96) >> 80n;
  if (price === 0n) throw new NoAverageError(`pool ${pool}'s price is below what a Q112 price can hold`);
  return price;
}

/** The highest fee tier Uniswap V3 factories enable (1%): what a pool of an unknown tier is assumed to charge. */
const HIGHEST_FEE_PPM = 10_000;

export const uniswapV3: PoolKind<V3PoolState> = {
  id: 'uniswap-v3',
  name: 'Uniswap V3',
  // A V3 position is an NFT, not an ERC-20 a farm holds.
  lpPositions: false,
  adapterName: () => 'Uniswap V3, extras: the pool',
  extras: (_adapter, pool): Hex => pool.address.toLowerCase() as Hex,

  events: [...poolCreatedEvent, ...uniswapV3PoolAbi.filter((item) => item.type === 'event')],
  /** The pools `known` lists, and those its `PoolCreated` logs announce after the last block scanned (`progress`). */
  async discover(client, factory, known, head) {
    // Scanned past the head (a chain reverted to an earlier block): what was found then may not exist now.
    const continues = known.progress !== undefined && known.progress <= head.number;
    const found = continues ? [...known.pools] : [];
    const from = continues ? (known.progress as bigint) + 1n : factory.kind === 'uniswap-v3' ? factory.fromBlock : 0n;
    // Nodes cap a log request's range or its answer: a refused range is asked again in halves, down to 100 blocks.
    let range = DISCOVERY_LOG_RANGE;
    for (let start = from; start <= head.number; ) {
      const end = start + range - 1n < head.number ? start + range - 1n : head.number;
      const logs = await client.getLogs({ address: factory.address, events: poolCreatedEvent, fromBlock: start, toBlock: end }).catch((error: unknown) => {
        if (range <= 100n) throw error;
        return undefined;
      });
      if (!logs) {
        range /= 2n;
        continue;
      }
      for (const log of parseEventLogs({ abi: poolCreatedEvent, logs, strict: false })) {
        const { pool, token0, token1, fee, tickSpacing } = log.args;
        if (pool && token0 && token1 && fee !== undefined && tickSpacing !== undefined) found.push(poolOf(factory, pool, token0, token1, fee, tickSpacing));
      }
      start = end + 1n;
    }
    return { pools: found, progress: head.number };
  },
  // The one log request per block carries `PoolCreated`: every block followed is a block scanned.
  progressAfter: (_progress, head) => head.number,
  // PoolCreated logs of blocks a reorg replaced may be elsewhere in the new chain: looked for again.
  progressBefore: (progress, blocks) => (progress > blocks ? progress - blocks : 0n),
  async readState(client, pool, blockNumber) {
    return readV3PoolState(client, pool.address, spacingOf(pool), blockNumber).catch(async (error: unknown) => {
      if ((await client.getCode({ address: pool.address, blockNumber })) === undefined) return undefined;
      throw error;
    });
  },
  follow(log, draft) {
    const key = log.address.toLowerCase();
    if (log.eventName === 'PoolCreated') {
      const factory = draft.factory(log.address);
      const {
        pool: address,
        token0,
        token1,
        fee,
        tickSpacing,
      } = log.args as { pool?: Address; token0?: Address; token1?: Address; fee?: number; tickSpacing?: number };
      if (factory?.kind !== 'uniswap-v3' || !address || !token0 || !token1 || fee === undefined || tickSpacing === undefined) return false;
      const pool = poolOf(factory, address, token0, token1, fee, tickSpacing);
      draft.pools.set(pool.address.toLowerCase(), pool);
      if (!draft.states.has(pool.address.toLowerCase())) draft.states.set(pool.address.toLowerCase(), uninitialized);
      return true;
    }
    if (draft.pools.get(key)?.kind !== uniswapV3) return false;
    const state = draft.states.get(key) as V3PoolState | undefined;
    if (!state) return false;
    if (log.eventName === 'Initialize' || log.eventName === 'Swap') {
      // Both carry the pool's price and tick after them; a swap also its liquidity in range.
      const { sqrtPriceX96, tick, liquidity } = log.args as { sqrtPriceX96?: bigint; tick?: number; liquidity?: bigint };
      if (sqrtPriceX96 === undefined || tick === undefined) return false;
      // Initializing writes the first observation; a swap writes one when it moves the tick.
      const oracle =
        log.eventName === 'Initialize'
          ? oracleInitialized(draft.time)
          : state.oracle && tick !== state.tick
            ? oracleWritten(state.oracle, draft.time)
            : state.oracle;
      draft.states.set(key, { ...state, sqrtPriceX96, tick, liquidity: liquidity ?? state.liquidity, oracle });
      return true;
    }
    if (log.eventName === 'Mint' || log.eventName === 'Burn') {
      const { tickLower, tickUpper, amount } = log.args as { tickLower?: number; tickUpper?: number; amount?: bigint };
      if (tickLower === undefined || tickUpper === undefined || amount === undefined || amount === 0n) return false;
      // A position changed in range writes an observation first (its liquidity in range changes).
      const inRange = tickLower <= state.tick && state.tick < tickUpper;
      const moved = withPositionChange(state, tickLower, tickUpper, log.eventName === 'Mint' ? amount : -amount);
      draft.states.set(key, inRange && state.oracle ? { ...moved, oracle: oracleWritten(state.oracle, draft.time) } : moved);
      return true;
    }
    if (log.eventName === 'IncreaseObservationCardinalityNext') {
      const { observationCardinalityNextNew } = log.args as { observationCardinalityNextNew?: number };
      if (observationCardinalityNextNew === undefined || !state.oracle) return false;
      draft.states.set(key, { ...state, oracle: { ...state.oracle, cardinalityNext: observationCardinalityNextNew } });
      return true;
    }
    return false;
  },
  needsRead(pool, state) {
    if (state.sqrtPriceX96 === 0n) return false;
    const word = Math.floor(Math.floor(state.tick / spacingOf(pool)) / 256);
    return word - state.words.low < EDGE_WORDS || state.words.high - word < EDGE_WORDS;
  },
  toCache: (pool, state): CachedPool => ({
    kind: 'uniswap-v3',
    address: pool.address,
    token0: pool.token0,
    token1: pool.token1,
    factory: pool.factory,
    index: pool.index,
    fee: pool.v3?.fee,
    tickSpacing: spacingOf(pool),
    sqrtPriceX96: state.sqrtPriceX96.toString(),
    tick: state.tick,
    liquidity: state.liquidity.toString(),
    words: state.words,
    ticks: state.ticks.map((tick) => [tick.tick, tick.liquidityNet.toString(), tick.liquidityGross.toString()]),
    oracle: state.oracle && { ...state.oracle, lastWrite: state.oracle.lastWrite.toString() },
  }),
  fromCache(entry, factory) {
    const ticks = (entry.ticks as [number, string, string][]).map(
      ([tick, net, gross]): InitializedTick => ({ tick, liquidityNet: integer(net), liquidityGross: integer(gross) }),
    );
    return {
      pool: poolOf(factory, entry.address, entry.token0, entry.token1, entry.fee as number, entry.tickSpacing as number),
      state: {
        sqrtPriceX96: integer(entry.sqrtPriceX96),
        tick: entry.tick as number,
        liquidity: integer(entry.liquidity),
        words: entry.words as V3PoolState['words'],
        ticks,
        oracle: oracleFromCache(entry.oracle),
      },
    };
  },

  historyShort: (state, now, windowSeconds) => oracleShortOfWindow(state.oracle, now, windowSeconds),
  // Initialized, with at least the floor's liquidity in range (its own unit, √(x·y)).
  routable: (state, minReserve) => state.sqrtPriceX96 > 0n && state.liquidity >= minReserve,
  quote: (state, pool, inIs0, amountIn) => (pool.v3 && quoteExactIn(state, pool.v3, inIs0, amountIn)) || 0n,
  swap(state, pool, inIs0, amountIn) {
    const swapped = pool.v3 && swapExactIn(state, pool.v3, inIs0, amountIn);
    if (!swapped) return undefined;
    return { amountOut: swapped.amountOut, state: { ...state, sqrtPriceX96: swapped.sqrtPriceX96, tick: swapped.tick, liquidity: swapped.liquidity } };
  },
  midPrice(state, inIs0) {
    const [price0, scale] = [state.sqrtPriceX96 * state.sqrtPriceX96, 1n << 192n];
    return inIs0 ? { numerator: price0, denominator: scale } : { numerator: scale, denominator: price0 };
  },
  /** The factory's pools of two of `tokens` at the standard fee tiers, up to `max`. */
  async samplePools(client, factory, tokens, blockNumber, max) {
    const pools: IndexedPool[] = [];
    for (const [i, tokenA] of tokens.entries()) {
      for (const tokenB of tokens.slice(i + 1)) {
        for (const fee of [100, 500, 3000, 10_000]) {
          if (pools.length >= max) return pools;
          const pool = await client.readContract({
            address: factory.address,
            abi: uniswapV3FactoryAbi,
            functionName: 'getPool',
            args: [tokenA, tokenB, fee],
            blockNumber,
          });
          if (/^0x0{40}$/.test(pool)) continue;
          const tickSpacing = await client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'tickSpacing', blockNumber });
          const [token0, token1] = BigInt(tokenA) < BigInt(tokenB) ? [tokenA, tokenB] : [tokenB, tokenA];
          pools.push(poolOf(factory, pool, token0, token1, fee, tickSpacing));
        }
      }
    }
    return pools;
  },

  provenBy: "its getPool at the pool's fee",
  createdAt: (factory, initCodeHash, pool) => v3PoolAddress(factory, initCodeHash, [pool.token0, pool.token1], pool.v3?.fee ?? 0),
  /** The pool alone (20 bytes): it knows its own fee. */
  readExtras: (extras) => (size(extras) === 20 ? { pool: getAddress(extras) } : `is ${size(extras)} bytes, not a Uniswap V3 pool (20)`),
  /**
   * The pool is asked its fee, and the factory's pool for the tokens at that fee (CREATE2 of its init code hash, or its
   * getPool) must be `pool`: a contract that lies about its fee is then not at the address the factory gives that fee.
   */
  async madeBy(facts, factory, pool, [token0, token1]) {
    if (factory.kind !== 'uniswap-v3') return undefined;
    const feePpm = await facts
      .number(`fee:${pool}`, () => facts.client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'fee' }))
      .catch(() => undefined);
    if (feePpm === undefined) return undefined;
    const made = factory.initCodeHash
      ? v3PoolAddress(factory.address, factory.initCodeHash, [token0, token1], feePpm)
      : await facts
          .address(`v3pool:${factory.address}:${token0}:${token1}:${feePpm}`, () =>
            facts.client.readContract({ address: factory.address, abi: uniswapV3FactoryAbi, functionName: 'getPool', args: [token0, token1, feePpm] }),
          )
          .catch(() => zeroAddress);
    return isAddressEqual(made, pool) ? feePpm : undefined;
  },
  highestFeePpm: () => HIGHEST_FEE_PPM,
  steadyPrice: {
    /**
     * Its price now (slot0) and its time-weighted mean over the window from `observe([window, 0])`, both at the latest
     * block; the mean tick rounded toward negative infinity, as Uniswap's OracleLibrary does. A pool whose oracle does
     * not reach a window back (one observation, as Uniswap creates pools, and a trade within the window) has no mean:
     * its price now, and why.
     */
    async ownAverage(client, pool, window) {
      // One call (a deployless multicall), so that the price and the oracle come from one state, not from both sides
      // of a block mined between two reads of `latest`.
      const at = { address: pool, abi: uniswapV3PoolAbi } as const;
      const [slot0Read, observedRead] = await multicall(client, {
        contracts: [
          { ...at, functionName: 'slot0' },
          { ...at, functionName: 'observe', args: [[window, 0]] },
        ],
        deployless: true,
        blockTag: 'latest',
      });
      if (slot0Read.status === 'failure') throw slot0Read.error;
      const [sqrtPriceX96, , , cardinality] = slot0Read.result;
      if (sqrtPriceX96 === 0n) throw new NoAverageError(`pool ${pool} has no price (not initialized)`);
      const spot0 = spotOf(pool, sqrtPriceX96);
      if (observedRead.status === 'failure') {
        if (!isContractRevert(observedRead.error)) throw observedRead.error;
        const observations = `${cardinality} observation${cardinality === 1 ? '' : 's'}`;
        return { pool, spot0, short: `pool ${pool}'s own oracle does not reach ${window} s back (it keeps ${observations}, none older than that)` };
      }
      const [[then, now]] = observedRead.result;
      const elapsed = BigInt(window);
      const delta = (now as bigint) - (then as bigint);
      const meanTick = Number(delta / elapsed - (delta < 0n && delta % elapsed !== 0n ? 1n : 0n));
      const average0 = spotOf(pool, sqrtRatioAtTick(meanTick));
      return { pool, spot0, spot1: (Q112 * Q112) / spot0, average0, average1: (Q112 * Q112) / average0, spanSeconds: elapsed };
    },
    async spotAt(client, pool, blockNumber) {
      const [sqrtPriceX96] = await client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'slot0', blockNumber });
      if (sqrtPriceX96 === 0n) throw new NoAverageError(`pool ${pool} had no price at block ${blockNumber} (not initialized)`);
      return spotOf(pool, sqrtPriceX96);
    },
  },
  /** A V2 pair has no tickSpacing(): only a V3 pool answers it. */
  recognises: (client, pool) => answers(client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'tickSpacing' })),
};
