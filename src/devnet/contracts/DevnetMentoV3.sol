// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

interface IDevnetRateSource {
    function medianRate(address rateFeedId) external view returns (uint256, uint256);
    function medianTimestamp(address rateFeedId) external view returns (uint256);
    function getTokenReportExpirySeconds(address rateFeedId) external view returns (uint256);
}

interface IDevnetTradingMode {
    function getRateFeedTradingMode(address rateFeedId) external view returns (uint8);
}

/// The FX market's hours as Mento's market-hours breakers keep them: closed Friday 21:00 to Sunday 23:00 UTC, 24 and
/// 31 December from 22:00, 25 December and 1 January.
library DevnetFXMarketHours {
    function isOpen(uint256 timestamp) internal pure returns (bool) {
        uint256 day = timestamp / 1 days;
        uint256 hour = (timestamp % 1 days) / 1 hours;
        // 1970-01-01 was a Thursday: Monday is 1, Sunday 7.
        uint256 dayOfWeek = ((day + 3) % 7) + 1;
        if ((dayOfWeek == 5 && hour >= 21) || dayOfWeek == 6 || (dayOfWeek == 7 && hour < 23)) return false;
        (uint256 month, uint256 dayOfMonth) = _civil(day);
        if (month == 12 && (dayOfMonth == 24 || dayOfMonth == 31)) return hour < 22;
        if (month == 12 && dayOfMonth == 25) return false;
        return !(month == 1 && dayOfMonth == 1);
    }

    /// The month and day of a day since 1970-01-01 (proleptic Gregorian).
    function _civil(uint256 day) private pure returns (uint256 month, uint256 dayOfMonth) {
        int256 z = int256(day) + 719468;
        int256 era = z / 146097;
        int256 dayOfEra = z - era * 146097;
        int256 yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
        int256 dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        int256 monthIndex = (5 * dayOfYear + 2) / 153;
        dayOfMonth = uint256(dayOfYear - (153 * monthIndex + 2) / 5 + 1);
        month = uint256(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9);
    }
}

/// Mento's MarketHoursBreaker in the part an oracle adapter asks, `isFXMarketOpen(timestamp)`: the FX market's hours.
/// No build of it is on npm: this is ours, with its interface and behaviour.
contract DevnetMarketHoursBreaker {
    function isFXMarketOpen(uint256 timestamp) external pure returns (bool) {
        return DevnetFXMarketHours.isOpen(timestamp);
    }
}

/// Mento's MarketHoursBreakerToggleable (deployments-v2), which Celo's USD pools' adapter has used since 2026-03-14:
/// the same hours, asked only while its owner has the checks on; off (as deployed), the market is always open.
contract DevnetMarketHoursBreakerToggleable {
    address public immutable owner;
    bool public checksEnabled;

    event ChecksToggled(bool enabled);

    constructor(address owner_) {
        owner = owner_;
    }

    function setChecksEnabled(bool enabled) external {
        require(msg.sender == owner, "DevnetMarketHoursBreakerToggleable: not the owner");
        checksEnabled = enabled;
        emit ChecksToggled(enabled);
    }

    function isFXMarketOpen(uint256 timestamp) external view returns (bool) {
        return !checksEnabled || DevnetFXMarketHours.isOpen(timestamp);
    }
}

interface IDevnetMarketHours {
    function isFXMarketOpen(uint256 timestamp) external view returns (bool);
}

/// Mento v3's OracleAdapter in the part its fixed-price pools use, `getFXRateIfValid`: SortedOracles' median scaled
/// to 1e18, refused (reverting) while its market-hours breaker says the FX market is closed, while the BreakerBox
/// halts the feed, or when the median is older than the feed's report expiry. Its owner sets its breaker, as Mento's
/// can. No published build of it exists on npm: this is ours, with its interface and behaviour.
contract DevnetOracleAdapter {
    address public immutable owner;
    IDevnetRateSource public immutable sortedOracles;
    IDevnetTradingMode public immutable breakerBox;
    IDevnetMarketHours public marketHoursBreaker;

    error FXMarketClosed();
    error TradingSuspended();
    error NoRecentRate();
    error InvalidRate();

    constructor(address owner_, address sortedOracles_, address breakerBox_, address marketHoursBreaker_) {
        owner = owner_;
        sortedOracles = IDevnetRateSource(sortedOracles_);
        breakerBox = IDevnetTradingMode(breakerBox_);
        marketHoursBreaker = IDevnetMarketHours(marketHoursBreaker_);
    }

    function setMarketHoursBreaker(address marketHoursBreaker_) external {
        require(msg.sender == owner, "DevnetOracleAdapter: not the owner");
        marketHoursBreaker = IDevnetMarketHours(marketHoursBreaker_);
    }

    function isFXMarketOpen() external view returns (bool) {
        return marketHoursBreaker.isFXMarketOpen(block.timestamp);
    }

    function getFXRateIfValid(address rateFeedId) external view returns (uint256 numerator, uint256 denominator) {
        if (!marketHoursBreaker.isFXMarketOpen(block.timestamp)) revert FXMarketClosed();
        if (breakerBox.getRateFeedTradingMode(rateFeedId) != 0) revert TradingSuspended();
        if (sortedOracles.medianTimestamp(rateFeedId) < block.timestamp - sortedOracles.getTokenReportExpirySeconds(rateFeedId)) revert NoRecentRate();
        (numerator, denominator) = sortedOracles.medianRate(rateFeedId);
        numerator = numerator / 1e6;
        denominator = denominator / 1e6;
        if (numerator == 0 || denominator == 0) revert InvalidRate();
    }
}

/// Mento v3's fixed-price pool (FPMM) in the parts a swap uses: it trades at its rate feed's rate (inverted when
/// `invertRateFeed`) less `lpFee + protocolFee` basis points, capped by its reserves; `swap` pays first and checks
/// after that the reserves, valued at the rate, lost no more than the fees; the protocol fee goes to its recipient;
/// each token's trading limits (TradingLimitsV2: net flow in 15-decimal units over 5 minutes and a day, the input
/// counted less the fee) hold. No published build of it exists: this is ours, with its interface and behaviour.
contract DevnetFPMM {
    using SafeERC20 for IERC20;

    uint256 public constant BASIS_POINTS_DENOMINATOR = 10_000;
    uint8 private constant INTERNAL_DECIMALS = 15;
    uint32 private constant TIMESTEP0 = 5 minutes;
    uint32 private constant TIMESTEP1 = 1 days;

    struct LimitConfig {
        int120 limit0;
        int120 limit1;
        uint8 decimals;
    }

    struct LimitState {
        uint32 lastUpdated0;
        uint32 lastUpdated1;
        int96 netflow0;
        int96 netflow1;
    }

    address public immutable owner;
    address public immutable token0;
    address public immutable token1;
    uint256 public immutable decimals0;
    uint256 public immutable decimals1;
    // The owner's to change, as a real pool's are (Celo moved its USD pools to another adapter on 2026-03-14).
    DevnetOracleAdapter public oracleAdapter;
    address public referenceRateFeedID;
    bool public invertRateFeed;
    uint256 public lpFee;
    uint256 public protocolFee;
    address public protocolFeeRecipient;
    uint256 public reserve0;
    uint256 public reserve1;
    uint256 public blockTimestampLast;
    mapping(address => LimitConfig) private _limitConfig;
    mapping(address => LimitState) private _limitState;

    event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    event UpdateReserves(uint256 reserve0, uint256 reserve1, uint256 blockTimestamp);

    error InsufficientOutputAmount();
    error InsufficientLiquidity();
    error InvalidToAddress();
    error InsufficientInputAmount();
    error ReserveValueDecreased();
    error InvalidToken();
    error L0LimitExceeded();
    error L1LimitExceeded();

    constructor(address owner_, address token0_, address token1_, address oracleAdapter_, address rateFeed, bool invert, uint256 lpFee_, uint256 protocolFee_, address feeRecipient) {
        // Governance's, as the real factory makes it the pool's owner, not the factory's own address.
        owner = owner_;
        (token0, token1) = (token0_, token1_);
        decimals0 = 10 ** IERC20Metadata(token0_).decimals();
        decimals1 = 10 ** IERC20Metadata(token1_).decimals();
        oracleAdapter = DevnetOracleAdapter(oracleAdapter_);
        referenceRateFeedID = rateFeed;
        invertRateFeed = invert;
        (lpFee, protocolFee, protocolFeeRecipient) = (lpFee_, protocolFee_, feeRecipient);
    }

    function tokens() external view returns (address, address) {
        return (token0, token1);
    }

    function getReserves() external view returns (uint256, uint256, uint256) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    function getTradingLimits(address token) external view returns (LimitConfig memory config, LimitState memory state) {
        if (token != token0 && token != token1) revert InvalidToken();
        return (_limitConfig[token], _limitState[token]);
    }

    /// The owner's: a token's limits (0: none), in whole tokens scaled to 15 decimals.
    function configureTradingLimit(address token, int120 limit0, int120 limit1) external {
        require(msg.sender == owner, "DevnetFPMM: not the owner");
        if (token != token0 && token != token1) revert InvalidToken();
        _limitConfig[token] = LimitConfig(limit0, limit1, IERC20Metadata(token).decimals());
        _limitState[token] = LimitState(0, 0, 0, 0);
    }

    function setOracleAdapter(address oracleAdapter_) external {
        require(msg.sender == owner, "DevnetFPMM: not the owner");
        oracleAdapter = DevnetOracleAdapter(oracleAdapter_);
    }

    function setReferenceRateFeedID(address rateFeed) external {
        require(msg.sender == owner, "DevnetFPMM: not the owner");
        referenceRateFeedID = rateFeed;
    }

    function setInvertRateFeed(bool invert) external {
        require(msg.sender == owner, "DevnetFPMM: not the owner");
        invertRateFeed = invert;
    }

    /// The reserves become the balances (the devnet seeds a pool by sending it tokens).
    function sync() external {
        _update();
    }

    function getAmountOut(uint256 amountIn, address tokenIn) public view returns (uint256) {
        if (tokenIn != token0 && tokenIn != token1) revert InvalidToken();
        if (amountIn == 0) return 0;
        (uint256 numerator, uint256 denominator) = _rate();
        uint256 keep = BASIS_POINTS_DENOMINATOR - (lpFee + protocolFee);
        return tokenIn == token0
            ? (amountIn * numerator * decimals1 * keep) / (denominator * decimals0 * BASIS_POINTS_DENOMINATOR)
            : (amountIn * denominator * decimals0 * keep) / (numerator * decimals1 * BASIS_POINTS_DENOMINATOR);
    }

    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata) external {
        if (amount0Out == 0 && amount1Out == 0) revert InsufficientOutputAmount();
        if (amount0Out >= reserve0 || amount1Out >= reserve1) revert InsufficientLiquidity();
        if (to == token0 || to == token1) revert InvalidToAddress();
        (uint256 numerator, uint256 denominator) = _rate();
        uint256 valueBefore = _valueInToken1Scaled(reserve0, reserve1, numerator, denominator);
        if (amount0Out > 0) IERC20(token0).safeTransfer(to, amount0Out);
        if (amount1Out > 0) IERC20(token1).safeTransfer(to, amount1Out);
        uint256 balance0 = IERC20(token0).balanceOf(address(this));
        uint256 balance1 = IERC20(token1).balanceOf(address(this));
        uint256 amount0In = balance0 > reserve0 - amount0Out ? balance0 - (reserve0 - amount0Out) : 0;
        uint256 amount1In = balance1 > reserve1 - amount1Out ? balance1 - (reserve1 - amount1Out) : 0;
        if (amount0In == 0 && amount1In == 0) revert InsufficientInputAmount();
        uint256 totalFee = lpFee + protocolFee;
        uint256 fees = ((((amount0Out * totalFee) / (BASIS_POINTS_DENOMINATOR - totalFee)) * numerator * decimals1) / (denominator * decimals0) +
            (amount1Out * totalFee) / (BASIS_POINTS_DENOMINATOR - totalFee)) * (1e18 / decimals1);
        if (_valueInToken1Scaled(balance0, balance1, numerator, denominator) < valueBefore + fees) revert ReserveValueDecreased();
        if (protocolFee > 0) {
            if (amount0In > 0) IERC20(token0).safeTransfer(protocolFeeRecipient, (amount0In * protocolFee) / BASIS_POINTS_DENOMINATOR);
            if (amount1In > 0) IERC20(token1).safeTransfer(protocolFeeRecipient, (amount1In * protocolFee) / BASIS_POINTS_DENOMINATOR);
        }
        _update();
        _applyLimit(token0, amount0In, amount0Out, totalFee);
        _applyLimit(token1, amount1In, amount1Out, totalFee);
        emit Swap(msg.sender, amount0In, amount1In, amount0Out, amount1Out, to);
    }

    function _rate() private view returns (uint256 numerator, uint256 denominator) {
        (numerator, denominator) = oracleAdapter.getFXRateIfValid(referenceRateFeedID);
        if (invertRateFeed) (numerator, denominator) = (denominator, numerator);
    }

    function _valueInToken1Scaled(uint256 amount0, uint256 amount1, uint256 numerator, uint256 denominator) private view returns (uint256) {
        return (amount0 * numerator * 1e18) / (denominator * decimals0) + amount1 * (1e18 / decimals1);
    }

    function _update() private {
        reserve0 = IERC20(token0).balanceOf(address(this));
        reserve1 = IERC20(token1).balanceOf(address(this));
        blockTimestampLast = block.timestamp;
        emit UpdateReserves(reserve0, reserve1, block.timestamp);
    }

    function _applyLimit(address token, uint256 amountIn, uint256 amountOut, uint256 feeBps) private {
        LimitConfig memory config = _limitConfig[token];
        if (config.limit0 == 0 && config.limit1 == 0) return;
        uint256 scaledIn = (amountIn * 10 ** INTERNAL_DECIMALS) / 10 ** config.decimals;
        uint256 scaledOut = (amountOut * 10 ** INTERNAL_DECIMALS) / 10 ** config.decimals;
        scaledIn -= (scaledIn * feeBps) / BASIS_POINTS_DENOMINATOR;
        int96 delta = int96(int256(scaledIn) - int256(scaledOut));
        if (delta == 0) return;
        LimitState memory state = _limitState[token];
        if (config.limit0 > 0) {
            if (block.timestamp > state.lastUpdated0 + TIMESTEP0) (state.netflow0, state.lastUpdated0) = (0, uint32(block.timestamp));
            state.netflow0 += delta;
            if (state.netflow0 < -config.limit0 || state.netflow0 > config.limit0) revert L0LimitExceeded();
        }
        if (config.limit1 > 0) {
            if (block.timestamp > state.lastUpdated1 + TIMESTEP1) (state.netflow1, state.lastUpdated1) = (0, uint32(block.timestamp));
            state.netflow1 += delta;
            if (state.netflow1 < -config.limit1 || state.netflow1 > config.limit1) revert L1LimitExceeded();
        }
        _limitState[token] = state;
    }
}

/// Mento v3's FPMMFactory in the part routers read: the pools it deployed, each announced by the deployed factory's
/// four-field `FPMMDeployed`. The real factory deploys a proxy in front of an implementation; ours deploys the pool
/// itself, so both fields name it.
contract DevnetFPMMFactory {
    address public immutable owner;
    address public immutable oracleAdapter;
    address[] private _pools;

    event FPMMDeployed(address indexed token0, address indexed token1, address fpmmProxy, address fpmmImplementation);

    constructor(address oracleAdapter_) {
        owner = msg.sender;
        oracleAdapter = oracleAdapter_;
    }

    function deployFPMM(address token0, address token1, address rateFeed, bool invert, uint256 lpFee, uint256 protocolFee, address feeRecipient) external returns (address fpmm) {
        require(msg.sender == owner, "DevnetFPMMFactory: not the owner");
        fpmm = address(new DevnetFPMM(owner, token0, token1, oracleAdapter, rateFeed, invert, lpFee, protocolFee, feeRecipient));
        _pools.push(fpmm);
        emit FPMMDeployed(token0, token1, fpmm, fpmm);
    }

    function deployedFPMMAddresses() external view returns (address[] memory) {
        return _pools;
    }
}
