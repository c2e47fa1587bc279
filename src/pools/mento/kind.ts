/**
 * Mento v2's exchanges as a pool kind (kind.ts). Its "factory" is a Broker: the exchanges are those its exchange
 * providers list (a BiPoolManager's `getExchanges`). An exchange is no contract of its own: the index keys it by an
 * address derived from its provider and id (`mentoExchangeKey`), which nothing ever calls. Its state moves with the
 * clock (bucket resets), the oracle, the BreakerBox and the Reserve's balances, none of which the exchange logs, so
 * every exchange is read afresh at each block, all in one call (`readEveryBlock`), and priced for a swap in the
 * block after it (math.ts), trading limits, the breaker and the Reserve included: a swap the Broker would
 * refuse is quoted as nothing. Adapters (Swappa's PairMentoV2) read `extras` as broker (20) ‖ provider (20) ‖
 * exchange id (32).
 */
import { type Address, type Hex, concatHex, getAddress, keccak256, size, sliceHex, zeroAddress } from 'viem';
import { getBlock } from 'viem/actions';
import { mentoExchangeProviderAbi } from '../../contracts/abi.ts';
import type { CachedPool, FactorySource, IndexedPool, PoolKind, Unreadable } from '../kind.ts';
import { fromCacheJson, toCacheJson } from '../cache-json.ts';
import { FIXED1, type MentoExchangeState, bucketsAt, hasValidMedian, mentoSwap } from './math.ts';
import { type MentoExchange, discoverMentoExchanges, mentoStateCalls, mentoStatesFrom, readMentoStates } from './state.ts';

/** An exchange's state as the index keeps it, and the time of the block a swap priced on it lands in. */
export type MentoState = { exchange: MentoExchangeState; landsAt: bigint };

/** The index's key of an exchange (it has no address of its own): from its provider and id, never called. */
export function mentoExchangeKey(provider: Address, exchangeId: Hex): Address {
  return getAddress(`0x${keccak256(concatHex([provider, exchangeId])).slice(-40)}`);
}

/** What a hop through a Mento adapter names: the Broker, the exchange provider and the exchange. */
export type MentoHop = { broker: Address; provider: Address; exchangeId: Hex };

export function readMentoExtras(extras: Hex): MentoHop | string {
  if (size(extras) !== 72) return `is ${size(extras)} bytes, not a Mento exchange (broker 20, provider 20, exchange id 32)`;
  return { broker: getAddress(sliceHex(extras, 0, 20)), provider: getAddress(sliceHex(extras, 20, 40)), exchangeId: sliceHex(extras, 40, 72) };
}

function poolOf(factory: FactorySource, exchange: MentoExchange): IndexedPool {
  return {
    address: mentoExchangeKey(exchange.provider, exchange.exchangeId),
    token0: exchange.asset0,
    token1: exchange.asset1,
    // Its spread when found, for people: quotes use each block's (governance may change it).
    feeBps: Number((exchange.spread * 10_000n) / FIXED1),
    kind: mentoV2,
    mento: exchange,
    protocol: factory.protocol,
    adapter: factory.adapter,
    factory: factory.address,
    index: -1,
  };
}

const providersOf = (factory: FactorySource): readonly Address[] => (factory.kind === 'mento-v2' ? factory.exchangeProviders : []);

/** A swap on Celo lands in the block after the one read (blocks are a second apart). */
const landingAfter = (timestamp: bigint) => timestamp + 1n;

const exchangeOf = (pool: { mento?: MentoExchange; address: Address }): MentoExchange => {
  if (!pool.mento) throw new Error(`pool ${pool.address} is not a Mento exchange`);
  return pool.mento;
};

export const mentoV2: PoolKind<MentoState> = {
  id: 'mento-v2',
  name: 'Mento',
  lpPositions: false,
  adapterName: () => 'Mento v2, extras: broker (20), exchange provider (20), exchange id (32)',
  extras: (_adapter, pool): Hex => {
    const exchange = exchangeOf(pool);
    return concatHex([exchange.broker, exchange.provider, exchange.exchangeId]).toLowerCase() as Hex;
  },

  // Nothing an exchange logs says all that moves it: it is read every block instead. Its provider logs its creation
  // and destruction, which change which exchanges there are.
  events: mentoExchangeProviderAbi.filter((item) => item.type === 'event'),
  async discover(client, factory, _known, head) {
    const exchanges = await discoverMentoExchanges(client, factory.address, providersOf(factory), head.number);
    return { pools: exchanges.map((exchange) => poolOf(factory, exchange)), progress: head.number };
  },
  progressAfter: (progress) => progress,
  /**
   * A state read at a past block is priced as of that block, as its views answer there (`doctor` compares them); an
   * exchange whose views revert there throws, saying which.
   */
  async readState(client, pool, blockNumber) {
    const [block, [state]] = await Promise.all([getBlock(client, { blockNumber }), readMentoStates(client, [exchangeOf(pool)], blockNumber)]);
    if (state && 'unreadable' in state) throw new Error(`Mento exchange ${exchangeOf(pool).exchangeId}: ${state.unreadable}`);
    return state && { exchange: state, landsAt: block.timestamp };
  },
  readEveryBlock: {
    calls: (pools) => mentoStateCalls(pools.map(exchangeOf)),
    states(pools, answers, head) {
      const states = mentoStatesFrom(pools.map(exchangeOf), answers);
      return new Map(
        pools.map((pool, i) => {
          const state = states[i] as MentoExchangeState | Unreadable;
          return [pool.address.toLowerCase(), 'unreadable' in state ? state : { exchange: state, landsAt: landingAfter(head.timestamp) }];
        }),
      );
    },
  },
  // An exchange's provider (a BiPoolManager) announces what it creates and destroys, not the Broker.
  logSources: (factory) => providersOf(factory),
  follow(log, draft) {
    const factory = draft.factory(log.address);
    if (factory?.kind !== 'mento-v2') return false;
    const { exchangeId } = log.args as { exchangeId?: Hex };
    if (log.eventName === 'ExchangeDestroyed' && exchangeId) {
      // Gone at once: never quoted at its last state, even before the Broker's lists are read again.
      const gone = mentoExchangeKey(getAddress(log.address), exchangeId).toLowerCase();
      draft.pools.delete(gone);
      draft.states.delete(gone);
      return true;
    }
    if (log.eventName === 'ExchangeCreated') {
      // What never changes for it (decimals, collateral, pricing) is read by discovery, in the same block.
      draft.rediscover.add(factory.address.toLowerCase());
      return true;
    }
    return false;
  },
  needsRead: () => false,
  toCache: (pool, state): CachedPool => ({
    kind: 'mento-v2',
    address: pool.address,
    token0: pool.token0,
    token1: pool.token1,
    factory: pool.factory,
    index: pool.index,
    mento: toCacheJson(exchangeOf(pool)),
    state: toCacheJson(state),
  }),
  fromCache(entry, factory) {
    return { pool: poolOf(factory, fromCacheJson<MentoExchange>(entry.mento)), state: fromCacheJson<MentoState>(entry.state) };
  },

  // Without a valid median the exchange is no price (a constant-product one would still trade, at buckets the oracle
  // no longer vouches for): not routed.
  routable(state, minReserve) {
    const buckets = state.exchange.tradingMode === 0 && hasValidMedian(state.exchange, state.landsAt) ? bucketsAt(state.exchange, state.landsAt) : undefined;
    return buckets !== undefined && buckets.bucket0 / state.exchange.multiplier0 >= minReserve && buckets.bucket1 / state.exchange.multiplier1 >= minReserve;
  },
  quote(state, _pool, inIs0, amountIn) {
    if (!hasValidMedian(state.exchange, state.landsAt)) return 0n;
    const swapped = mentoSwap(state.exchange, inIs0, amountIn, state.landsAt);
    return 'amountOut' in swapped ? swapped.amountOut : 0n;
  },
  swap(state, _pool, inIs0, amountIn) {
    const swapped = mentoSwap(state.exchange, inIs0, amountIn, state.landsAt);
    return 'amountOut' in swapped ? { amountOut: swapped.amountOut, state: { ...state, exchange: swapped.state } } : undefined;
  },
  midPrice(state, inIs0) {
    const buckets = bucketsAt(state.exchange, state.landsAt);
    if (!buckets) return { numerator: 0n, denominator: 1n };
    const { multiplier0, multiplier1 } = state.exchange;
    // Raw out per raw in: the buckets are in 18-decimal units.
    return inIs0
      ? { numerator: buckets.bucket1 * multiplier0, denominator: buckets.bucket0 * multiplier1 }
      : { numerator: buckets.bucket0 * multiplier1, denominator: buckets.bucket1 * multiplier0 };
  },
  depthOf: (state, inIs0) => (inIs0 ? state.exchange.bucket0 / state.exchange.multiplier0 : state.exchange.bucket1 / state.exchange.multiplier1),
  async samplePools(client, factory, _tokens, blockNumber, max) {
    const exchanges = await discoverMentoExchanges(client, factory.address, providersOf(factory), blockNumber);
    return exchanges.slice(0, max).map((exchange) => poolOf(factory, exchange));
  },

  provenBy: "its Broker's exchange providers, which list it",
  // An exchange is no contract made by CREATE2: it is proven by its provider's list (src/pools/mento/hop.ts).
  createdAt: () => zeroAddress,
  readExtras(extras) {
    const hop = readMentoExtras(extras);
    return typeof hop === 'string' ? hop : { pool: mentoExchangeKey(hop.provider, hop.exchangeId) };
  },
  madeBy: async () => undefined,
  highestFeePpm: () => 0,
  steadyPrice: { notAPool: "a Mento exchange prices at its rate feed's median less its spread, not at a pool's history" },
  recognises: async () => false,
};
