// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The payload of the real router's `swapExactInputForOutput` (selector 0x9acc65a9).
/// A `/routes` answer's `details` is this struct without `minOutputAmount` and `to`.
struct SwapPayload {
    address[] path;
    address[] pairs;
    bytes[] extras;
    uint256 inputAmount;
    uint256 minOutputAmount;
    uint256 expectedOutputAmount;
    address to;
    uint256 deadline;
    uint256 partner;
    bytes sig;
}

interface IRouter {
    function swapExactInputForOutput(SwapPayload calldata details) external returns (uint256 outputAmount);
}

/// The pair adapter interface the router calls for each hop.
interface ISwappaPairV1 {
    function swap(address input, address output, address to, bytes calldata data) external;

    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        view
        returns (uint256 amountOut);
}

/// What OneClickFarm calls once the input tokens sit in the farm.
interface IFarm {
    function deposit(uint256 minExpected, address to, bytes calldata data) external returns (uint256 liquidity);

    function withdraw(address to, bytes calldata data) external;
}

/// The part of a Uniswap V2 pair the devnet contracts use.
interface IUniswapV2PairLike {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function mint(address to) external returns (uint256 liquidity);
    function burn(address to) external returns (uint256 amount0, uint256 amount1);
}

/// Reads the 21-byte Uniswap V2 adapter extras (pool ‖ fee per-mille) and 40-byte gauge farm data (pool ‖ gauge).
library PackedData {
    function poolAndFee(bytes calldata data) internal pure returns (address pool, uint256 feePerMille) {
        require(data.length == 21, "PackedData: extras must be 21 bytes");
        pool = address(bytes20(data[0:20]));
        feePerMille = uint8(data[20]);
        require(feePerMille < 1000, "PackedData: fee out of range");
    }

    function poolOnly(bytes calldata data) internal pure returns (address pool) {
        require(data.length >= 20, "PackedData: missing pool address");
        pool = address(bytes20(data[0:20]));
    }

    function poolAndGauge(bytes calldata data) internal pure returns (address pool, address gauge) {
        require(data.length == 40, "PackedData: farm data must be 40 bytes");
        pool = address(bytes20(data[0:20]));
        gauge = address(bytes20(data[20:40]));
    }
}
