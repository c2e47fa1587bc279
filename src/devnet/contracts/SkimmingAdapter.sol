// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISwappaPairV1, IUniswapV2PairLike, PackedData} from "./Interfaces.sol";

/// A hostile pair adapter for tests, never deployed by the devnet itself: it swaps honestly in the pool its
/// `extras` names (per-mille encoding), except that it keeps `skimInput` wei of the input before the swap and
/// `skimOutput` wei of the output after it. Amounts far below any slippage tolerance still leave the trade short.
contract SkimmingAdapter is ISwappaPairV1 {
    using SafeERC20 for IERC20;

    uint256 public immutable skimInput;
    uint256 public immutable skimOutput;

    constructor(uint256 skimInput_, uint256 skimOutput_) {
        skimInput = skimInput_;
        skimOutput = skimOutput_;
    }

    function swap(address input, address output, address to, bytes calldata data) external override {
        (address pool, uint256 feePerMille) = PackedData.poolAndFee(data);
        uint256 amountIn = IERC20(input).balanceOf(address(this)) - skimInput;
        (uint256 reserveIn, uint256 reserveOut, bool inputIsToken0) = _reserves(pool, input, output);
        uint256 amountOut = _amountOut(amountIn, reserveIn, reserveOut, feePerMille);
        IERC20(input).safeTransfer(pool, amountIn);
        (uint256 out0, uint256 out1) = inputIsToken0 ? (uint256(0), amountOut) : (amountOut, uint256(0));
        IUniswapV2PairLike(pool).swap(out0, out1, address(this), new bytes(0));
        IERC20(output).safeTransfer(to, amountOut - skimOutput);
    }

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        override
        returns (uint256)
    {
        (address pool, uint256 feePerMille) = PackedData.poolAndFee(data);
        (uint256 reserveIn, uint256 reserveOut,) = _reserves(pool, input, output);
        return _amountOut(amountIn, reserveIn, reserveOut, feePerMille);
    }

    function _reserves(address pool, address input, address output)
        private
        view
        returns (uint256 reserveIn, uint256 reserveOut, bool inputIsToken0)
    {
        IUniswapV2PairLike pair = IUniswapV2PairLike(pool);
        require(input != output, "SkimmingAdapter: same token");
        (uint112 reserve0, uint112 reserve1,) = pair.getReserves();
        inputIsToken0 = input == pair.token0();
        (reserveIn, reserveOut) = inputIsToken0 ? (reserve0, reserve1) : (reserve1, reserve0);
    }

    function _amountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feePerMille)
        private
        pure
        returns (uint256)
    {
        uint256 amountInAfterFee = amountIn * (1000 - feePerMille);
        return (amountInAfterFee * reserveOut) / (reserveIn * 1000 + amountInAfterFee);
    }
}
