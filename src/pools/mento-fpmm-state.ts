/**
 * Reading Mento v3's fixed-price pools from the chain: which pools a factory deployed, with what never changes for
 * one (its tokens and their decimals, its rate feed and whether it is inverted, the oracle adapter's SortedOracles
 * and BreakerBox), and the state a swap in the next block depends on (reserves, fees, trading limits, the feed's
 * median, its time and expiry, the trading mode), every pool in one call a block.
 */
import { type Address, type PublicClient, getAddress } from 'viem';
import { mentoBreakerBoxAbi, mentoFpmmAbi, mentoFpmmFactoryAbi, mentoOracleAdapterAbi, sortedOraclesAbi } from '../contracts/abi.ts';
import { readAll, readEach, resultsOrWhy } from './batch-read.ts';
import type { CallAnswer, Unreadable } from './kind.ts';
import type { FpmmLimit, FpmmState } from './mento-fpmm-math.ts';

/** A pool as its factory lists it, with what never changes for it. */
export type FpmmPool = {
  factory: Address;
  pool: Address;
  token0: Address;
  token1: Address;
  decimals0: bigint;
  decimals1: bigint;
  rateFeed: Address;
  invertRateFeed: boolean;
  sortedOracles: Address;
  breakerBox: Address;
  protocolFeeRecipient: Address;
  /** Its fees when found (basis points), for people: quotes use each block's (governance may change them). */
  lpFee: bigint;
  protocolFee: bigint;
};

/** The factory's pools at a block, in three calls: the list, each pool's immutables, each adapter's oracle and breaker box. */
export async function discoverFpmmPools(client: PublicClient, factory: Address, blockNumber: bigint | 'latest'): Promise<FpmmPool[]> {
  const [pools] = (await readAll(client, [{ address: factory, abi: mentoFpmmFactoryAbi, functionName: 'deployedFPMMAddresses' }], blockNumber)) as [Address[]];
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
  const reads = await readAll(
    client,
    pools.flatMap((pool) => names.map((functionName) => ({ address: pool, abi: mentoFpmmAbi, functionName }))),
    blockNumber,
  );
  const adapters = pools.map((_, i) => reads[i * names.length + 6] as Address);
  const oracles = await readAll(
    client,
    adapters.flatMap((adapter) => [
      { address: adapter, abi: mentoOracleAdapterAbi, functionName: 'sortedOracles' },
      { address: adapter, abi: mentoOracleAdapterAbi, functionName: 'breakerBox' },
    ]),
    blockNumber,
  );
  return pools.map((pool, i) => {
    const [token0, token1, decimals0, decimals1, rateFeed, invertRateFeed, , protocolFeeRecipient, lpFee, protocolFee] = reads.slice(
      i * names.length,
      (i + 1) * names.length,
    ) as [Address, Address, bigint, bigint, Address, boolean, Address, Address, bigint, bigint];
    return {
      factory: getAddress(factory),
      pool: getAddress(pool),
      token0: getAddress(token0),
      token1: getAddress(token1),
      decimals0,
      decimals1,
      rateFeed: getAddress(rateFeed),
      invertRateFeed,
      sortedOracles: getAddress(oracles[i * 2] as Address),
      breakerBox: getAddress(oracles[i * 2 + 1] as Address),
      protocolFeeRecipient: getAddress(protocolFeeRecipient),
      lpFee,
      protocolFee,
    };
  });
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

/** The calls that read one pool's state: the same list, in the same order, that `fpmmStatesFrom` reads back. */
function stateCalls(pool: FpmmPool): unknown[] {
  const at = { address: pool.pool, abi: mentoFpmmAbi } as const;
  const oracle = { address: pool.sortedOracles, abi: sortedOraclesAbi } as const;
  const feed = [pool.rateFeed] as const;
  return [
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
    const results = resultsOrWhy(calls, answers.slice(i * calls.length, (i + 1) * calls.length));
    return 'unreadable' in results ? results : stateFrom(pool, results);
  });
}

function stateFrom(pool: FpmmPool, answers: readonly unknown[]): FpmmState {
  const [[reserve0, reserve1], lpFee, protocolFee, limit0, limit1, [rateNumerator, rateDenominator], medianTimestamp, reportExpiry, tradingMode] = answers as [
    readonly [bigint, bigint, bigint],
    bigint,
    bigint,
    LimitRead,
    LimitRead,
    readonly [bigint, bigint],
    bigint,
    bigint,
    number,
  ];
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
    limit0: limitOf(limit0),
    limit1: limitOf(limit1),
  };
}
