// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// An L2 sequencer uptime feed with the interface of Chainlink's (AggregatorV3Interface): `answer` 0 means the
/// sequencer is up, 1 that it is down, and `startedAt` is when that status began. The reporter sets the status,
/// as the L1 bridge does for the real feed; reporting the status it already has changes nothing.
contract DevnetSequencerUptimeFeed {
    uint8 public constant decimals = 0;
    string public constant description = "L2 Sequencer Uptime Status Feed";
    address public immutable reporter;
    uint80 public latestRound;
    int256 public status;
    uint256 public startedAt;

    constructor(address reporter_) {
        reporter = reporter_;
        latestRound = 1;
        startedAt = block.timestamp;
    }

    function report(int256 status_) external {
        require(msg.sender == reporter, "DevnetSequencerUptimeFeed: not the reporter");
        require(status_ == 0 || status_ == 1, "DevnetSequencerUptimeFeed: status is 0 (up) or 1 (down)");
        if (status_ == status) return;
        status = status_;
        startedAt = block.timestamp;
        latestRound += 1;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (latestRound, status, startedAt, startedAt, latestRound);
    }
}
