// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Mento's SortedOracles as deployed on Celo (the equivalent-token version), in the parts the daemon reads:
/// `medianRate(rateFeedId)` is (value, 1e24), the value being how many of the feed's quote one unit of the asset is
/// worth in Fixidity (1e24 = 1), or (0, 0) before any report; `medianTimestamp` is when it was reported (0: never).
/// As on Celo, governance may map a rate feed to another (`setEquivalentToken`): `medianRate` then answers the other
/// feed's rate while `medianTimestamp` keeps answering the feed's own time; `medianRateWithoutEquivalentMapping`
/// answers the feed's own rate. Reports expire after the feed's expiry (or the default one), which only
/// `isOldestReportExpired` shows: the rate keeps answering. The devnet has one reporter, so its report is the median.
/// As Celo's, every report asks Mento's BreakerBox (once one is set) to check the feed's breakers, which may halt
/// Mento's trading on it while the rate keeps answering.
interface IDevnetBreakerBox {
    function checkAndSetBreakers(address rateFeedId) external;
}

contract DevnetSortedOracles {
    uint256 public constant FIXED1 = 1e24;
    address public immutable reporter;
    address public immutable owner;
    /// Celo's default report expiry: five minutes.
    uint256 public reportExpirySeconds = 5 minutes;
    mapping(address => uint256) public tokenReportExpirySeconds;
    mapping(address => uint256) private _value;
    mapping(address => uint256) private _timestamp;
    mapping(address => address) private _equivalentToken;
    address public breakerBox;

    event OracleReported(address indexed rateFeedId, uint256 value, uint256 timestamp);
    event EquivalentTokenSet(address indexed token, address indexed equivalentToken);
    event TokenReportExpirySet(address token, uint256 reportExpiry);
    event BreakerBoxUpdated(address indexed newBreakerBox);

    constructor(address reporter_) {
        reporter = reporter_;
        owner = msg.sender;
    }

    function report(address rateFeedId, uint256 value) external {
        require(msg.sender == reporter, "DevnetSortedOracles: not the reporter");
        require(value > 0, "DevnetSortedOracles: value must be positive");
        _value[rateFeedId] = value;
        _timestamp[rateFeedId] = block.timestamp;
        emit OracleReported(rateFeedId, value, block.timestamp);
        if (breakerBox != address(0)) IDevnetBreakerBox(breakerBox).checkAndSetBreakers(rateFeedId);
    }

    function setBreakerBox(address newBreakerBox) external {
        require(msg.sender == owner, "DevnetSortedOracles: not the owner");
        breakerBox = newBreakerBox;
        emit BreakerBoxUpdated(newBreakerBox);
    }

    function setEquivalentToken(address token, address equivalentToken) external {
        require(msg.sender == owner, "DevnetSortedOracles: not the owner");
        _equivalentToken[token] = equivalentToken;
        emit EquivalentTokenSet(token, equivalentToken);
    }

    function setTokenReportExpiry(address token, uint256 reportExpiry) external {
        require(msg.sender == owner, "DevnetSortedOracles: not the owner");
        tokenReportExpirySeconds[token] = reportExpiry;
        emit TokenReportExpirySet(token, reportExpiry);
    }

    function getEquivalentToken(address token) external view returns (address) {
        return _equivalentToken[token];
    }

    function medianRate(address rateFeedId) external view returns (uint256, uint256) {
        address equivalent = _equivalentToken[rateFeedId];
        return _rate(equivalent == address(0) ? rateFeedId : equivalent);
    }

    function medianRateWithoutEquivalentMapping(address rateFeedId) external view returns (uint256, uint256) {
        return _rate(rateFeedId);
    }

    function medianTimestamp(address rateFeedId) external view returns (uint256) {
        return _timestamp[rateFeedId];
    }

    /// The oracles allowed to report on a feed: the devnet's one reporter serves every feed (Mento's BreakerBox takes
    /// only feeds that have oracles).
    function getOracles(address) external view returns (address[] memory oracles) {
        oracles = new address[](1);
        oracles[0] = reporter;
    }

    /// Each oracle's last report time on a feed, newest first, with where it stands to the median (Celo's
    /// SortedLinkedListWithMedian.MedianRelation: 3 is the median itself): the one report here.
    function getTimestamps(address rateFeedId) external view returns (address[] memory oracles, uint256[] memory timestamps, uint8[] memory relations) {
        uint256 count = _timestamp[rateFeedId] == 0 ? 0 : 1;
        oracles = new address[](count);
        timestamps = new uint256[](count);
        relations = new uint8[](count);
        if (count == 1) {
            oracles[0] = reporter;
            timestamps[0] = _timestamp[rateFeedId];
            relations[0] = 3;
        }
    }

    function numRates(address rateFeedId) external view returns (uint256) {
        return _value[rateFeedId] == 0 ? 0 : 1;
    }

    function getTokenReportExpirySeconds(address token) public view returns (uint256) {
        uint256 own = tokenReportExpirySeconds[token];
        return own == 0 ? reportExpirySeconds : own;
    }

    function isOldestReportExpired(address token) external view returns (bool, address) {
        if (_timestamp[token] == 0) return (false, address(0));
        return (block.timestamp - _timestamp[token] >= getTokenReportExpirySeconds(token), reporter);
    }

    function _rate(address rateFeedId) private view returns (uint256, uint256) {
        uint256 value = _value[rateFeedId];
        return (value, value == 0 ? 0 : FIXED1);
    }
}
