/**
 * The devnet's Mento v2: Mento's own build of its Broker, BiPoolManager, both pricing modules, Reserve, BreakerBox
 * and median-delta breaker (the npm package @mento-protocol/mento-core-ts, extracted by
 * scripts/extract-mento-build.ts), over the devnet's SortedOracles, configured as `mentoSpec` says: the Reserve
 * holding the collateral, the stables registered with it, exchanges through the dollar stable, trading limits and a
 * breaker. Beside them Swappa's PairMentoV2 as Swappa built it, the adapter Celo's routes through Mento use.
 */
import { type Address, type Hex, keccak256, parseUnits, stringToHex, toHex } from 'viem';
import type { DeploymentAddressBook } from '../config/address-book.ts';
import { mentoRateFeedId } from '../contracts/encoding.ts';
import * as solidity from '../contracts/solidity-code.ts';
import * as artifacts from './artifacts/contracts.ts';
import * as mento from './artifacts/mento-published.ts';
import * as swappa from './artifacts/swappa-published.ts';
import { type Deployer, DeploymentError } from './deployer.ts';
import { reportRates } from './oracle.ts';
import { type TokenSymbol, mentoSpec, sortedOraclesSpec, tokenSpecs } from './world-spec.ts';

/** Fixidity's one (1e24), in which Mento's spreads, ratios and thresholds are written. */
const FIXED1 = 10n ** 24n;
const fromBps = (bps: number) => (FIXED1 * BigInt(bps)) / 10_000n;
/** The BreakerBox's trading mode that halts trading both ways. */
const HALTED = 3;

export type MentoWorld = NonNullable<DeploymentAddressBook['mento']>;

export async function deployMento(
  deployment: Deployer,
  tokens: Record<TokenSymbol, { address: Address; decimals: number }>,
  sortedOracles: Address,
  rpcUrl: string,
  chainId: number,
): Promise<{ broker: Address; adapter: Address; fpmmAdapter: Address; world: MentoWorld }> {
  const { deploy, call, publicClient, deployer } = deployment;
  const human = (symbol: TokenSymbol, amount: string | number) => parseUnits(String(amount), tokens[symbol].decimals);
  const celoFeed = tokens[sortedOraclesSpec.rateFeed].address;
  const rateFeeds = mentoSpec.rateFeeds.map((feed) => ({ name: feed.name, id: mentoRateFeedId(feed.name), base: feed.base as TokenSymbol }));
  const feedId = (name: string): Address => {
    if (name === 'CELO') return celoFeed;
    const feed = rateFeeds.find((entry) => entry.name === name);
    if (!feed) throw new DeploymentError(`mentoSpec names an unknown rate feed ${name}`);
    return feed.id;
  };
  // The feeds' reports expire as Celo's default does; a rate must stand before an exchange's buckets can be sized.
  for (const feed of rateFeeds)
    await call(sortedOracles, artifacts.DevnetSortedOracles.abi, 'setTokenReportExpiry', [feed.id, BigInt(mentoSpec.reportExpirySeconds)]);
  await reportRates(
    rpcUrl,
    chainId,
    sortedOracles,
    rateFeeds.map((feed) => ({ id: feed.id, usd: usdPrice(feed.base) })),
  );

  // Deployed as implementations that may be initialised directly (`test`: no proxy in front of them).
  const reserve = await deploy('Mento Reserve', mento.Reserve, [true]);
  const biPoolManager = await deploy('Mento BiPoolManager', mento.BiPoolManager, [true]);
  const broker = await deploy('Mento Broker', mento.Broker, [true]);
  const constantProduct = await deploy('Mento ConstantProductPricingModule', mento.ConstantProductPricingModule);
  const constantSum = await deploy('Mento ConstantSumPricingModule', mento.ConstantSumPricingModule);
  const breakerBox = await deploy('Mento BreakerBox', mento.BreakerBox, [[celoFeed, ...rateFeeds.map((feed) => feed.id)], sortedOracles]);
  const breakerSpec = mentoSpec.medianDeltaBreaker;
  const medianDeltaBreaker = await deploy('Mento MedianDeltaBreaker', mento.MedianDeltaBreaker, [
    BigInt(breakerSpec.cooldownSeconds),
    fromBps(breakerSpec.thresholdBps),
    sortedOracles,
    breakerBox,
    [],
    [],
    [],
  ]);

  const collateral = Object.keys(mentoSpec.reserveCollateral) as TokenSymbol[];
  await call(reserve, mento.Reserve.abi, 'initialize', [
    // The registry is Celo's; none of the exchange's paths reads it, and it must not be the zero address.
    deployer.address,
    3600n,
    FIXED1,
    0n,
    0n,
    [stringToHex('cGLD', { size: 32 })],
    [FIXED1],
    0n,
    0n,
    collateral.map((symbol) => tokens[symbol].address),
    collateral.map(() => FIXED1),
  ]);
  for (const symbol of collateral) {
    await call(tokens[symbol].address, artifacts.TestToken.abi, 'mint', [reserve, human(symbol, mentoSpec.reserveCollateral[symbol] ?? '0')]);
  }
  const stables = [...new Set(mentoSpec.exchanges.map((exchange) => exchange.asset0 as TokenSymbol))];
  for (const exchange of mentoSpec.exchanges) if (!collateral.includes(exchange.asset1) && !stables.includes(exchange.asset1)) stables.push(exchange.asset1);
  for (const symbol of stables) await call(reserve, mento.Reserve.abi, 'addToken', [tokens[symbol].address]);
  await call(reserve, mento.Reserve.abi, 'addExchangeSpender', [broker]);

  await call(biPoolManager, mento.BiPoolManager.abi, 'initialize', [broker, reserve, sortedOracles, breakerBox]);
  await call(biPoolManager, mento.BiPoolManager.abi, 'setPricingModules', [
    [keccak256(toHex('ConstantProduct')), keccak256(toHex('ConstantSum'))],
    [constantProduct, constantSum],
  ]);
  await call(broker, mento.Broker.abi, 'initialize', [[biPoolManager], reserve]);

  const exchanges: MentoWorld['exchanges'] = [];
  for (const spec of mentoSpec.exchanges) {
    const [asset0, asset1] = [tokens[spec.asset0].address, tokens[spec.asset1].address];
    await call(biPoolManager, mento.BiPoolManager.abi, 'createExchange', [
      {
        asset0,
        asset1,
        pricingModule: spec.pricing === 'ConstantProduct' ? constantProduct : constantSum,
        bucket0: 0n,
        bucket1: 0n,
        lastBucketUpdate: 0n,
        config: {
          spread: { value: fromBps(spec.spreadBps) },
          referenceRateFeedID: feedId(spec.rateFeed),
          referenceRateResetFrequency: BigInt(spec.resetSeconds),
          minimumReports: 1n,
          stablePoolResetSize: parseUnits(spec.stablePoolResetSize, 18),
        },
      },
    ]);
    const id: Hex = keccak256(`${toHex(spec.asset0)}${toHex(spec.asset1).slice(2)}${toHex(spec.pricing).slice(2)}`);
    const listed = await publicClient.readContract({ address: biPoolManager, abi: mento.BiPoolManager.abi, functionName: 'getPoolExchange', args: [id] });
    if (listed.asset0 !== asset0) throw new DeploymentError(`Mento exchange ${spec.asset0}/${spec.asset1} is not at the id its symbols give`);
    exchanges.push({ name: `${spec.asset0}/${spec.asset1}`, id, asset0: spec.asset0, asset1: spec.asset1, pricing: spec.pricing });
  }
  for (const limit of mentoSpec.tradingLimits) {
    const exchange = exchanges.find((entry) => entry.name === limit.exchange);
    if (!exchange) throw new DeploymentError(`a trading limit names an unknown Mento exchange ${limit.exchange}`);
    const limitGlobal = 'limitGlobal' in limit ? limit.limitGlobal : 0;
    await call(broker, mento.Broker.abi, 'configureTradingLimit', [
      exchange.id,
      tokens[limit.token].address,
      {
        timestep0: limit.timestep0,
        timestep1: limit.timestep1,
        limit0: limit.limit0,
        limit1: limit.limit1,
        limitGlobal,
        // L0 | L1, and LG when it has one.
        flags: limitGlobal > 0 ? 7 : 3,
      },
    ]);
  }

  await call(breakerBox, mento.BreakerBox.abi, 'addBreaker', [medianDeltaBreaker, HALTED]);
  await call(breakerBox, mento.BreakerBox.abi, 'toggleBreaker', [medianDeltaBreaker, feedId(breakerSpec.rateFeed), true]);
  // From now on every report asks the BreakerBox, as Celo's SortedOracles does.
  await call(sortedOracles, artifacts.DevnetSortedOracles.abi, 'setBreakerBox', [breakerBox]);
  const adapter = await deploy('PairMentoV2 (Swappa)', swappa.PairMentoV2);

  // Mento v3: two oracle adapters over the same SortedOracles and BreakerBox, as Celo has them: the FX one keeps the FX
  // market's hours, the collateral one's toggleable breaker has its checks off; the pool factory, and its pools.
  const marketHoursBreaker = await deploy('Mento MarketHoursBreaker (ours)', artifacts.DevnetMarketHoursBreaker);
  const marketHoursBreakerToggleable = await deploy('Mento MarketHoursBreakerToggleable (ours)', artifacts.DevnetMarketHoursBreakerToggleable, [
    deployer.address,
  ]);
  const oracleAdapter = await deploy('Mento v3 OracleAdapter (ours)', artifacts.DevnetOracleAdapter, [
    deployer.address,
    sortedOracles,
    breakerBox,
    marketHoursBreaker,
  ]);
  const oracleAdapterCollateral = await deploy('Mento v3 OracleAdapterCollateral (ours)', artifacts.DevnetOracleAdapter, [
    deployer.address,
    sortedOracles,
    breakerBox,
    marketHoursBreakerToggleable,
  ]);
  const fpmmFactory = await deploy('Mento v3 FPMMFactory (ours)', artifacts.DevnetFPMMFactory, [oracleAdapter]);
  const fixedPricePools: MentoWorld['fixedPricePools'] = [];
  for (const spec of mentoSpec.fixedPricePools) {
    // The pool's own order is the tokens' addresses'; the rate feed is USD per the second token of the spec's pair.
    const [a, b] = [tokens[spec.token0].address, tokens[spec.token1].address];
    const [token0, token1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
    // The rate is token1 per token0 once oriented: USD per `spec.token1` is the spec's token0 (the dollar) per token1.
    const invert = token0 !== b;
    await call(fpmmFactory, artifacts.DevnetFPMMFactory.abi, 'deployFPMM', [
      token0,
      token1,
      feedId(spec.rateFeed),
      invert,
      BigInt(spec.lpFeeBps),
      BigInt(spec.protocolFeeBps),
      deployer.address,
    ]);
    const pools = await publicClient.readContract({ address: fpmmFactory, abi: artifacts.DevnetFPMMFactory.abi, functionName: 'deployedFPMMAddresses' });
    const pool = pools.at(-1) as Address;
    // Deployed on the factory's (FX) adapter, then moved by its owner, as Celo's USD pools were.
    if (spec.oracleAdapter === 'collateral') await call(pool, artifacts.DevnetFPMM.abi, 'setOracleAdapter', [oracleAdapterCollateral]);
    for (const symbol of [spec.token0, spec.token1]) await call(tokens[symbol].address, artifacts.TestToken.abi, 'mint', [pool, human(symbol, spec.reserve)]);
    await call(pool, artifacts.DevnetFPMM.abi, 'sync', []);
    const scaled = (whole: number) => BigInt(whole) * 10n ** 15n;
    await call(pool, artifacts.DevnetFPMM.abi, 'configureTradingLimit', [tokens[spec.token1].address, scaled(spec.limit0), scaled(spec.limit1)]);
    fixedPricePools.push({ name: `${spec.token0}/${spec.token1}`, address: pool });
  }
  // No adapter for these pools is published: ours, as a user deploys it (`routekeeper deploy-adapter mento-fpmm`).
  const fpmmAdapter = await deploy('PairMentoFPMM (ours)', solidity.PairMentoFPMM);

  return {
    broker,
    adapter,
    fpmmAdapter,
    world: {
      broker,
      biPoolManager,
      reserve,
      breakerBox,
      medianDeltaBreaker,
      sortedOracles,
      pricingModules: { constantProduct, constantSum },
      rateFeeds: rateFeeds.map((feed) => ({ name: feed.name, id: feed.id, base: feed.base })),
      exchanges,
      oracleAdapter,
      oracleAdapterCollateral,
      marketHoursBreaker,
      marketHoursBreakerToggleable,
      fpmmFactory,
      fixedPricePools,
    },
  };
}

function usdPrice(symbol: TokenSymbol): number {
  const spec = tokenSpecs.find((token) => token.symbol === symbol);
  if (!spec) throw new DeploymentError(`unknown devnet token ${symbol}`);
  return spec.usdPrice;
}
