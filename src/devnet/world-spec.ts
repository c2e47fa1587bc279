/**
 * What the devnet world holds: tokens with a reference price, Uniswap V2 pools seeded at those prices,
 * one gauge with rewards flowing, and funded accounts. Prices and depths are loosely those of Celo.
 * Pool graph (every pool 0.3%):
 *
 *   cEUR ── cUSD ── CELO ── RWD          cEUR→WETH, cEUR→RWD and USDC→RWD need three hops;
 *            │       │                   cEUR→CELO, USDC→CELO, WETH→RWD need two.
 *           USDC ── WETH
 */
export const devnetChainId = 42220;

/** How long before start-up (in chain time) the world is deployed: longer than any price-average window. */
export const worldAgeSeconds = 24 * 3600;

/** anvil's default mnemonic: well known, for a local chain only. */
export const devnetMnemonic = 'test test test test test test test test test test test junk';

/** The key variable the embedded devnet fills with a funded test account when it is unset. */
export const devnetKeyVariable = 'ROUTEKEEPER_PRIVATE_KEY';

export const tokenSpecs = [
  { symbol: 'CELO', name: 'Celo (devnet)', decimals: 18, usdPrice: 0.5 },
  { symbol: 'cUSD', name: 'Celo Dollar (devnet)', decimals: 18, usdPrice: 1 },
  { symbol: 'cEUR', name: 'Celo Euro (devnet)', decimals: 18, usdPrice: 1.08 },
  { symbol: 'USDC', name: 'USD Coin (devnet)', decimals: 6, usdPrice: 1 },
  { symbol: 'WETH', name: 'Wrapped Ether (devnet)', decimals: 18, usdPrice: 3000 },
  { symbol: 'RWD', name: 'Gauge Reward (devnet)', decimals: 18, usdPrice: 0.2 },
] as const;

export type TokenSymbol = (typeof tokenSpecs)[number]['symbol'];

/** Reserves in human units; each pool's two sides are worth the same at the reference prices. */
export const poolSpecs: readonly { token0: TokenSymbol; token1: TokenSymbol; reserve0: string; reserve1: string }[] = [
  { token0: 'CELO', token1: 'cUSD', reserve0: '4000000', reserve1: '2000000' },
  { token0: 'cUSD', token1: 'cEUR', reserve0: '540000', reserve1: '500000' },
  { token0: 'cUSD', token1: 'USDC', reserve0: '1000000', reserve1: '1000000' },
  { token0: 'CELO', token1: 'WETH', reserve0: '1200000', reserve1: '200' },
  { token0: 'USDC', token1: 'WETH', reserve0: '300000', reserve1: '100' },
  { token0: 'RWD', token1: 'CELO', reserve0: '1000000', reserve1: '400000' },
];

/**
 * Pools the routing service swaps in through its second adapter implementation (fee byte in basis points), which
 * the address book does not list: as on the real network, the daemon accepts those routes by their token flows.
 */
export const unlistedAdapterPools: readonly string[] = ['cUSD/USDC', 'USDC/WETH'];

/** Every Uniswap V2 core pool charges 0.3%, written as the adapter's per-mille fee byte. */
export const uniswapV2FeePerMille = 3;

/** The CELO/cUSD LP is staked in a gauge paying RWD. */
export const gaugeSpec = {
  pool: 'CELO/cUSD',
  rewardToken: 'RWD' as TokenSymbol,
  /** Share of the deployer's LP staked in the gauge at start for itself, so rewards already flow. */
  stakedShare: 0.4,
  /** Share of the deployer's LP staked in the gauge for each user account (so a compound strategy has rewards). */
  userStakedShare: 0.02,
  rewardAmount: '1000000',
  rewardDurationSeconds: 365 * 24 * 3600,
};

/**
 * Partner 1 takes 0.25% (numerator over 1e10) on quotes made with its API key. The key is a public
 * fixture of the local routing service, printed in the address book; it protects nothing.
 */
export const partnerSpecs = [{ id: 1, feeNumerator: 25_000_000n, apiKey: 'devnet-partner-1' }];

/** Mnemonic indexes: who does what on the devnet. */
export const roles = {
  deployer: 0,
  serviceSigner: 1,
  partnerAdmins: [2],
  users: [3, 4, 5, 6, 7],
  /** Reports the world's prices into the price feeds, as an oracle network does. */
  oracleReporter: 8,
  /** Swaps in the busy pools (`busyPoolTrading`). */
  trader: 9,
} as const;

/**
 * How the daemon prices each devnet token independently of the routing service: an oracle feed reporting
 * the world price above (`usdPrice`), or, for RWD, which no oracle covers, its pool against CELO. cEUR's feed is,
 * as EURm's on Celo, the exchange rate of its peg (EUR / USD), so a market source stands beside it: the average of
 * its pool against cUSD.
 */
export const priceSourceSpecs: Record<
  TokenSymbol,
  { kind: 'feed'; peg?: { pool: string; quote: TokenSymbol } } | { kind: 'pool'; pool: string; quote: TokenSymbol }
> = {
  CELO: { kind: 'feed' },
  cUSD: { kind: 'feed' },
  cEUR: { kind: 'feed', peg: { pool: 'cUSD/cEUR', quote: 'cUSD' } },
  USDC: { kind: 'feed' },
  WETH: { kind: 'feed' },
  RWD: { kind: 'pool', pool: 'RWD/CELO', quote: 'CELO' },
};

/** After the sequencer comes back, prices are not trusted for this long (Chainlink's documented example: an hour). */
export const sequencerGracePeriodSeconds = 3600;

/**
 * CELO also has Mento's kind of price source, as on Celo: SortedOracles' CELO rate feed, whose id is the dollar
 * stable's address and whose rate is, as Mento relays Chainlink's CELO / USD into it, USD per CELO (not cUSD per
 * CELO). Its reports expire as the feeds' answers do.
 */
export const sortedOraclesSpec = { token: 'CELO', rateFeed: 'cUSD' } as const satisfies { token: TokenSymbol; rateFeed: TokenSymbol };

/** Feeds answer with 8 decimals, as Chainlink's USD feeds do. */
export const feedDecimals = 8;

/**
 * How old a feed's answer may be. The embedded devnet re-reports every minute; a week lets tests move the
 * chain's clock by days without a reporter running.
 */
export const feedMaxAgeSeconds = 7 * 24 * 3600;

/** What each user account is given of every token, in human units. */
export const userBalances: Record<TokenSymbol, string> = {
  CELO: '100000',
  cUSD: '100000',
  cEUR: '100000',
  USDC: '100000',
  WETH: '50',
  RWD: '100000',
};

/**
 * Uniswap V3 pools, as on Celo where CELO's liquidity is mostly in V3: CELO/WETH in two fee tiers (the 0.05% one far
 * deeper), cUSD/CELO at 0.3%, and a deep cUSD/WETH at 0.3%, the best route for stable-to-ETH trades (at 0.05% it would
 * also undercut Mento's 0.25% for the dollar stable to CELO, through CELO/WETH). Each holds
 * positions of several widths around the world price, so that swaps of a few percent of a pool cross several
 * initialized ticks. `usd` is what a position holds at the world price.
 *
 * Each keeps Uniswap's default oracle, one observation (v3-core `Oracle.initialize`), as most of Celo's pools do, unless
 * `observations` says it was grown: CELO/WETH 0.05% (a pool someone pays to keep as an oracle) and cUSD/CELO 0.3%
 * (the position tests' pool, whose steps still read its own average).
 */
export const uniswapV3PoolSpecs: readonly {
  token0: TokenSymbol;
  token1: TokenSymbol;
  /** In hundredths of a basis point (500 = 0.05%), as the factory's fee tiers are. */
  fee: 500 | 3000 | 10000;
  positions: readonly { widthPercent: number; usd: number }[];
  /** The oracle observations it keeps (`increaseObservationCardinalityNext`); none: Uniswap's default, one. */
  observations?: number;
  /** For a pool that keeps one: the dollars a swap of its busy trading moves (enough to cross ticks, see `busyPoolTrading`). */
  busyTradeUsd?: number;
}[] = [
  {
    token0: 'CELO',
    token1: 'WETH',
    fee: 500,
    positions: [
      { widthPercent: 100, usd: 200_000 },
      { widthPercent: 50, usd: 150_000 },
      { widthPercent: 20, usd: 300_000 },
      { widthPercent: 10, usd: 300_000 },
      { widthPercent: 5, usd: 400_000 },
      { widthPercent: 2, usd: 200_000 },
      { widthPercent: 1, usd: 150_000 },
    ],
    observations: 200,
  },
  {
    token0: 'CELO',
    token1: 'WETH',
    fee: 3000,
    positions: [
      { widthPercent: 100, usd: 50_000 },
      { widthPercent: 10, usd: 100_000 },
    ],
    busyTradeUsd: 2_000,
  },
  {
    token0: 'cUSD',
    token1: 'CELO',
    fee: 3000,
    positions: [
      { widthPercent: 100, usd: 100_000 },
      { widthPercent: 30, usd: 400_000 },
      { widthPercent: 15, usd: 300_000 },
      { widthPercent: 8, usd: 600_000 },
      { widthPercent: 4, usd: 300_000 },
      { widthPercent: 2, usd: 300_000 },
    ],
    observations: 200,
  },
  {
    token0: 'cUSD',
    token1: 'WETH',
    fee: 3000,
    positions: [
      { widthPercent: 100, usd: 500_000 },
      { widthPercent: 30, usd: 1_000_000 },
      { widthPercent: 10, usd: 1_500_000 },
      { widthPercent: 4, usd: 1_500_000 },
      { widthPercent: 2, usd: 1_000_000 },
      { widthPercent: 1, usd: 500_000 },
    ],
    busyTradeUsd: 40_000,
  },
];

/**
 * Swap volume in the pools that keep one observation, as Celo's busy pools see it: on the embedded devnet and
 * `routekeeper devnet`, a trader swaps each pool's `busyTradeUsd` worth in it, one way then the other, every `everyMs`,
 * so that their own oracle never reaches a window back while it runs.
 */
export const busyPoolTrading = { everyMs: 8_000 };

/**
 * Mento v2 (`deployWorld(…, { mento: true })`), as on Celo since its reserve pairs were streamlined: every exchange
 * goes through the dollar stable (cUSD, Celo's USDm). Its collateral (CELO, USDC) sits in the Reserve; its stables
 * are minted and burned by the Broker. The figures are the devnet's own choice (Celo's live configuration is set by
 * Mento's governance and is read from the chain, never from here).
 */
export const mentoSpec = {
  /** What the Reserve holds of each collateral asset, in human units. */
  reserveCollateral: { CELO: '2000000', USDC: '1000000' } as Partial<Record<TokenSymbol, string>>,
  /**
   * The rate feeds beside CELO's (`sortedOraclesSpec`, id: the dollar stable's address): id keccak256 of the pair's
   * name, as Mento derives those of pairs without a stable (`address(uint160(uint256(keccak256("USDCUSD"))))`), and
   * the world's price of `base` in USD as its rate.
   */
  rateFeeds: [
    { name: 'USDCUSD', base: 'USDC' },
    { name: 'EURUSD', base: 'cEUR' },
  ] as const satisfies readonly { name: string; base: TokenSymbol }[],
  /** Every report a Mento rate feed takes expires after this long (Celo's default report expiry). */
  reportExpirySeconds: 5 * 60,
  exchanges: [
    // asset0 is always the stable the rate is quoted in: its bucket is `stablePoolResetSize`, asset1's the rate's worth.
    { asset0: 'cUSD', asset1: 'CELO', pricing: 'ConstantProduct', rateFeed: 'CELO', spreadBps: 25, resetSeconds: 300, stablePoolResetSize: '2000000' },
    { asset0: 'cUSD', asset1: 'USDC', pricing: 'ConstantSum', rateFeed: 'USDCUSD', spreadBps: 5, resetSeconds: 300, stablePoolResetSize: '5000000' },
    { asset0: 'cUSD', asset1: 'cEUR', pricing: 'ConstantProduct', rateFeed: 'EURUSD', spreadBps: 15, resetSeconds: 300, stablePoolResetSize: '3000000' },
  ] as const satisfies readonly {
    asset0: TokenSymbol;
    asset1: TokenSymbol;
    pricing: 'ConstantProduct' | 'ConstantSum';
    /** `CELO`: the CELO rate feed (the dollar stable's address); else one of `rateFeeds` by name. */
    rateFeed: string;
    spreadBps: number;
    resetSeconds: number;
    stablePoolResetSize: string;
  }[],
  /**
   * The Broker's trading limits, in whole tokens of the limited token's flow into the Reserve (out of it: negative):
   * L0 over `timestep0` seconds, L1 over `timestep1`, LG forever; as Mento configures them per exchange and token.
   */
  tradingLimits: [
    { exchange: 'cUSD/CELO', token: 'CELO', timestep0: 300, limit0: 100_000, timestep1: 86_400, limit1: 500_000 },
    { exchange: 'cUSD/USDC', token: 'USDC', timestep0: 300, limit0: 250_000, timestep1: 86_400, limit1: 1_000_000, limitGlobal: 5_000_000 },
  ] as const satisfies readonly {
    exchange: string;
    token: TokenSymbol;
    timestep0: number;
    limit0: number;
    timestep1: number;
    limit1: number;
    limitGlobal?: number;
  }[],
  /**
   * A median-delta breaker on the CELO rate feed: a report more than `thresholdBps` from the average of the median
   * halts Mento's trading on the feed (trading mode 3) until, `cooldownSeconds` later, a report within it resets it.
   */
  medianDeltaBreaker: { rateFeed: 'CELO', thresholdBps: 400, cooldownSeconds: 900 },
  /**
   * Mento v3's fixed-price pools (our contracts with their interface: no build is published), as Celo has them: at the
   * rate feed's rate less `lpFeeBps + protocolFeeBps`, seeded with `reserve` of each token, its trading limits in whole
   * tokens (L0 over 5 minutes, L1 over a day) on the second token. A collateral pool (USDm/USDC on Celo) prices through
   * the adapter whose market-hours breaker has its checks off, as Celo's USD pools have since 2026-03-14: it trades at
   * weekends; an FX pool (GBPm/USDm, EURm on Celo) through the adapter that keeps the FX market's hours: it closes.
   * Celo's USDm/USDC charges 5 bps, as v2's cUSD/USDC exchange does; ours 8, so that the two never tie: v2 takes what
   * it can, the pool what v2's limits stop. The FX pool charges GBPm/USDm's 20 + 10 bps, more than v2's cUSD/cEUR.
   */
  fixedPricePools: [
    {
      token0: 'cUSD',
      token1: 'USDC',
      rateFeed: 'USDCUSD',
      oracleAdapter: 'collateral',
      lpFeeBps: 5,
      protocolFeeBps: 3,
      reserve: '1000000',
      limit0: 300_000,
      limit1: 1_500_000,
    },
    {
      token0: 'cUSD',
      token1: 'cEUR',
      rateFeed: 'EURUSD',
      oracleAdapter: 'fx',
      lpFeeBps: 20,
      protocolFeeBps: 10,
      reserve: '500000',
      limit0: 300_000,
      limit1: 1_500_000,
    },
  ] as const satisfies readonly {
    token0: TokenSymbol;
    token1: TokenSymbol;
    rateFeed: string;
    /** Which of the two adapters it prices through: `collateral` (open at weekends) or `fx` (the FX market's hours). */
    oracleAdapter: 'collateral' | 'fx';
    lpFeeBps: number;
    protocolFeeBps: number;
    reserve: string;
    limit0: number;
    limit1: number;
  }[],
} as const;
