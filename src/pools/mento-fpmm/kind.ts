/**
 * Mento v3's fixed-price pools as a pool kind (kind.ts). Its factory (`FPMMFactory`) lists its pools; a pool pays its
 * rate feed's median (through Mento's OracleAdapter) less its fees, out of its reserves, while the FX market is open,
 * the BreakerBox lets the feed trade and the median is fresh (math.ts). The clock and the oracle move it
 * as much as its swaps do, so every pool is read afresh at each block, with Mento v2's exchanges in the same request
 * (`readEveryBlock`), and priced for a swap in the block after it: a swap the pool would refuse (market closed,
 * halted, stale, past a trading limit) is quoted as nothing. No adapter is published for these pools: ours
 * (`PairMentoFPMM`, deployed by `routekeeper deploy-adapter mento-fpmm`) reads `extras` as the pool (20).
 */
import { type Address, type Hex, getAddress, size, zeroAddress } from 'viem';
import { getBlock } from 'viem/actions';
import { PairMentoFPMM } from '../../contracts/solidity-code.ts';
import { fromCacheJson, toCacheJson } from '../cache-json.ts';
import { mentoFpmmFactoryAbi } from '../../contracts/abi.ts';
import type { CachedPool, FactorySource, IndexedPool, PoolKind, Unreadable } from '../kind.ts';
import { type FpmmState, fpmmRate, fpmmSwap } from './math.ts';
import { type FpmmPool, discoverFpmmPools, fpmmStateCalls, fpmmStatesFrom, readFpmmStates } from './state.ts';

/** A pool's state as the index keeps it, and the time of the block a swap priced on it lands in. */
export type FpmmIndexState = { pool: FpmmState; landsAt: bigint };

function poolOf(factory: FactorySource, pool: FpmmPool): IndexedPool {
  return {
    address: pool.pool,
    token0: pool.token0,
    token1: pool.token1,
    // Its fees when found, for people: quotes use each block's.
    feeBps: Number(pool.lpFee + pool.protocolFee),
    kind: mentoFpmm,
    fpmm: pool,
    protocol: factory.protocol,
    adapter: factory.adapter,
    factory: factory.address,
    index: -1,
  };
}

const fpmmOf = (pool: { fpmm?: FpmmPool; address: Address }): FpmmPool => {
  if (!pool.fpmm) throw new Error(`pool ${pool.address} is not a Mento fixed-price pool`);
  return pool.fpmm;
};

/** A swap on Celo lands in the block after the one read (blocks are a second apart). */
const landingAfter = (timestamp: bigint) => timestamp + 1n;

export const mentoFpmm: PoolKind<FpmmIndexState> = {
  id: 'mento-fpmm',
  name: 'Mento v3',
  lpPositions: false,
  ownAdapterCode: PairMentoFPMM.runtimeCode,
  adapterName: () => 'Mento v3 fixed-price pool, extras: the pool (20)',
  extras: (_adapter, pool): Hex => fpmmOf(pool).pool.toLowerCase() as Hex,

  // Nothing a pool logs says all that moves it (the clock, the oracle, the breaker): it is read every block instead.
  // Its factory logs each pool it deploys.
  events: mentoFpmmFactoryAbi.filter((item) => item.type === 'event'),
  async discover(client, factory, _known, head) {
    const pools = await discoverFpmmPools(client, factory.address, head.number);
    return { pools: pools.map((pool) => poolOf(factory, pool)), progress: head.number };
  },
  progressAfter: (progress) => progress,
  /**
   * A state read at a past block is priced as of that block, as its views answer there (`doctor` compares them); a
   * pool whose views revert there throws, saying which.
   */
  async readState(client, pool, blockNumber) {
    const [block, [state]] = await Promise.all([getBlock(client, { blockNumber }), readFpmmStates(client, [fpmmOf(pool)], blockNumber)]);
    if (state && 'unreadable' in state) throw new Error(`Mento v3 pool ${pool.address}: ${state.unreadable}`);
    return state && { pool: state, landsAt: block.timestamp };
  },
  readEveryBlock: {
    calls: (pools) => fpmmStateCalls(pools.map(fpmmOf)),
    states(pools, answers, head) {
      const states = fpmmStatesFrom(pools.map(fpmmOf), answers);
      return new Map(
        pools.map((pool, i) => {
          const state = states[i] as FpmmState | Unreadable;
          return [pool.address.toLowerCase(), 'unreadable' in state ? state : { pool: state, landsAt: landingAfter(head.timestamp) }];
        }),
      );
    },
  },
  follow(log, draft) {
    const factory = draft.factory(log.address);
    if (factory?.kind !== 'mento-fpmm' || log.eventName !== 'FPMMDeployed') return false;
    // A new pool's immutables and oracle adapter are read by discovery, in the same block.
    draft.rediscover.add(factory.address.toLowerCase());
    return true;
  },
  needsRead: () => false,
  toCache: (pool, state): CachedPool => ({
    kind: 'mento-fpmm',
    address: pool.address,
    token0: pool.token0,
    token1: pool.token1,
    factory: pool.factory,
    index: pool.index,
    fpmm: toCacheJson(fpmmOf(pool)),
    state: toCacheJson(state),
  }),
  fromCache(entry, factory) {
    return { pool: poolOf(factory, fromCacheJson<FpmmPool>(entry.fpmm)), state: fromCacheJson<FpmmIndexState>(entry.state) };
  },

  // Closed (the FX market's hours, the breaker) or without a fresh median, the pool is no price and is not routed.
  routable(state, minReserve) {
    return !('kind' in fpmmRate(state.pool, state.landsAt)) && state.pool.reserve0 >= minReserve && state.pool.reserve1 >= minReserve;
  },
  quote(state, _pool, inIs0, amountIn) {
    const swapped = fpmmSwap(state.pool, inIs0, amountIn, state.landsAt);
    return 'amountOut' in swapped ? swapped.amountOut : 0n;
  },
  swap(state, _pool, inIs0, amountIn) {
    const swapped = fpmmSwap(state.pool, inIs0, amountIn, state.landsAt);
    return 'amountOut' in swapped ? { amountOut: swapped.amountOut, state: { ...state, pool: swapped.state } } : undefined;
  },
  midPrice(state, inIs0) {
    const rate = fpmmRate(state.pool, state.landsAt);
    if ('kind' in rate) return { numerator: 0n, denominator: 1n };
    const { decimals0, decimals1 } = state.pool;
    // The rate is token1 per token0 in whole tokens; raw out per raw in scales it by the decimals.
    return inIs0
      ? { numerator: rate.numerator * decimals1, denominator: rate.denominator * decimals0 }
      : { numerator: rate.denominator * decimals0, denominator: rate.numerator * decimals1 };
  },
  async samplePools(client, factory, _tokens, blockNumber, max) {
    const pools = await discoverFpmmPools(client, factory.address, blockNumber);
    return pools.slice(0, max).map((pool) => poolOf(factory, pool));
  },

  provenBy: "its factory's list of the pools it deployed",
  // Proven by the factory's list (src/pools/mento-fpmm/hop.ts), not by an address computed from creation code.
  createdAt: () => zeroAddress,
  readExtras(extras) {
    return size(extras) === 20 ? { pool: getAddress(extras) } : `is ${size(extras)} bytes, not a Mento v3 pool (20)`;
  },
  madeBy: async () => undefined,
  highestFeePpm: () => 0,
  steadyPrice: { notAPool: "a Mento fixed-price pool prices at its rate feed's median less its fees, not at a pool's history" },
  recognises: async () => false,
};
