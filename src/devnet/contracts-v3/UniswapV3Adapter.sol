// SPDX-License-Identifier: MIT
pragma solidity =0.7.6;
pragma abicoder v2;

import '@uniswap/v3-core/contracts/interfaces/IERC20Minimal.sol';
import '@uniswap/v3-core/contracts/interfaces/IUniswapV3Pool.sol';
import '@uniswap/v3-core/contracts/interfaces/callback/IUniswapV3SwapCallback.sol';
import '@uniswap/v3-core/contracts/libraries/BitMath.sol';
import '@uniswap/v3-core/contracts/libraries/LiquidityMath.sol';
import '@uniswap/v3-core/contracts/libraries/SafeCast.sol';
import '@uniswap/v3-core/contracts/libraries/SwapMath.sol';
import '@uniswap/v3-core/contracts/libraries/TickMath.sol';

/// The pair adapter interface the router calls for each hop (as in the devnet's 0.8 sources).
interface ISwappaPairV1 {
    function swap(address input, address output, address to, bytes calldata data) external;

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        returns (uint256 amountOut);
}

/// A pair adapter for Uniswap V3 pools. `extras` is the pool's address (20 bytes), as in Swappa's and Minima's
/// PairUniswapV3. `swap` sells the adapter's whole balance of `input` in the pool, paying the pool from the
/// callback; `getOutputAmount` is a view that walks the pool's initialized ticks with Uniswap's own libraries
/// (TickMath, SwapMath, LiquidityMath), so it answers what `swap` pays, to the wei, without changing any state.
contract UniswapV3Adapter is ISwappaPairV1, IUniswapV3SwapCallback {
    // The pool whose swap is in progress: only it may ask to be paid.
    address private swapping;

    function swap(address input, address output, address to, bytes calldata data) external override {
        IUniswapV3Pool pool = IUniswapV3Pool(poolOf(data));
        bool zeroForOne = directionOf(pool, input, output);
        uint256 amountIn = IERC20Minimal(input).balanceOf(address(this));
        swapping = address(pool);
        pool.swap(
            to,
            zeroForOne,
            SafeCast.toInt256(amountIn),
            zeroForOne ? TickMath.MIN_SQRT_RATIO + 1 : TickMath.MAX_SQRT_RATIO - 1,
            ''
        );
        swapping = address(0);
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external override {
        require(msg.sender == swapping && msg.sender != address(0), 'UniswapV3Adapter: not the pool swapping');
        IUniswapV3Pool pool = IUniswapV3Pool(msg.sender);
        if (amount0Delta > 0) {
            require(IERC20Minimal(pool.token0()).transfer(msg.sender, uint256(amount0Delta)), 'UniswapV3Adapter: transfer failed');
        } else if (amount1Delta > 0) {
            require(IERC20Minimal(pool.token1()).transfer(msg.sender, uint256(amount1Delta)), 'UniswapV3Adapter: transfer failed');
        }
    }

    /// A quote's state as the pool's swap loop keeps it.
    struct Walk {
        IUniswapV3Pool pool;
        bool zeroForOne;
        int24 spacing;
        uint24 fee;
        uint160 limit;
        uint160 sqrtPriceX96;
        int24 tick;
        uint128 liquidity;
        int256 remaining;
        uint256 amountOut;
    }

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        override
        returns (uint256)
    {
        Walk memory walk;
        walk.pool = IUniswapV3Pool(poolOf(data));
        walk.zeroForOne = directionOf(walk.pool, input, output);
        (walk.sqrtPriceX96, walk.tick, , , , , ) = walk.pool.slot0();
        walk.liquidity = walk.pool.liquidity();
        walk.spacing = walk.pool.tickSpacing();
        walk.fee = walk.pool.fee();
        walk.limit = walk.zeroForOne ? TickMath.MIN_SQRT_RATIO + 1 : TickMath.MAX_SQRT_RATIO - 1;
        walk.remaining = SafeCast.toInt256(amountIn);
        // The pool's own exact-input loop, step for step: up to the next initialized tick (or the end of its bitmap
        // word), crossing it when reached.
        while (walk.remaining != 0 && walk.sqrtPriceX96 != walk.limit) step(walk);
        return walk.amountOut;
    }

    function step(Walk memory walk) private view {
        (int24 tickNext, bool initialized) = nextInitializedTick(walk.pool, walk.tick, walk.spacing, walk.zeroForOne);
        if (tickNext < TickMath.MIN_TICK) tickNext = TickMath.MIN_TICK;
        else if (tickNext > TickMath.MAX_TICK) tickNext = TickMath.MAX_TICK;
        uint160 sqrtNext = TickMath.getSqrtRatioAtTick(tickNext);
        uint160 sqrtStart = walk.sqrtPriceX96;
        uint256 stepIn;
        uint256 stepOut;
        uint256 stepFee;
        (walk.sqrtPriceX96, stepIn, stepOut, stepFee) = SwapMath.computeSwapStep(
            sqrtStart,
            (walk.zeroForOne ? sqrtNext < walk.limit : sqrtNext > walk.limit) ? walk.limit : sqrtNext,
            walk.liquidity,
            walk.remaining,
            walk.fee
        );
        walk.remaining -= SafeCast.toInt256(stepIn + stepFee);
        walk.amountOut += stepOut;
        if (walk.sqrtPriceX96 == sqrtNext) {
            if (initialized) {
                (, int128 liquidityNet, , , , , , ) = walk.pool.ticks(tickNext);
                walk.liquidity = LiquidityMath.addDelta(walk.liquidity, walk.zeroForOne ? -liquidityNet : liquidityNet);
            }
            walk.tick = walk.zeroForOne ? tickNext - 1 : tickNext;
        } else if (walk.sqrtPriceX96 != sqrtStart) {
            walk.tick = TickMath.getTickAtSqrtRatio(walk.sqrtPriceX96);
        }
    }

    /// The sqrt price at a tick as the pools compute it (for tests that hold other implementations to it).
    function sqrtRatioAtTick(int24 tick) external pure returns (uint160) {
        return TickMath.getSqrtRatioAtTick(tick);
    }

    /// The next initialized tick at or below (`lte`) or above the current one, within one word of the pool's bitmap
    /// (or that word's last tick when none is): TickBitmap's search, over the pool's public `tickBitmap`.
    function nextInitializedTick(IUniswapV3Pool pool, int24 tick, int24 spacing, bool lte)
        private
        view
        returns (int24 next, bool initialized)
    {
        int24 compressed = tick / spacing;
        if (tick < 0 && tick % spacing != 0) compressed--;
        if (lte) {
            int16 wordPos = int16(compressed >> 8);
            uint8 bitPos = uint8(compressed % 256);
            uint256 masked = pool.tickBitmap(wordPos) & ((1 << bitPos) - 1 + (1 << bitPos));
            initialized = masked != 0;
            next = initialized
                ? (compressed - int24(bitPos - BitMath.mostSignificantBit(masked))) * spacing
                : (compressed - int24(bitPos)) * spacing;
        } else {
            int16 wordPos = int16((compressed + 1) >> 8);
            uint8 bitPos = uint8((compressed + 1) % 256);
            uint256 masked = pool.tickBitmap(wordPos) & ~((1 << bitPos) - 1);
            initialized = masked != 0;
            next = initialized
                ? (compressed + 1 + int24(BitMath.leastSignificantBit(masked) - bitPos)) * spacing
                : (compressed + 1 + int24(type(uint8).max - bitPos)) * spacing;
        }
    }

    function directionOf(IUniswapV3Pool pool, address input, address output) private view returns (bool zeroForOne) {
        address token0 = pool.token0();
        address token1 = pool.token1();
        require((input == token0 && output == token1) || (input == token1 && output == token0), "UniswapV3Adapter: not the pool's tokens");
        return input == token0;
    }

    function poolOf(bytes calldata data) private pure returns (address pool) {
        require(data.length == 20, 'UniswapV3Adapter: extras must be the pool (20 bytes)');
        bytes memory copy = data;
        assembly {
            pool := mload(add(copy, 20))
        }
    }
}
