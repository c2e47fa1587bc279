// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISwappaPairV1} from "./Interfaces.sol";

/// A hostile pair adapter for tests, never deployed by the devnet itself: it swaps honestly through `honest` (an
/// adapter of the same `extras`), keeping nothing, but its `getOutputAmount` promises `bonusBps` more than that
/// swap pays: a quote within any slippage tolerance, which would lift the reference and the minimum it sets.
contract OverQuotingAdapter is ISwappaPairV1 {
    using SafeERC20 for IERC20;

    ISwappaPairV1 public immutable honest;
    uint256 public immutable bonusBps;

    constructor(ISwappaPairV1 honest_, uint256 bonusBps_) {
        honest = honest_;
        bonusBps = bonusBps_;
    }

    function swap(address input, address output, address to, bytes calldata data) external override {
        IERC20(input).safeTransfer(address(honest), IERC20(input).balanceOf(address(this)));
        honest.swap(input, output, to, data);
    }

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        override
        returns (uint256)
    {
        return (honest.getOutputAmount(input, output, amountIn, data) * (10_000 + bonusBps)) / 10_000;
    }
}
