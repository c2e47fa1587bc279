// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Mento's SortedOracles as the daemon reads it: `medianRate(rateFeedId)` is (value, 1e24), the value being how
/// many of the feed's stable one unit of the asset is worth in Fixidity (1e24 = 1), or (0, 0) before any report;
/// `medianTimestamp` is when it was reported. The devnet has one reporter, so its report is the median.
contract DevnetSortedOracles {
    uint256 public constant FIXED1 = 1e24;
    address public immutable reporter;
    mapping(address => uint256) private _value;
    mapping(address => uint256) private _timestamp;

    event OracleReported(address indexed rateFeedId, uint256 value, uint256 timestamp);

    constructor(address reporter_) {
        reporter = reporter_;
    }

    function report(address rateFeedId, uint256 value) external {
        require(msg.sender == reporter, "DevnetSortedOracles: not the reporter");
        require(value > 0, "DevnetSortedOracles: value must be positive");
        _value[rateFeedId] = value;
        _timestamp[rateFeedId] = block.timestamp;
        emit OracleReported(rateFeedId, value, block.timestamp);
    }

    function medianRate(address rateFeedId) external view returns (uint256, uint256) {
        uint256 value = _value[rateFeedId];
        return (value, value == 0 ? 0 : FIXED1);
    }

    function medianTimestamp(address rateFeedId) external view returns (uint256) {
        return _timestamp[rateFeedId];
    }

    function numRates(address rateFeedId) external view returns (uint256) {
        return _value[rateFeedId] == 0 ? 0 : 1;
    }
}
