// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A token/USD price feed with Chainlink's AggregatorV3Interface read side. The devnet's oracle reporter
/// writes the devnet world's market prices into it, as a real oracle network reports off-chain prices;
/// it never reads the devnet's own pools.
contract DevnetPriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;
    /// The only account whose reports count.
    address public immutable reporter;

    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(uint8 decimals_, string memory description_, address reporter_) {
        decimals = decimals_;
        description = description_;
        reporter = reporter_;
    }

    function report(int256 answer) external {
        require(msg.sender == reporter, "DevnetPriceFeed: not the reporter");
        require(answer > 0, "DevnetPriceFeed: answer must be positive");
        latestRound += 1;
        rounds[latestRound] = Round(answer, block.timestamp, block.timestamp);
        emit AnswerUpdated(answer, latestRound, block.timestamp);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        require(roundId != 0 && roundId <= latestRound, "DevnetPriceFeed: no data present");
        Round memory round = rounds[roundId];
        return (roundId, round.answer, round.startedAt, round.updatedAt, roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData(latestRound);
    }
}
