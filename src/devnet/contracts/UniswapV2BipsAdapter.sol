// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISwappaPairV1, IUniswapV2PairLike} from "./Interfaces.sol";

/// A second pair adapter for Uniswap V2 pools, of the other encoding found on Celo: `extras` is the pool
/// (20 bytes) and its fee in basis points (1 byte, 0.3% = 30), where the first adapter reads per mille.
/// The devnet's routing service routes some pools through it, and the devnet's address book does not list it:
/// the daemon accepts its routes by what their simulated token flows show, as it must on the real network.
contract UniswapV2BipsAdapter is ISwappaPairV1 {
    using SafeERC20 for IERC20;

    function swap(address input, address output, address to, bytes calldata data) external override {
        (address pool, uint256 feeBips) = _poolAndFee(data);
        uint256 amountIn = IERC20(input).balanceOf(address(this));
        (uint256 reserveIn, uint256 reserveOut, bool inputIsToken0) = _reserves(pool, input, output);
        uint256 amountOut = _amountOut(amountIn, reserveIn, reserveOut, feeBips);
        IERC20(input).safeTransfer(pool, amountIn);
        (uint256 out0, uint256 out1) = inputIsToken0 ? (uint256(0), amountOut) : (amountOut, uint256(0));
        IUniswapV2PairLike(pool).swap(out0, out1, to, new bytes(0));
    }

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        override
        returns (uint256)
    {
        (address pool, uint256 feeBips) = _poolAndFee(data);
        (uint256 reserveIn, uint256 reserveOut,) = _reserves(pool, input, output);
        return _amountOut(amountIn, reserveIn, reserveOut, feeBips);
    }

    function _poolAndFee(bytes calldata data) private pure returns (address pool, uint256 feeBips) {
        require(data.length == 21, "UniswapV2BipsAdapter: extras must be 21 bytes");
        pool = address(bytes20(data[0:20]));
        feeBips = uint8(data[20]);
    }

    function _reserves(address pool, address input, address output)
        private
        view
        returns (uint256 reserveIn, uint256 reserveOut, bool inputIsToken0)
    {
        IUniswapV2PairLike pair = IUniswapV2PairLike(pool);
        address token0 = pair.token0();
        require(
            (input == token0 && output == pair.token1()) || (input == pair.token1() && output == token0),
            "UniswapV2BipsAdapter: tokens do not match the pool"
        );
        (uint112 reserve0, uint112 reserve1,) = pair.getReserves();
        inputIsToken0 = input == token0;
        (reserveIn, reserveOut) = inputIsToken0 ? (reserve0, reserve1) : (reserve1, reserve0);
    }

    function _amountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feeBips)
        private
        pure
        returns (uint256)
    {
        if (amountIn == 0 || reserveIn == 0 || reserveOut == 0) return 0;
        uint256 amountInAfterFee = amountIn * (10000 - feeBips);
        return (amountInAfterFee * reserveOut) / (reserveIn * 10000 + amountInAfterFee);
    }
}
