/**
 * Reading Mento v3's fixed-price pools from the chain: which pools a factory deployed, with what was read of each
 * once (its tokens and their decimals, never changing; its oracle adapter, rate feed and inversion, and the adapter's
 * SortedOracles, BreakerBox and market-hours breaker, which their owners may change), and the state a swap in the next
 * block depends on (reserves, fees, trading limits, the feed's median, its time and expiry, the trading mode, whether
 * the breaker keeps the FX market's hours), every pool in one call a block. The same call reads the settings read
 * once: a pool whose settings moved is not priced at the old ones, but read again (`rediscover`).
 */
import { type Address, type PublicClient, getAddress, isAddressEqual, zeroAddress } from 'viem';
import {
  mentoBreakerBoxAbi,
  mentoFpmmAbi,
  mentoFpmmFactoryAbi,
  mentoMarketHoursBreakerAbi,
  mentoOracleAdapterAbi,
  sortedOraclesAbi,
} from '../../contracts/abi.ts';
import { type CallAnswer, type Unreadable, readAll, readEach, resultsOrWhy } from '../batch-read.ts';
import type { FpmmLimit, FpmmState } from './math.ts';

/** A pool as its factory lists it, with what was read of it once (its settings; the every-block read says when they move). */
export type FpmmPool = {
  factory: Address;
  pool: Address;
  token0: Address;
  token1: Address;
  decimals0: bigint;
  decimals1: bigint;
  rateFeed: Address;
  invertRateFeed: boolean;
  /** The pool's oracle adapter, and the adapter's market-hours breaker, oracle and BreakerBox, as read when found. */
  oracleAdapter: Address;
  marketHoursBreaker: Address;
  sortedOracles: Address;
  breakerBox: Address;
  protocolFeeRecipient: Address;
  /** Its fees when found (basis points), for people: quotes use each block's (governance may change them). */
  lpFee: bigint;
  protocolFee: bigint;
};

/**
 * The factory's pools at a block, in three calls: the list, each pool's settings, each adapter's oracle, BreakerBox and
 * market-hours breaker. A pool one of whose views reverts (paused, upgraded to another interface, set an adapter that
 * reverts) is kept with what could be read, the rest empty: the every-block read leaves it unroutable with the reason,
 * and reads the factory's pools again once its own settings answer otherwise; its factory's other pools are found as
 * usual.
 */
export async function discoverFpmmPools(client: PublicClient, factory: Address, blockNumber: bigint | 'latest'): Promise<FpmmPool[]> {
  const [listed] = (await readAll(client, [{ address: factory, abi: mentoFpmmFactoryAbi, functionName: 'deployedFPMMAddresses' }], blockNumber)) as [Address[]];
  const names = [
    'token0',
    'token1',
    'decimals0',
    'decimals1',
    'referenceRateFeedID',
    'invertRateFeed',
    'oracleAdapter',
    'protocolFeeRecipient',
    'lpFee',
    'protocolFee',
  ] as const;
  const settingsCalls = (pool: Address) => names.map((functionName) => ({ address: pool, abi: mentoFpmmAbi, functionName }));
  const settingsAnswers = await readEach(client, listed.flatMap(settingsCalls), blockNumber);
  const settled = listed.map((pool, i) => {
    const results = resultsOrWhy(settingsCalls(pool), settingsAnswers.slice(i * names.length, (i + 1) * names.length));
    return { pool, settings: 'unreadable' in results ? undefined : results };
  });
  const adapterCalls = (adapter: Address) =>
    (['sortedOracles', 'breakerBox', 'marketHoursBreaker'] as const).map((functionName) => ({ address: adapter, abi: mentoOracleAdapterAbi, functionName }));
  const readable = settled.flatMap(({ settings }) => (settings ? [settings[6] as Address] : []));
  const adapterAnswers = await readEach(client, readable.flatMap(adapterCalls), blockNumber);
  let adapterIndex = 0;
  return settled.map(({ pool, settings }) => {
    if (!settings) return unreadPool(factory, pool);
    const adapter = settings[6] as Address;
    const oracles = resultsOrWhy(adapterCalls(adapter), adapterAnswers.slice(adapterIndex * 3, (adapterIndex + 1) * 3));
    adapterIndex++;
    const [token0, token1, decimals0, decimals1, rateFeed, invertRateFeed, oracleAdapter, protocolFeeRecipient, lpFee, protocolFee] = settings as [
      Address,
      Address,
      bigint,
      bigint,
      Address,
      boolean,
      Address,
      Address,
      bigint,
      bigint,
    ];
    const [sortedOracles, breakerBox, marketHoursBreaker] =
      'unreadable' in oracles ? [zeroAddress, zeroAddress, zeroAddress] : (oracles as [Address, Address, Address]);
    return {
      factory: getAddress(factory),
      pool: getAddress(pool),
      token0: getAddress(token0),
      token1: getAddress(token1),
      decimals0,
      decimals1,
      rateFeed: getAddress(rateFeed),
      invertRateFeed,
      oracleAdapter: getAddress(oracleAdapter),
      sortedOracles: getAddress(sortedOracles),
      breakerBox: getAddress(breakerBox),
      marketHoursBreaker: getAddress(marketHoursBreaker),
      protocolFeeRecipient: getAddress(protocolFeeRecipient),
      lpFee,
      protocolFee,
    };
  });
}

/**
 * A listed pool whose own views revert (paused, or upgraded to another interface): kept with no settings, so that the
 * every-block read leaves it unroutable, with the reason, and reads the factory's pools again once it answers.
 */
function unreadPool(factory: Address, pool: Address): FpmmPool {
  return {
    factory: getAddress(factory),
    pool: getAddress(pool),
    token0: zeroAddress,
    token1: zeroAddress,
    decimals0: 1n,
    decimals1: 1n,
    rateFeed: zeroAddress,
    invertRateFeed: false,
    oracleAdapter: zeroAddress,
    sortedOracles: zeroAddress,
    breakerBox: zeroAddress,
    marketHoursBreaker: zeroAddress,
    protocolFeeRecipient: zeroAddress,
    lpFee: 0n,
    protocolFee: 0n,
  };
}

type LimitRead = readonly [
  { limit0: bigint; limit1: bigint; decimals: number },
  { lastUpdated0: number; lastUpdated1: number; netflow0: bigint; netflow1: bigint },
];

const limitOf = ([config, state]: LimitRead): FpmmLimit | undefined =>
  config.limit0 === 0n && config.limit1 === 0n
    ? undefined
    : {
        limit0: config.limit0,
        limit1: config.limit1,
        decimals: config.decimals,
        lastUpdated0: BigInt(state.lastUpdated0),
        lastUpdated1: BigInt(state.lastUpdated1),
        netflow0: state.netflow0,
        netflow1: state.netflow1,
      };

/** Every pool's state at a block (or the latest), in one call; a pool one of whose views reverts is `Unreadable`, alone. */
export async function readFpmmStates(client: PublicClient, pools: readonly FpmmPool[], at: bigint | 'latest'): Promise<(FpmmState | Unreadable)[]> {
  if (pools.length === 0) return [];
  return fpmmStatesFrom(pools, await readEach(client, fpmmStateCalls(pools), at));
}

/**
 * A time the FX market is closed (Saturday 2026-01-03, noon UTC): a breaker that says it is open then has its checks
 * off (a toggleable one, as Celo's USD pools' adapter has), and the pool trades at any hour; one that says closed keeps
 * the FX market's hours, which the model computes for the block a swap lands in.
 */
const FX_MARKET_CLOSED_AT = 1_767_441_600n;

/** The calls that read one pool's state: the same list, in the same order, that `fpmmStatesFrom` reads back. */
function stateCalls(pool: FpmmPool): unknown[] {
  const at = { address: pool.pool, abi: mentoFpmmAbi } as const;
  const oracle = { address: pool.sortedOracles, abi: sortedOraclesAbi } as const;
  const adapter = { address: pool.oracleAdapter, abi: mentoOracleAdapterAbi } as const;
  const feed = [pool.rateFeed] as const;
  return [
    // The settings read once, as they are now: the oracle calls below are made with those.
    { ...at, functionName: 'oracleAdapter' },
    { ...at, functionName: 'referenceRateFeedID' },
    { ...at, functionName: 'invertRateFeed' },
    { ...adapter, functionName: 'sortedOracles' },
    { ...adapter, functionName: 'breakerBox' },
    { ...adapter, functionName: 'marketHoursBreaker' },
    { address: pool.marketHoursBreaker, abi: mentoMarketHoursBreakerAbi, functionName: 'isFXMarketOpen', args: [FX_MARKET_CLOSED_AT] },
    { ...at, functionName: 'getReserves' },
    { ...at, functionName: 'lpFee' },
    { ...at, functionName: 'protocolFee' },
    { ...at, functionName: 'getTradingLimits', args: [pool.token0] },
    { ...at, functionName: 'getTradingLimits', args: [pool.token1] },
    { ...oracle, functionName: 'medianRate', args: feed },
    { ...oracle, functionName: 'medianTimestamp', args: feed },
    { ...oracle, functionName: 'getTokenReportExpirySeconds', args: feed },
    { address: pool.breakerBox, abi: mentoBreakerBoxAbi, functionName: 'getRateFeedTradingMode', args: feed },
  ];
}

/** The calls that read these pools' states, for a multicall of its own or one shared with other kinds. */
export const fpmmStateCalls = (pools: readonly FpmmPool[]): unknown[] => pools.flatMap(stateCalls);

/** The pools' states from the answers to `fpmmStateCalls`, in its order; a pool whose read failed says which call. */
export function fpmmStatesFrom(pools: readonly FpmmPool[], answers: readonly CallAnswer[]): (FpmmState | Unreadable)[] {
  return pools.map((pool, i) => {
    const calls = stateCalls(pool);
    const own = answers.slice(i * calls.length, (i + 1) * calls.length);
    const results = resultsOrWhy(calls, own);
    if (!('unreadable' in results)) return stateFrom(pool, results);
    // A call failed; the pool's own settings may have moved, and the calls made with the old ones (its old adapter's)
    // then say nothing: read again rather than left unroutable.
    const ownSettings = own.slice(0, POOL_SETTINGS);
    const ownMoved = ownSettings.every((answer) => answer.status === 'success')
      ? settingsMoved(
          pool,
          ownSettings.map((answer) => (answer as { result: unknown }).result),
        )
      : undefined;
    return ownMoved ? movedState(pool, ownMoved) : results;
  });
}

const movedState = (pool: FpmmPool, moved: string): Unreadable => ({
  unreadable: `Mento v3 pool ${pool.pool}'s settings moved since they were read (${moved}): read again`,
  rediscover: true,
});

/** What moved of the settings read once, in words (as many as `answers` has, in `stateCalls`' order); nothing when all are as read. */
function settingsMoved(pool: FpmmPool, answers: readonly unknown[]): string | undefined {
  const [adapter, rateFeed, invert, sortedOracles, breakerBox, breaker] = answers;
  const differs = (answer: unknown, known: Address) => answer !== undefined && !isAddressEqual(answer as Address, known);
  const moved = [
    differs(adapter, pool.oracleAdapter) && `its oracle adapter is ${adapter as Address}, not ${pool.oracleAdapter}`,
    differs(rateFeed, pool.rateFeed) && `its rate feed is ${rateFeed as Address}, not ${pool.rateFeed}`,
    invert !== undefined && invert !== pool.invertRateFeed && `its rate feed is ${invert ? '' : 'no longer '}inverted`,
    differs(sortedOracles, pool.sortedOracles) && `its adapter's oracle is ${sortedOracles as Address}, not ${pool.sortedOracles}`,
    differs(breakerBox, pool.breakerBox) && `its adapter's BreakerBox is ${breakerBox as Address}, not ${pool.breakerBox}`,
    differs(breaker, pool.marketHoursBreaker) && `its adapter's market-hours breaker is ${breaker as Address}, not ${pool.marketHoursBreaker}`,
  ].filter((entry): entry is string => typeof entry === 'string');
  return moved.length > 0 ? moved.join('; ') : undefined;
}

/** The pool's own settings (its adapter, feed and inversion) take the first 3 answers. */
const POOL_SETTINGS = 3;

/** The settings a pool's state is read with take 6 answers, then whether its breaker keeps the FX market's hours. */
const SETTINGS = 6;

function stateFrom(pool: FpmmPool, answers: readonly unknown[]): FpmmState | Unreadable {
  const moved = settingsMoved(pool, answers.slice(0, SETTINGS));
  if (moved) return movedState(pool, moved);
  const openWhenClosed = answers[SETTINGS] as boolean;
  const [[reserve0, reserve1], lpFee, protocolFee, limit0, limit1, [rateNumerator, rateDenominator], medianTimestamp, reportExpiry, tradingMode] =
    answers.slice(SETTINGS + 1) as [readonly [bigint, bigint, bigint], bigint, bigint, LimitRead, LimitRead, readonly [bigint, bigint], bigint, bigint, number];
  return {
    decimals0: pool.decimals0,
    decimals1: pool.decimals1,
    reserve0,
    reserve1,
    lpFee,
    protocolFee,
    rateNumerator,
    rateDenominator,
    medianTimestamp,
    reportExpiry,
    tradingMode: Number(tradingMode),
    invertRateFeed: pool.invertRateFeed,
    marketHoursChecked: !openWhenClosed,
    limit0: limitOf(limit0),
    limit1: limitOf(limit1),
  };
}
