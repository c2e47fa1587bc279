/**
 * Reading Mento v2's exchanges from the chain: which exchanges a Broker's providers list, with what never changes
 * for one (its assets, their decimals, which of them the Reserve pays out as collateral, its pricing module and rate
 * feed), and the state a swap at the next block depends on (the buckets, the oracle's median and reports, the
 * BreakerBox's trading mode, both tokens' trading limits, the Reserve's collateral). The state moves with the clock
 * and with contracts other than the exchange (the oracle, the Reserve's balances), so it is read afresh each block:
 * every exchange in one call.
 */
import { type Address, type Hex, type PublicClient, erc20Abi, getAddress, isAddressEqual, keccak256, pad, toHex, zeroAddress } from 'viem';
import { mentoBreakerBoxAbi, mentoBrokerAbi, mentoExchangeProviderAbi, mentoReserveAbi, sortedOraclesAbi } from '../../contracts/abi.ts';
import { type CallAnswer, type Unreadable, readAll, readEach, resultsOrWhy } from '../batch-read.ts';
import type { MentoExchangeState, MentoPricing, TradingLimit } from './math.ts';

/** An exchange as found through its Broker, with what never changes for it. */
export type MentoExchange = {
  broker: Address;
  provider: Address;
  exchangeId: Hex;
  asset0: Address;
  asset1: Address;
  pricing: MentoPricing;
  rateFeed: Address;
  sortedOracles: Address;
  breakerBox: Address;
  reserve: Address;
  decimals0: number;
  decimals1: number;
  multiplier0: bigint;
  multiplier1: bigint;
  /** Whether the Reserve pays the asset out of its balance (collateral) rather than the Broker minting it (a stable). */
  collateral0: boolean;
  collateral1: boolean;
  /** The spread (Fixidity) when the exchange was found; governance may change it: each block's state has the current one. */
  spread: bigint;
};

const pricingIds: Record<MentoPricing, Hex> = {
  ConstantProduct: keccak256(toHex('ConstantProduct')),
  ConstantSum: keccak256(toHex('ConstantSum')),
};

/** The Broker's key of a token's trading limit on an exchange: `exchangeId ^ bytes32(token)`. */
export function tradingLimitId(exchangeId: Hex, token: Address): Hex {
  return pad(toHex(BigInt(exchangeId) ^ BigInt(token)), { size: 32 });
}

/**
 * Every exchange of the Broker's providers among `allowed` (a Broker also serves providers of other kinds, such as
 * GoodDollar's) at a block, in four calls: the providers and the Reserve; each provider's exchanges, oracle, breaker
 * box and pricing modules; each exchange's configuration; its decimals and collateral. An exchange whose pricing
 * module is neither of Mento's two is left out (nothing here can price it).
 */
export async function discoverMentoExchanges(
  client: PublicClient,
  broker: Address,
  allowed: readonly Address[],
  at: bigint | 'latest',
): Promise<MentoExchange[]> {
  const [listed, reserveAnswer] = await readEach(
    client,
    [
      { address: broker, abi: mentoBrokerAbi, functionName: 'getExchangeProviders' },
      { address: broker, abi: mentoBrokerAbi, functionName: 'reserve' },
    ],
    at,
  );
  if (listed?.status !== 'success') throw listed?.error ?? new Error(`Broker ${broker} did not list its exchange providers`);
  const listedProviders = listed.result as Address[];
  const providers = listedProviders.filter((provider) => allowed.some((known) => isAddressEqual(known, provider)));
  const reserves = await reservesOf(client, broker, providers, reserveAnswer, at);
  const providerReads = await readAll(
    client,
    providers.flatMap((provider) => {
      const at = { address: provider, abi: mentoExchangeProviderAbi } as const;
      return [
        { ...at, functionName: 'getExchanges' },
        { ...at, functionName: 'sortedOracles' },
        { ...at, functionName: 'breakerBox' },
        { ...at, functionName: 'pricingModules', args: [pricingIds.ConstantProduct] },
        { ...at, functionName: 'pricingModules', args: [pricingIds.ConstantSum] },
      ];
    }),
    at,
  );
  const exchangesListed = providers.flatMap((provider, i) => {
    const [exchanges, sortedOracles, breakerBox, constantProduct, constantSum] = providerReads.slice(i * 5, i * 5 + 5) as [
      { exchangeId: Hex; assets: readonly Address[] }[],
      Address,
      Address,
      Address,
      Address,
    ];
    const reserve = reserves[i] as Address;
    return exchanges.map((exchange) => ({
      provider,
      exchangeId: exchange.exchangeId,
      sortedOracles,
      breakerBox,
      reserve,
      modules: { constantProduct, constantSum },
    }));
  });
  const perExchange = 7;
  const exchangeReads = await readAll(
    client,
    exchangesListed.flatMap(({ provider, exchangeId }) => [
      { address: provider, abi: mentoExchangeProviderAbi, functionName: 'getPoolExchange', args: [exchangeId] },
    ]),
    at,
  );
  const configs = exchangeReads as { asset0: Address; asset1: Address; pricingModule: Address; config: { spread: bigint; referenceRateFeedID: Address } }[];
  const tokenReads = await readAll(
    client,
    exchangesListed.flatMap(({ provider, reserve }, i) => {
      const { asset0, asset1 } = configs[i] as (typeof configs)[number];
      return [
        { address: provider, abi: mentoExchangeProviderAbi, functionName: 'tokenPrecisionMultipliers', args: [asset0] },
        { address: provider, abi: mentoExchangeProviderAbi, functionName: 'tokenPrecisionMultipliers', args: [asset1] },
        { address: asset0, abi: erc20Abi, functionName: 'decimals' },
        { address: asset1, abi: erc20Abi, functionName: 'decimals' },
        { address: reserve, abi: mentoReserveAbi, functionName: 'isCollateralAsset', args: [asset0] },
        { address: reserve, abi: mentoReserveAbi, functionName: 'isCollateralAsset', args: [asset1] },
        { address: reserve, abi: mentoReserveAbi, functionName: 'isStableAsset', args: [asset1] },
      ];
    }),
    at,
  );
  const found: MentoExchange[] = [];
  for (const [i, entry] of exchangesListed.entries()) {
    const config = configs[i] as (typeof configs)[number];
    const [multiplier0, multiplier1, decimals0, decimals1, collateral0, collateral1] = tokenReads.slice(i * perExchange, i * perExchange + perExchange) as [
      bigint,
      bigint,
      number,
      number,
      boolean,
      boolean,
      boolean,
    ];
    const pricing: MentoPricing | undefined = isAddressEqual(config.pricingModule, entry.modules.constantProduct)
      ? 'ConstantProduct'
      : isAddressEqual(config.pricingModule, entry.modules.constantSum)
        ? 'ConstantSum'
        : undefined;
    if (!pricing || isAddressEqual(config.asset0, zeroAddress)) continue;
    found.push({
      broker: getAddress(broker),
      provider: getAddress(entry.provider),
      exchangeId: entry.exchangeId,
      asset0: getAddress(config.asset0),
      asset1: getAddress(config.asset1),
      pricing,
      rateFeed: getAddress(config.config.referenceRateFeedID),
      sortedOracles: getAddress(entry.sortedOracles),
      breakerBox: getAddress(entry.breakerBox),
      reserve: getAddress(entry.reserve),
      decimals0: Number(decimals0),
      decimals1: Number(decimals1),
      multiplier0,
      multiplier1,
      collateral0,
      collateral1,
      spread: config.config.spread,
    });
  }
  return found;
}

/**
 * The Reserve each provider's exchanges pay from: the Broker's one `reserve()` (the v2.2 line Celo runs), or, where it
 * has none (the v2.6 line), each provider's `exchangeReserve`.
 */
async function reservesOf(
  client: PublicClient,
  broker: Address,
  providers: readonly Address[],
  reserveAnswer: CallAnswer | undefined,
  at: bigint | 'latest',
): Promise<Address[]> {
  if (reserveAnswer?.status === 'success') return providers.map(() => reserveAnswer.result as Address);
  const perProvider = providers.map((provider) => ({ address: broker, abi: mentoBrokerAbi, functionName: 'exchangeReserve', args: [provider] }));
  return (await readAll(client, perProvider, at)) as Address[];
}

type PoolExchangeRead = {
  asset0: Address;
  bucket0: bigint;
  bucket1: bigint;
  lastBucketUpdate: bigint;
  config: { spread: bigint; referenceRateFeedID: Address; referenceRateResetFrequency: bigint; minimumReports: bigint; stablePoolResetSize: bigint };
};
type LimitConfigRead = readonly [number, number, number, number, number, number];
type LimitStateRead = readonly [number, number, number, number, number];

/** The calls that read one exchange's state: the same list, in the same order, that `stateFrom` reads back. */
function stateCalls(exchange: MentoExchange): unknown[] {
  const oracle = { address: exchange.sortedOracles, abi: sortedOraclesAbi } as const;
  const broker = { address: exchange.broker, abi: mentoBrokerAbi } as const;
  const feed = [exchange.rateFeed] as const;
  return [
    { address: exchange.provider, abi: mentoExchangeProviderAbi, functionName: 'getPoolExchange', args: [exchange.exchangeId] },
    { ...oracle, functionName: 'medianRate', args: feed },
    { ...oracle, functionName: 'medianTimestamp', args: feed },
    { ...oracle, functionName: 'numRates', args: feed },
    { ...oracle, functionName: 'getTimestamps', args: feed },
    { ...oracle, functionName: 'getTokenReportExpirySeconds', args: feed },
    { address: exchange.breakerBox, abi: mentoBreakerBoxAbi, functionName: 'getRateFeedTradingMode', args: feed },
    ...[exchange.asset0, exchange.asset1].flatMap((token) => [
      { ...broker, functionName: 'tradingLimitsConfig', args: [tradingLimitId(exchange.exchangeId, token)] },
      { ...broker, functionName: 'tradingLimitsState', args: [tradingLimitId(exchange.exchangeId, token)] },
    ]),
    { address: exchange.asset0, abi: erc20Abi, functionName: 'balanceOf', args: [exchange.reserve] },
    { address: exchange.asset1, abi: erc20Abi, functionName: 'balanceOf', args: [exchange.reserve] },
  ];
}

function limitFrom(config: LimitConfigRead, state: LimitStateRead, decimals: number): TradingLimit | undefined {
  const [timestep0, timestep1, limit0, limit1, limitGlobal, flags] = config;
  if (flags === 0) return undefined;
  const [lastUpdated0, lastUpdated1, netflow0, netflow1, netflowGlobal] = state;
  return {
    timestep0: BigInt(timestep0),
    timestep1: BigInt(timestep1),
    limit0: BigInt(limit0),
    limit1: BigInt(limit1),
    limitGlobal: BigInt(limitGlobal),
    flags,
    lastUpdated0: BigInt(lastUpdated0),
    lastUpdated1: BigInt(lastUpdated1),
    netflow0: BigInt(netflow0),
    netflow1: BigInt(netflow1),
    netflowGlobal: BigInt(netflowGlobal),
    decimals,
  };
}

function stateFrom(exchange: MentoExchange, answers: readonly unknown[]): MentoExchangeState {
  const [
    pool,
    [rateNumerator, rateDenominator],
    medianTimestamp,
    numRates,
    [, timestamps],
    reportExpiry,
    tradingMode,
    config0,
    state0,
    config1,
    state1,
    balance0,
    balance1,
  ] = answers as [
    PoolExchangeRead,
    readonly [bigint, bigint],
    bigint,
    bigint,
    readonly [readonly Address[], readonly bigint[]],
    bigint,
    number,
    LimitConfigRead,
    LimitStateRead,
    LimitConfigRead,
    LimitStateRead,
    bigint,
    bigint,
  ];
  const oldestReport = timestamps.reduce((oldest, time) => (oldest === 0n || time < oldest ? time : oldest), 0n);
  return {
    pricing: exchange.pricing,
    bucket0: pool.bucket0,
    bucket1: pool.bucket1,
    lastBucketUpdate: pool.lastBucketUpdate,
    spread: pool.config.spread,
    resetFrequency: pool.config.referenceRateResetFrequency,
    minimumReports: pool.config.minimumReports,
    stablePoolResetSize: pool.config.stablePoolResetSize,
    multiplier0: exchange.multiplier0,
    multiplier1: exchange.multiplier1,
    oracle: { rateNumerator, rateDenominator, medianTimestamp, numRates, oldestReport, reportExpiry },
    // An exchange destroyed since it was found, or moved to another rate feed, trades nothing until found again.
    tradingMode: isAddressEqual(pool.asset0, zeroAddress) || !isAddressEqual(pool.config.referenceRateFeedID, exchange.rateFeed) ? -1 : Number(tradingMode),
    limit0: limitFrom(config0, state0, exchange.decimals0),
    limit1: limitFrom(config1, state1, exchange.decimals1),
    reserve0: exchange.collateral0 ? balance0 : undefined,
    reserve1: exchange.collateral1 ? balance1 : undefined,
  };
}

/**
 * Every exchange's state at a block (or the latest), in one call; an exchange one of whose views reverts (destroyed
 * since it was found: `getPoolExchange` reverts; its feed removed from the BreakerBox) is `Unreadable`, alone.
 */
export async function readMentoStates(
  client: PublicClient,
  exchanges: readonly MentoExchange[],
  at: bigint | 'latest',
): Promise<(MentoExchangeState | Unreadable)[]> {
  if (exchanges.length === 0) return [];
  return mentoStatesFrom(exchanges, await readEach(client, mentoStateCalls(exchanges), at));
}

/** The calls that read these exchanges' states, for a multicall of its own or one shared with other kinds. */
export const mentoStateCalls = (exchanges: readonly MentoExchange[]): unknown[] => exchanges.flatMap(stateCalls);

/** The exchanges' states from the answers to `mentoStateCalls`, in its order; an exchange whose read failed says which call. */
export function mentoStatesFrom(exchanges: readonly MentoExchange[], answers: readonly CallAnswer[]): (MentoExchangeState | Unreadable)[] {
  return exchanges.map((exchange, i) => {
    const calls = stateCalls(exchange);
    const results = resultsOrWhy(calls, answers.slice(i * calls.length, (i + 1) * calls.length));
    return 'unreadable' in results ? results : stateFrom(exchange, results);
  });
}
