// SPDX-License-Identifier: MIT
pragma solidity =0.7.6;

import '@uniswap/v3-core/contracts/interfaces/IERC20Minimal.sol';
import '@uniswap/v3-core/contracts/interfaces/IUniswapV3Pool.sol';
import '@uniswap/v3-core/contracts/interfaces/callback/IUniswapV3MintCallback.sol';

/// The devnet's liquidity provider for Uniswap V3 pools: owns the positions it mints and pays for them from its own
/// balance (the deployer mints tokens to it first). A position manager's job, without the NFT.
contract V3LiquidityProvider is IUniswapV3MintCallback {
    address private immutable owner;
    // The pool whose mint is in progress: only it may ask to be paid.
    address private minting;

    constructor() {
        owner = msg.sender;
    }

    function mint(IUniswapV3Pool pool, int24 tickLower, int24 tickUpper, uint128 amount) external {
        require(msg.sender == owner, 'V3LiquidityProvider: not the owner');
        minting = address(pool);
        pool.mint(address(this), tickLower, tickUpper, amount, '');
        minting = address(0);
    }

    /// Removes liquidity from a position and sends what it frees to the owner.
    function burn(IUniswapV3Pool pool, int24 tickLower, int24 tickUpper, uint128 amount) external {
        require(msg.sender == owner, 'V3LiquidityProvider: not the owner');
        pool.burn(tickLower, tickUpper, amount);
        pool.collect(owner, tickLower, tickUpper, type(uint128).max, type(uint128).max);
    }

    function uniswapV3MintCallback(uint256 amount0Owed, uint256 amount1Owed, bytes calldata) external override {
        require(msg.sender == minting && msg.sender != address(0), 'V3LiquidityProvider: not the pool minting');
        IUniswapV3Pool pool = IUniswapV3Pool(msg.sender);
        if (amount0Owed > 0) require(IERC20Minimal(pool.token0()).transfer(msg.sender, amount0Owed), 'V3LiquidityProvider: transfer failed');
        if (amount1Owed > 0) require(IERC20Minimal(pool.token1()).transfer(msg.sender, amount1Owed), 'V3LiquidityProvider: transfer failed');
    }
}
