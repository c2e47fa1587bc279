/**
 * Deploys the devnet world onto an empty anvil and returns its address book.
 * Every transaction comes from the deployer and is awaited, so addresses are the same on every run.
 */
import { type Address, isAddressEqual, keccak256, parseUnits } from 'viem';
import type { AddressBook, DeploymentAddressBook } from '../config/address-book.ts';
import { pairAddress } from '../contracts/encoding.ts';
import { devnetAccount } from './accounts.ts';
import { DeploymentError, createDeployer } from './deployer.ts';
import { reportWorldPrices } from './oracle.ts';
import { deployMento } from './mento.ts';
import { deployUniswapV3 } from './uniswap-v3.ts';
import * as artifacts from './artifacts/contracts.ts';
import * as swappa from './artifacts/swappa-published.ts';
import {
  devnetChainId,
  feedDecimals,
  feedMaxAgeSeconds,
  gaugeSpec,
  partnerSpecs,
  priceSourceSpecs,
  poolSpecs,
  roles,
  sequencerGracePeriodSeconds,
  sortedOraclesSpec,
  type TokenSymbol,
  tokenSpecs,
  uniswapV2FeePerMille,
  unlistedAdapterPools,
  userBalances,
} from './world-spec.ts';

/** Which `Swap` event the router emits: the published ABI's 6-field one, or the public source's 7-field one. */
export type SwapEventVersion = 'published' | 'tenant';

export type DeployOptions = {
  chainId?: number;
  swapEvent?: SwapEventVersion;
  /** Uniswap V3's factory, adapter and pools (uniswap-v3.ts) beside the V2 world. */
  uniswapV3?: boolean;
  /** Mento v2's Broker, exchanges, Reserve and breaker (mento.ts), and Swappa's adapter for it. */
  mento?: boolean;
};

/** Deploys everything in `world-spec.ts` and returns the address book (without `routingServiceUrl`). */
export async function deployWorld(rpcUrl: string, options: DeployOptions = {}): Promise<DeploymentAddressBook> {
  const chainId = options.chainId ?? devnetChainId;
  const deployment = createDeployer(rpcUrl, chainId);
  const { deployer, call, deploy, publicClient } = deployment;
  const serviceSigner = devnetAccount(roles.serviceSigner);
  const users = roles.users.map(devnetAccount);
  const amount = (symbol: TokenSymbol, human: string) => parseUnits(human, decimalsOf(symbol));

  const tokens = {} as Record<TokenSymbol, { address: Address; decimals: number }>;
  for (const spec of tokenSpecs) {
    const address = await deploy(spec.symbol, artifacts.TestToken, [spec.name, spec.symbol, spec.decimals]);
    tokens[spec.symbol] = { address, decimals: spec.decimals };
  }
  const mint = (symbol: TokenSymbol, to: Address, raw: bigint) => call(tokens[symbol].address, artifacts.TestToken.abi, 'mint', [to, raw]);

  const factory = await deploy('UniswapV2Factory', artifacts.UniswapV2Factory, [deployer.address]);
  const router = await deploy('DevnetRouter', artifacts.DevnetRouter, [deployer.address, serviceSigner.address, options.swapEvent === 'tenant']);
  const adapter = await deploy('UniswapV2Adapter', artifacts.UniswapV2Adapter);
  // Celo's Uniswap V2 adapter as Swappa built and deployed it (fee byte in basis points), unlisted for the daemon.
  const bipsAdapter = await deploy('PairUniswapV2 (Swappa)', swappa.PairUniswapV2);
  const oneClickFarm = await deploy('OneClickFarm', artifacts.OneClickFarm);
  const uniswapV2Farm = await deploy('UniswapV2Farm', artifacts.UniswapV2Farm);
  const gaugeFarm = await deploy('GaugeFarm', artifacts.GaugeFarm);

  const partners = partnerSpecs.map((spec, i) => {
    const adminIndex = roles.partnerAdmins[i];
    if (adminIndex === undefined) throw new DeploymentError(`no admin account for partner ${spec.id}`);
    return { id: spec.id, admin: devnetAccount(adminIndex).address, feeNumerator: spec.feeNumerator, apiKey: spec.apiKey };
  });
  for (const partner of partners) {
    await call(router, artifacts.DevnetRouter.abi, 'setPartner', [BigInt(partner.id), partner.admin, partner.feeNumerator]);
  }

  const pools: AddressBook['pools'] = [];
  for (const spec of poolSpecs) {
    const name = `${spec.token0}/${spec.token1}`;
    await call(factory, artifacts.UniswapV2Factory.abi, 'createPair', [tokens[spec.token0].address, tokens[spec.token1].address]);
    const pair = await publicClient.readContract({
      address: factory,
      abi: artifacts.UniswapV2Factory.abi,
      functionName: 'getPair',
      args: [tokens[spec.token0].address, tokens[spec.token1].address],
    });
    // Minting straight into the pair is the devnet's shortcut for "transfer, then mint LP".
    await mint(spec.token0, pair, amount(spec.token0, spec.reserve0));
    await mint(spec.token1, pair, amount(spec.token1, spec.reserve1));
    await call(pair, artifacts.UniswapV2Pair.abi, 'mint', [deployer.address]);
    // Name the pool by its on-chain token order, which is what callers see from token0()/token1().
    const token0IsFirst = BigInt(tokens[spec.token0].address) < BigInt(tokens[spec.token1].address);
    const [token0, token1] = token0IsFirst ? [spec.token0, spec.token1] : [spec.token1, spec.token0];
    pools.push({ name, address: pair, token0, token1, feePerMille: uniswapV2FeePerMille });
  }

  // The pair's init code hash proves a pool is the factory's without a chain read (as for a real factory).
  const pairInitCodeHash = keccak256(artifacts.UniswapV2Pair.bytecode);
  const [firstPool] = pools;
  if (
    firstPool &&
    !isAddressEqual(pairAddress(factory, pairInitCodeHash, [tokens[poolSpecs[0]!.token0].address, tokens[poolSpecs[0]!.token1].address]), firstPool.address)
  ) {
    throw new DeploymentError("the Uniswap V2 pair init code hash does not reproduce the factory's pairs");
  }

  const gaugePool = pools.find((pool) => pool.name === gaugeSpec.pool);
  if (!gaugePool) throw new DeploymentError(`gauge pool ${gaugeSpec.pool} is not in the pool list`);
  const gauge = await deploy('StakingGauge', artifacts.StakingGauge, [
    `Gauge ${gaugeSpec.pool}`,
    `g-${gaugeSpec.pool}`,
    gaugePool.address,
    tokens[gaugeSpec.rewardToken].address,
  ]);
  const lpBalance = await publicClient.readContract({
    address: gaugePool.address,
    abi: artifacts.UniswapV2Pair.abi,
    functionName: 'balanceOf',
    args: [deployer.address],
  });
  const staked = (lpBalance * BigInt(Math.round(gaugeSpec.stakedShare * 1000))) / 1000n;
  const stakedPerUser = (lpBalance * BigInt(Math.round(gaugeSpec.userStakedShare * 1000))) / 1000n;
  await call(gaugePool.address, artifacts.UniswapV2Pair.abi, 'approve', [gauge, staked + stakedPerUser * BigInt(users.length)]);
  await call(gauge, artifacts.StakingGauge.abi, 'deposit', [staked, deployer.address]);
  for (const user of users) await call(gauge, artifacts.StakingGauge.abi, 'deposit', [stakedPerUser, user.address]);
  const reward = amount(gaugeSpec.rewardToken, gaugeSpec.rewardAmount);
  await mint(gaugeSpec.rewardToken, deployer.address, reward);
  await call(tokens[gaugeSpec.rewardToken].address, artifacts.TestToken.abi, 'approve', [gauge, reward]);
  await call(gauge, artifacts.StakingGauge.abi, 'notifyRewardAmount', [reward, BigInt(gaugeSpec.rewardDurationSeconds)]);

  for (const user of users) {
    for (const spec of tokenSpecs) await mint(spec.symbol, user.address, amount(spec.symbol, userBalances[spec.symbol]));
  }

  const priceSources: NonNullable<DeploymentAddressBook['priceSources']> = {};
  const reporter = devnetAccount(roles.oracleReporter);
  const poolNamed = (name: string) => {
    const pool = pools.find((entry) => entry.name === name);
    if (!pool) throw new DeploymentError(`price source pool ${name} is not in the pool list`);
    return pool.address;
  };
  for (const spec of tokenSpecs) {
    const source = priceSourceSpecs[spec.symbol];
    if (source.kind === 'pool') {
      priceSources[spec.symbol] = [{ kind: 'pool', pool: poolNamed(source.pool), quote: source.quote }];
      continue;
    }
    const feed = await deploy(`${spec.symbol} / USD feed`, artifacts.DevnetPriceFeed, [feedDecimals, `${spec.symbol} / USD`, reporter.address]);
    priceSources[spec.symbol] = [
      { kind: 'feed', address: feed, maxAgeSeconds: feedMaxAgeSeconds, decimals: feedDecimals, ...(source.peg && { peg: true }) },
      ...(source.peg ? [{ kind: 'pool' as const, pool: poolNamed(source.peg.pool), quote: source.peg.quote }] : []),
    ];
  }
  const sortedOracles = await deploy('SortedOracles', artifacts.DevnetSortedOracles, [reporter.address]);
  const rateFeedId = tokens[sortedOraclesSpec.rateFeed].address;
  // The rate feed's own expiry, as Mento sets one per feed: the same age the daemon's source allows.
  await call(sortedOracles, artifacts.DevnetSortedOracles.abi, 'setTokenReportExpiry', [rateFeedId, BigInt(feedMaxAgeSeconds)]);
  priceSources[sortedOraclesSpec.token]?.push({ kind: 'sorted-oracles', address: sortedOracles, rateFeedId, quote: 'USD', maxAgeSeconds: feedMaxAgeSeconds });
  await reportWorldPrices(rpcUrl, { chainId, priceSources });
  // An L2's sequencer uptime feed, as Celo has one: up since the world began.
  const sequencerFeed = await deploy('sequencer uptime feed', artifacts.DevnetSequencerUptimeFeed, [reporter.address]);
  const uniswapV3 = options.uniswapV3 ? await deployUniswapV3(deployment, tokens) : undefined;
  const mento = options.mento ? await deployMento(deployment, tokens, sortedOracles, rpcUrl, chainId) : undefined;

  return {
    chainId,
    rpcUrl,
    standalone: true,
    tokens,
    contracts: {
      router,
      oneClickFarm,
      uniswapV2Factory: factory,
      uniswapV2PairInitCodeHash: pairInitCodeHash,
      ...(uniswapV3 && {
        uniswapV3Factory: uniswapV3.factory,
        uniswapV3PoolInitCodeHash: uniswapV3.poolInitCodeHash,
        uniswapV3PositionManager: uniswapV3.positionManager,
        v3RangeMover: uniswapV3.rangeMover,
      }),
      ...(mento && { mento: { broker: mento.broker, exchangeProviders: [mento.world.biPoolManager], fpmmFactory: mento.world.fpmmFactory } }),
      adapters: {
        uniswapV2: adapter,
        ...(uniswapV3 && { uniswapV3: uniswapV3.adapter, swappaUniswapV3: uniswapV3.quotingAdapter }),
        ...(mento && { mentoV2: mento.adapter, mentoFpmm: mento.fpmmAdapter }),
      },
      farms: { uniswapV2: uniswapV2Farm, gauge: gaugeFarm },
      gauges: {
        [gaugeSpec.pool]: { name: gaugeSpec.pool, address: gauge, pool: gaugePool.address, rewardToken: gaugeSpec.rewardToken },
      },
    },
    pools,
    ...(uniswapV3 && { uniswapV3: uniswapV3.world }),
    ...(mento && { mento: mento.world }),
    routingService: { bipsAdapter, bipsPools: [...unlistedAdapterPools] },
    priceSources,
    sequencerUptimeFeed: { address: sequencerFeed, gracePeriodSeconds: sequencerGracePeriodSeconds },
    // One chain, one node, no reorgs unless a test makes one.
    confirmations: 1,
    accounts: users.map(({ address, privateKey }) => ({ address, privateKey })),
    serviceSigner: { address: serviceSigner.address, privateKey: serviceSigner.privateKey },
    partners: partners.map((p) => ({ id: p.id, admin: p.admin, feeNumerator: p.feeNumerator.toString(), apiKey: p.apiKey })),
  };
}

function decimalsOf(symbol: TokenSymbol): number {
  const spec = tokenSpecs.find((token) => token.symbol === symbol);
  if (!spec) throw new DeploymentError(`unknown devnet token ${symbol}`);
  return spec.decimals;
}
