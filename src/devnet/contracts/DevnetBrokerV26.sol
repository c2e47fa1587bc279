// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IDevnetBrokerV22 {
    function getExchangeProviders() external view returns (address[] memory);
    function reserve() external view returns (address);
}

/// A Mento Broker of the v2.6 line in the parts exchange discovery reads, for tests, never deployed by the devnet
/// itself: its exchange providers, and each provider's Reserve (`exchangeReserve`), taken from a Broker of the v2.2
/// line that Celo runs. Like the v2.6 build it has no `reserve()`.
contract DevnetBrokerV26 {
    IDevnetBrokerV22 public immutable v22;

    constructor(IDevnetBrokerV22 v22_) {
        v22 = v22_;
    }

    function getExchangeProviders() external view returns (address[] memory) {
        return v22.getExchangeProviders();
    }

    function exchangeReserve(address) external view returns (address) {
        return v22.reserve();
    }
}
