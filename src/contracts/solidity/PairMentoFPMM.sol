// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// Mento v3's fixed-price pool, in the part a swap through it uses (mento-core `contracts/swap/router/interfaces/IRPool.sol`).
interface IFPMMPool {
    function token0() external view returns (address);
    function getAmountOut(uint256 amountIn, address tokenIn) external view returns (uint256);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

/// A pair adapter (ISwappaPairV1: `swap`, `getOutputAmount`) for Mento v3's fixed-price pools, of which none is
/// published; extras are the pool (20 bytes). `swap` sends the pool all of `input` the router sent here, takes the
/// pool's own quote of it out to `to`, and keeps nothing: it holds no allowance and trusts no caller (whoever calls it
/// gets what they sent it, at the pool's price). A user deploys it from their own wallet (`routekeeper`'s command).
contract PairMentoFPMM {
    using SafeERC20 for IERC20;

    function swap(address input, address output, address to, bytes calldata data) external {
        IFPMMPool pool = IFPMMPool(_pool(data));
        uint256 amountIn = IERC20(input).balanceOf(address(this));
        uint256 amountOut = pool.getAmountOut(amountIn, input);
        IERC20(input).safeTransfer(address(pool), amountIn);
        if (pool.token0() == output) pool.swap(amountOut, 0, to, "");
        else pool.swap(0, amountOut, to, "");
    }

    function getOutputAmount(address input, address, uint256 amountIn, bytes calldata data) external view returns (uint256) {
        return IFPMMPool(_pool(data)).getAmountOut(amountIn, input);
    }

    function _pool(bytes calldata data) private pure returns (address) {
        require(data.length == 20, "PairMentoFPMM: extras are the pool (20 bytes)");
        return address(bytes20(data));
    }
}
