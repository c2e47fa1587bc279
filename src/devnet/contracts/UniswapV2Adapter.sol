// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISwappaPairV1, IUniswapV2PairLike, PackedData} from "./Interfaces.sol";

/// Pair adapter for Uniswap V2 pools. One adapter serves every pool: `extras` names the pool
/// (20 bytes) and its fee in per-mille (1 byte), as on the real network.
contract UniswapV2Adapter is ISwappaPairV1 {
    using SafeERC20 for IERC20;

    /// Swaps the adapter's whole balance of `input` and sends the pool's output to `to`.
    function swap(address input, address output, address to, bytes calldata data) external override {
        (address pool, uint256 feePerMille) = PackedData.poolAndFee(data);
        IERC20(input).safeTransfer(pool, IERC20(input).balanceOf(address(this)));

        IUniswapV2PairLike pair = IUniswapV2PairLike(pool);
        (uint256 reserveIn, uint256 reserveOut, bool inputIsToken0) = _reserves(pair, input, output);
        // What the pool received, measured rather than assumed, so the output is exactly what it owes.
        uint256 amountIn = IERC20(input).balanceOf(pool) - reserveIn;
        uint256 amountOut = _amountOut(amountIn, reserveIn, reserveOut, feePerMille);
        if (inputIsToken0) {
            pair.swap(0, amountOut, to, new bytes(0));
        } else {
            pair.swap(amountOut, 0, to, new bytes(0));
        }
    }

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        override
        returns (uint256)
    {
        (address pool, uint256 feePerMille) = PackedData.poolAndFee(data);
        (uint256 reserveIn, uint256 reserveOut,) = _reserves(IUniswapV2PairLike(pool), input, output);
        return _amountOut(amountIn, reserveIn, reserveOut, feePerMille);
    }

    function _reserves(IUniswapV2PairLike pair, address input, address output)
        private
        view
        returns (uint256 reserveIn, uint256 reserveOut, bool inputIsToken0)
    {
        address token0 = pair.token0();
        address token1 = pair.token1();
        require(
            (input == token0 && output == token1) || (input == token1 && output == token0),
            "UniswapV2Adapter: tokens do not match the pool"
        );
        (uint112 reserve0, uint112 reserve1,) = pair.getReserves();
        inputIsToken0 = input == token0;
        (reserveIn, reserveOut) = inputIsToken0 ? (reserve0, reserve1) : (reserve1, reserve0);
    }

    function _amountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePerMille)
        private
        pure
        returns (uint256)
    {
        if (amountIn == 0 || reserveIn == 0 || reserveOut == 0) return 0;
        uint256 amountInAfterFee = amountIn * (1000 - feePerMille);
        return (amountInAfterFee * reserveOut) / (reserveIn * 1000 + amountInAfterFee);
    }
}
