// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IFarm, IUniswapV2PairLike, PackedData} from "./Interfaces.sol";
import {StakingGauge} from "./StakingGauge.sol";

/// Adds and removes Uniswap V2 liquidity using whatever token balances the farm holds.
abstract contract V2LiquidityFarmBase is IFarm {
    using SafeERC20 for IERC20;

    /// Adds as much of both balances as the pool's ratio allows, mints LP to `lpRecipient`
    /// and returns what is left of either token to `leftoverRecipient`.
    function _addLiquidity(IUniswapV2PairLike pair, address lpRecipient, address leftoverRecipient)
        internal
        returns (uint256 liquidity)
    {
        IERC20 token0 = IERC20(pair.token0());
        IERC20 token1 = IERC20(pair.token1());
        uint256 balance0 = token0.balanceOf(address(this));
        uint256 balance1 = token1.balanceOf(address(this));
        (uint256 reserve0, uint256 reserve1,) = pair.getReserves();

        (uint256 amount0, uint256 amount1) = (balance0, balance1);
        if (reserve0 > 0 && reserve1 > 0) {
            uint256 matching1 = (balance0 * reserve1) / reserve0;
            if (matching1 <= balance1) {
                amount1 = matching1;
            } else {
                amount0 = (balance1 * reserve0) / reserve1;
            }
        }
        token0.safeTransfer(address(pair), amount0);
        token1.safeTransfer(address(pair), amount1);
        liquidity = pair.mint(lpRecipient);

        if (balance0 > amount0) token0.safeTransfer(leftoverRecipient, balance0 - amount0);
        if (balance1 > amount1) token1.safeTransfer(leftoverRecipient, balance1 - amount1);
    }

    /// Burns all the LP tokens of `pair` the farm holds, paying both underlyings to `to`.
    function _removeLiquidity(IUniswapV2PairLike pair, address to) internal {
        uint256 lpBalance = IERC20(address(pair)).balanceOf(address(this));
        require(lpBalance > 0, "Farm: nothing to withdraw");
        IERC20(address(pair)).safeTransfer(address(pair), lpBalance);
        pair.burn(to);
    }
}

/// IFarm for a plain Uniswap V2 pool. `data` = pool (20 bytes) ‖ fee per-mille (1 byte), as on the real network.
contract UniswapV2Farm is V2LiquidityFarmBase {
    function deposit(uint256 minExpected, address to, bytes calldata data) external returns (uint256 liquidity) {
        (address pool,) = PackedData.poolAndFee(data);
        liquidity = _addLiquidity(IUniswapV2PairLike(pool), to, to);
        require(liquidity >= minExpected, "Farm: insufficient liquidity minted");
    }

    function withdraw(address to, bytes calldata data) external {
        (address pool,) = PackedData.poolAndFee(data);
        _removeLiquidity(IUniswapV2PairLike(pool), to);
    }
}

/// IFarm for a Uniswap V2 pool whose LP is staked in a StakingGauge. `data` = pool (20) ‖ gauge (20),
/// the shape of the real network's StableSwap farm. Deposit stakes the new LP; the gauge token goes to `to`.
contract GaugeFarm is V2LiquidityFarmBase {
    using SafeERC20 for IERC20;

    function deposit(uint256 minExpected, address to, bytes calldata data) external returns (uint256 liquidity) {
        (address pool, address gauge) = PackedData.poolAndGauge(data);
        require(address(StakingGauge(gauge).stakingToken()) == pool, "Farm: gauge does not stake this pool");
        liquidity = _addLiquidity(IUniswapV2PairLike(pool), address(this), to);
        require(liquidity >= minExpected, "Farm: insufficient liquidity minted");
        IERC20(pool).forceApprove(gauge, liquidity);
        StakingGauge(gauge).deposit(liquidity, to);
    }

    /// Unstakes every gauge token the farm holds, then burns the LP, paying the underlyings to `to`.
    function withdraw(address to, bytes calldata data) external {
        (address pool, address gauge) = PackedData.poolAndGauge(data);
        require(address(StakingGauge(gauge).stakingToken()) == pool, "Farm: gauge does not stake this pool");
        uint256 staked = IERC20(gauge).balanceOf(address(this));
        require(staked > 0, "Farm: nothing to withdraw");
        StakingGauge(gauge).withdraw(staked);
        _removeLiquidity(IUniswapV2PairLike(pool), to);
    }
}
