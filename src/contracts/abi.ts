/**
 * The on-chain interfaces the daemon encodes, exactly as the real network has them
 * (router and OneClickFarm on Celo mainnet, docs/spec/onchain-interfaces.md).
 * This is the only place the daemon's ABIs are written; the devnet contracts are tested against them.
 */
import { parseAbi, parseAbiParameters } from 'viem';

const swapPayloadStruct =
  'struct SwapPayload { address[] path; address[] pairs; bytes[] extras; uint256 inputAmount; uint256 minOutputAmount; uint256 expectedOutputAmount; address to; uint256 deadline; uint256 partner; bytes sig; }';

/** The router: Celo mainnet `0xa730B463395f5ca07EcE5cefeccF7f45e1E2C9Bf`. */
/**
 * The router's partner fee settings as its public source has them (Node-Fi/Minima-Contracts MinimaRouterV1):
 * a fee numerator per partner over FEE_DENOMINATOR, and the event every change emits.
 */
export const routerFeeAbi = parseAbi([
  'function getPartnerFee(uint256 partnerId) view returns (uint256)',
  'function FEE_DENOMINATOR() view returns (uint256)',
  'event FeeChanged(uint256 indexed partnerId, address indexed initiator, bool indexed isAdminFee, uint256 oldFee, uint256 newFee)',
]);

/** Uniswap V2 factories and pairs, as far as a routing service follows them. */
export const uniswapV2IndexAbi = parseAbi([
  'function allPairsLength() view returns (uint256)',
  'function allPairs(uint256) view returns (address)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
  'function totalSupply() view returns (uint256)',
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
]);

export const routerAbi = parseAbi([
  swapPayloadStruct,
  'function swapExactInputForOutput(SwapPayload details) returns (uint256 outputAmount)',
  'function getOutputAmount(address[] path, address[] pairs, bytes[] extras, uint256 inputAmount) view returns (uint256 outputAmount)',
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
]);

/**
 * The `Swap` event the router's public source emits instead of the published ABI's: `output` unindexed and the
 * verified partner id as an indexed `tenantId`. Which one the deployed router emits is not public: read both.
 */
export const routerTenantSwapEventAbi = parseAbi([
  'event Swap(address indexed sender, address to, address indexed input, address output, uint256 inputAmount, uint256 outputAmount, uint256 indexed tenantId)',
]);

/** A pair adapter (ISwappaPairV1), called by the router once per hop. */
export const pairAdapterAbi = parseAbi([
  'function swap(address input, address output, address to, bytes data)',
  'function getOutputAmount(address input, address output, uint256 amountIn, bytes data) view returns (uint256)',
]);

/** OneClickFarm's deposit, exactly as on the real network. */
export const oneClickFarmAbi = parseAbi([
  swapPayloadStruct,
  'function oneClickDeposit(SwapPayload[] details, address router, address depositPairAddr, uint256 minExpected, address to, bytes data) returns (uint256 liquidity)',
]);

/**
 * routekeeper's own one-transaction withdraw, deployed on the devnet's OneClickFarm.
 * No public counterpart exists on the real network (docs/spec/onchain-interfaces.md).
 */
export const oneClickWithdrawAbi = parseAbi([
  swapPayloadStruct,
  'function oneClickWithdraw(address positionToken, uint256 amount, address farm, bytes farmData, SwapPayload[] details, address router, address tokenOut, uint256 minOut, address to) returns (uint256 amountOut)',
  'event OneClickWithdraw(address indexed sender, address indexed positionToken, uint256 amount, address tokenOut, uint256 amountOut, address to)',
]);

/** The farm a OneClickFarm deposit ends in (IFarm). */
export const farmAbi = parseAbi([
  'function deposit(uint256 minExpected, address to, bytes data) returns (uint256 liquidity)',
  'function withdraw(address to, bytes data)',
]);

/**
 * The staking gauge the compound strategy claims from: the devnet's StakingGauge interface
 * (gauges elsewhere must offer the same `claim`/`earned` to be compounded).
 */
export const stakingGaugeAbi = parseAbi([
  'function claim() returns (uint256 reward)',
  'function earned(address account) view returns (uint256)',
  'function stakingToken() view returns (address)',
  'function rewardToken() view returns (address)',
]);

/** The selectors and topics the reference gives for the real contracts; tests hold the ABIs above to them. */
export const knownSelectors = {
  swapExactInputForOutput: '0x9acc65a9',
  routerGetOutputAmount: '0xe2f46a00',
  swapEventTopic: '0x20efd6d5195b7b50273f01cd79a27989255356f9f13293edc53ee142accfdb75',
  tenantSwapEventTopic: '0xdba43ee9916cb156cc32a5d3406e87341e568126a46815294073ba25c9400246',
  adapterSwap: '0x32ef8314',
  adapterGetOutputAmount: '0x7eace892',
  oneClickDeposit: '0x887cdfbe',
  farmDeposit: '0xfaa9bce9',
  farmWithdraw: '0x4bb78b14',
} as const;

/** A Uniswap V2 pair (also the pools of its forks on Celo: Ubeswap, SushiSwap): tokens, reserves, price accumulators. */
export const uniswapV2PairAbi = parseAbi([
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
  'function price0CumulativeLast() view returns (uint256)',
  'function price1CumulativeLast() view returns (uint256)',
]);

/** A Uniswap V2 factory: the pair of two tokens, and its pairs in creation order. */
export const uniswapV2FactoryAbi = parseAbi([
  'function getPair(address, address) view returns (address)',
  'function allPairsLength() view returns (uint256)',
  'function allPairs(uint256) view returns (address)',
]);

/** Mento's SortedOracles (Celo: 0xefB84935239dAcdecF7c5bA76d8dE40b077B7b33): the median of a rate feed and its time. */
export const sortedOraclesAbi = parseAbi([
  'function medianRate(address rateFeedId) view returns (uint256 numerator, uint256 denominator)',
  'function medianRateWithoutEquivalentMapping(address rateFeedId) view returns (uint256 numerator, uint256 denominator)',
  'function medianTimestamp(address rateFeedId) view returns (uint256)',
  'function getEquivalentToken(address rateFeedId) view returns (address)',
  'function getTokenReportExpirySeconds(address rateFeedId) view returns (uint256)',
  'function numRates(address rateFeedId) view returns (uint256)',
  'function getTimestamps(address rateFeedId) view returns (address[] oracles, uint256[] timestamps, uint8[] medianRelations)',
]);

/**
 * Mento v2's Broker (Celo: 0x777A8255cA72412f0d706dc03C9D1987306B4CaD; mento-protocol/mento-core
 * `contracts/swap/Broker.sol`): its exchange providers, its quote and swap, the trading limit of a token on an
 * exchange (keyed by `exchangeId ^ token`), and the Reserve it pays collateral from: `reserve()` in the v2.2 line
 * Celo runs, one per exchange provider (`exchangeReserve`) in the v2.6 line, which has no `reserve()`.
 */
export const mentoBrokerAbi = parseAbi([
  'function getExchangeProviders() view returns (address[])',
  'function reserve() view returns (address)',
  'function exchangeReserve(address exchangeProvider) view returns (address)',
  'function getAmountOut(address exchangeProvider, bytes32 exchangeId, address tokenIn, address tokenOut, uint256 amountIn) view returns (uint256 amountOut)',
  'function swapIn(address exchangeProvider, bytes32 exchangeId, address tokenIn, address tokenOut, uint256 amountIn, uint256 amountOutMin) returns (uint256 amountOut)',
  'function tradingLimitsConfig(bytes32 limitId) view returns (uint32 timestep0, uint32 timestep1, int48 limit0, int48 limit1, int48 limitGlobal, uint8 flags)',
  'function tradingLimitsState(bytes32 limitId) view returns (uint32 lastUpdated0, uint32 lastUpdated1, int48 netflow0, int48 netflow1, int48 netflowGlobal)',
]);

/**
 * Mento v2's BiPoolManager, an exchange provider of the Broker (Celo: 0x22d9db95E6Ae61c104A7B6F6C78D7993B94ec901):
 * its exchanges, each one's buckets and configuration, and the oracle, breaker box and pricing modules it uses.
 */
export const mentoExchangeProviderAbi = parseAbi([
  'struct Config { uint256 spread; address referenceRateFeedID; uint256 referenceRateResetFrequency; uint256 minimumReports; uint256 stablePoolResetSize; }',
  'struct PoolExchange { address asset0; address asset1; address pricingModule; uint256 bucket0; uint256 bucket1; uint256 lastBucketUpdate; Config config; }',
  'struct Exchange { bytes32 exchangeId; address[] assets; }',
  'function getExchanges() view returns (Exchange[])',
  'function getPoolExchange(bytes32 exchangeId) view returns (PoolExchange)',
  'function tokenPrecisionMultipliers(address token) view returns (uint256)',
  'function pricingModules(bytes32 identifier) view returns (address)',
  'function sortedOracles() view returns (address)',
  'function breakerBox() view returns (address)',
  'event ExchangeCreated(bytes32 indexed exchangeId, address indexed asset0, address indexed asset1, address pricingModule)',
  'event ExchangeDestroyed(bytes32 indexed exchangeId, address indexed asset0, address indexed asset1, address pricingModule)',
]);

/** Mento's BreakerBox (Celo: 0x303ED1df62Fa067659B586EbEe8De0EcE824Ab39): a rate feed's trading mode (0: both ways). */
export const mentoBreakerBoxAbi = parseAbi(['function getRateFeedTradingMode(address rateFeedID) view returns (uint8)']);

/** Mento's Reserve: which tokens are stables (minted and burned) and which collateral (paid from its balance). */
export const mentoReserveAbi = parseAbi([
  'function isStableAsset(address token) view returns (bool)',
  'function isCollateralAsset(address token) view returns (bool)',
]);

/**
 * A Uniswap V3 pool (v3-core's IUniswapV3Pool; Celo's pools from factory 0xAfE208a311B21f13EF87E33A90049fC17A7acDEc):
 * its immutables, the state a swap reads (price, liquidity, tick bitmap, ticks), its oracle, and the events that
 * change that state.
 */
export const uniswapV3PoolAbi = parseAbi([
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function fee() view returns (uint24)',
  'function tickSpacing() view returns (int24)',
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function liquidity() view returns (uint128)',
  'function tickBitmap(int16 wordPosition) view returns (uint256)',
  'function ticks(int24 tick) view returns (uint128 liquidityGross, int128 liquidityNet, uint256 feeGrowthOutside0X128, uint256 feeGrowthOutside1X128, int56 tickCumulativeOutside, uint160 secondsPerLiquidityOutsideX128, uint32 secondsOutside, bool initialized)',
  'function observe(uint32[] secondsAgos) view returns (int56[] tickCumulatives, uint160[] secondsPerLiquidityCumulativeX128s)',
  'function snapshotCumulativesInside(int24 tickLower, int24 tickUpper) view returns (int56 tickCumulativeInside, uint160 secondsPerLiquidityInsideX128, uint32 secondsInside)',
  'function observations(uint256 index) view returns (uint32 blockTimestamp, int56 tickCumulative, uint160 secondsPerLiquidityCumulativeX128, bool initialized)',
  'function increaseObservationCardinalityNext(uint16 observationCardinalityNext)',
  'event Initialize(uint160 sqrtPriceX96, int24 tick)',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)',
  'event IncreaseObservationCardinalityNext(uint16 observationCardinalityNextOld, uint16 observationCardinalityNextNew)',
]);

/** A Uniswap V3 factory: the pool of two tokens at a fee, and the event that announces each new pool. */
export const uniswapV3FactoryAbi = parseAbi([
  'function getPool(address tokenA, address tokenB, uint24 fee) view returns (address)',
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
]);

/**
 * Uniswap's NonfungiblePositionManager (Celo: 0x3d79EdAaBC0EaB6F08ED885C05Fc0B014290D95A; Uniswap/v3-periphery
 * `contracts/interfaces/INonfungiblePositionManager.sol`), in the parts a position strategy calls and reads: a
 * position by its NFT's id, the liquidity it adds and removes, what it collects, and the NFT's owner.
 */
export const positionManagerAbi = parseAbi([
  'struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }',
  'struct IncreaseLiquidityParams { uint256 tokenId; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'struct DecreaseLiquidityParams { uint256 tokenId; uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }',
  'struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }',
  'function factory() view returns (address)',
  'function WETH9() view returns (address)',
  'function positions(uint256 tokenId) view returns (uint96 nonce, address operator, address token0, address token1, uint24 fee, int24 tickLower, int24 tickUpper, uint128 liquidity, uint256 feeGrowthInside0LastX128, uint256 feeGrowthInside1LastX128, uint128 tokensOwed0, uint128 tokensOwed1)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function balanceOf(address owner) view returns (uint256)',
  'function tokenOfOwnerByIndex(address owner, uint256 index) view returns (uint256)',
  'function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
  'function increaseLiquidity(IncreaseLiquidityParams params) payable returns (uint128 liquidity, uint256 amount0, uint256 amount1)',
  'function decreaseLiquidity(DecreaseLiquidityParams params) payable returns (uint256 amount0, uint256 amount1)',
  'function collect(CollectParams params) payable returns (uint256 amount0, uint256 amount1)',
  'function burn(uint256 tokenId) payable',
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  // The NFT sent to a contract with instructions (our position mover's `onERC721Received`).
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'event IncreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
  'event DecreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
  'event Collect(uint256 indexed tokenId, address recipient, uint256 amount0, uint256 amount1)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
]);

/**
 * Mento v3's FPMMFactory (Celo: 0xa849b475FE5a4B5C9C3280152c7a1945b907613b) and its fixed-price pools (mento-core
 * `contracts/interfaces/IFPMM.sol`, `IFPMMFactory.sol`), in the parts a router reads, and the OracleAdapter they price
 * by (`IOracleAdapter.sol`).
 */
export const mentoFpmmFactoryAbi = parseAbi([
  'function deployedFPMMAddresses() view returns (address[])',
  // The deployed factory's four-field event (IFPMMFactory); an earlier draft of the source had three.
  'event FPMMDeployed(address indexed token0, address indexed token1, address fpmmProxy, address fpmmImplementation)',
]);
export const mentoFpmmAbi = parseAbi([
  'struct LimitConfig { int120 limit0; int120 limit1; uint8 decimals; }',
  'struct LimitState { uint32 lastUpdated0; uint32 lastUpdated1; int96 netflow0; int96 netflow1; }',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function decimals0() view returns (uint256)',
  'function decimals1() view returns (uint256)',
  'function getReserves() view returns (uint256 reserve0, uint256 reserve1, uint256 blockTimestampLast)',
  'function lpFee() view returns (uint256)',
  'function protocolFee() view returns (uint256)',
  'function protocolFeeRecipient() view returns (address)',
  'function referenceRateFeedID() view returns (address)',
  'function invertRateFeed() view returns (bool)',
  'function oracleAdapter() view returns (address)',
  'function getAmountOut(uint256 amountIn, address tokenIn) view returns (uint256)',
  'function getTradingLimits(address token) view returns (LimitConfig config, LimitState state)',
]);
export const mentoOracleAdapterAbi = parseAbi([
  'function sortedOracles() view returns (address)',
  'function breakerBox() view returns (address)',
  'function marketHoursBreaker() view returns (address)',
]);

/**
 * A market-hours breaker an OracleAdapter asks (mento-core `MarketHoursBreaker.sol`; deployments-v2
 * `MarketHoursBreakerToggleable.sol`, whose checks its owner turns on and off): whether the FX market is open at a time.
 */
export const mentoMarketHoursBreakerAbi = parseAbi(['function isFXMarketOpen(uint256 timestamp) view returns (bool)']);

/**
 * routekeeper's position mover (src/contracts/solidity/V3RangeMover.sol): the instructions the wallet sends with the
 * NFT (the `data` of the position manager's `safeTransferFrom`), its `Move` struct field for field.
 */
export const positionMoveParameters = parseAbiParameters([
  swapPayloadStruct,
  'struct Move { uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; address router; SwapPayload swap; bool sellAll; bool mint; int24 tickLower; int24 tickUpper; uint256 mint0Min; uint256 mint1Min; bool burn; }',
  'Move move',
]);
