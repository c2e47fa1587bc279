// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// Uniswap V3's NonfungiblePositionManager, in the part a move uses (v3-periphery `INonfungiblePositionManager`).
interface IPositionManager {
    struct DecreaseLiquidityParams {
        uint256 tokenId;
        uint128 liquidity;
        uint256 amount0Min;
        uint256 amount1Min;
        uint256 deadline;
    }

    struct CollectParams {
        uint256 tokenId;
        address recipient;
        uint128 amount0Max;
        uint128 amount1Max;
    }

    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    function positions(uint256 tokenId)
        external
        view
        returns (uint96, address, address token0, address token1, uint24 fee, int24, int24, uint128, uint256, uint256, uint128, uint128);
    function decreaseLiquidity(DecreaseLiquidityParams calldata params) external payable returns (uint256 amount0, uint256 amount1);
    function collect(CollectParams calldata params) external payable returns (uint256 amount0, uint256 amount1);
    function mint(MintParams calldata params) external payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    function burn(uint256 tokenId) external payable;
    function transferFrom(address from, address to, uint256 tokenId) external;
}

/// The router's swap (its `SwapPayload`, as `docs` and `src/contracts/payload.ts` describe it).
interface IRouter {
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

    function swapExactInputForOutput(SwapPayload calldata details) external returns (uint256 outputAmount);
}

/// Moves a Uniswap V3 position in one transaction, all or nothing: its owner sends the NFT here with the position
/// manager's `safeTransferFrom(owner, mover, tokenId, move)`, and in the callback the mover removes `liquidity`,
/// collects everything owed, sells `swap.inputAmount` of one of the pair through the router (optional), mints a new
/// range of the same pool to the owner from all it then holds (optional: an exit mints nothing), gives the old NFT
/// back (or burns it, emptied) and sends the owner every token it has left. Any step short of its minimum reverts the
/// whole transaction. It needs no approval of anyone and keeps nothing between calls: whoever sends it an NFT gets
/// that NFT's tokens back; a caller who is no position manager moves only what that caller holds itself.
/// The events `Removed` and `Swapped` mark where each phase's token movements end, for whoever reads the logs.
contract V3RangeMover {
    using SafeERC20 for IERC20;

    struct Move {
        /// Liquidity to remove, and the least each token it must pay (fees owed come on top).
        uint128 liquidity;
        uint256 amount0Min;
        uint256 amount1Min;
        uint256 deadline;
        /// No swap when zero; otherwise the router, and its payload (`to` is set to the mover; path[0] is sold).
        address router;
        IRouter.SwapPayload swap;
        /// Sell all the mover holds of path[0] (an exit into one token), at least `swap.inputAmount`; else exactly that.
        bool sellAll;
        /// Mint a new range of the same pool from all the mover holds, to the owner, with these minimums.
        bool mint;
        int24 tickLower;
        int24 tickUpper;
        uint256 mint0Min;
        uint256 mint1Min;
        /// Burn the emptied NFT instead of giving it back.
        bool burn;
    }

    event Removed(uint256 indexed tokenId, uint256 amount0, uint256 amount1);
    event Swapped(address indexed sold, uint256 amountIn, uint256 amountOut);
    event Moved(
        address indexed owner, uint256 indexed tokenId, uint256 newTokenId, uint128 liquidity, uint256 added0, uint256 added1, uint256 returned0, uint256 returned1
    );

    bool private moving;

    function onERC721Received(address, address from, uint256 tokenId, bytes calldata data) external returns (bytes4) {
        require(!moving, "V3RangeMover: a move is under way");
        moving = true;
        IPositionManager manager = IPositionManager(msg.sender);
        Move memory move = abi.decode(data, (Move));
        (,, address token0, address token1, uint24 fee,,,,,,,) = manager.positions(tokenId);

        _remove(manager, tokenId, move);
        if (move.router != address(0)) _swap(token0, token1, move);

        uint256 newTokenId;
        uint128 added;
        uint256 added0;
        uint256 added1;
        if (move.mint) (newTokenId, added, added0, added1) = _mint(manager, token0, token1, fee, from, move);

        if (move.burn) manager.burn(tokenId);
        else manager.transferFrom(address(this), from, tokenId);

        uint256 returned0 = IERC20(token0).balanceOf(address(this));
        uint256 returned1 = IERC20(token1).balanceOf(address(this));
        if (returned0 > 0) IERC20(token0).safeTransfer(from, returned0);
        if (returned1 > 0) IERC20(token1).safeTransfer(from, returned1);
        emit Moved(from, tokenId, newTokenId, added, added0, added1, returned0, returned1);
        moving = false;
        return this.onERC721Received.selector;
    }

    function _remove(IPositionManager manager, uint256 tokenId, Move memory move) private {
        if (move.liquidity > 0) {
            manager.decreaseLiquidity(
                IPositionManager.DecreaseLiquidityParams(tokenId, move.liquidity, move.amount0Min, move.amount1Min, move.deadline)
            );
        }
        (uint256 amount0, uint256 amount1) =
            manager.collect(IPositionManager.CollectParams(tokenId, address(this), type(uint128).max, type(uint128).max));
        emit Removed(tokenId, amount0, amount1);
    }

    function _swap(address token0, address token1, Move memory move) private {
        IRouter.SwapPayload memory payload = move.swap;
        address sold = payload.path[0];
        address bought = payload.path[payload.path.length - 1];
        require(
            (sold == token0 && bought == token1) || (sold == token1 && bought == token0), "V3RangeMover: the swap is not between the position's tokens"
        );
        payload.to = address(this);
        if (move.sellAll) {
            uint256 held = IERC20(sold).balanceOf(address(this));
            require(held >= payload.inputAmount, "V3RangeMover: holds less than the swap's amount");
            payload.inputAmount = held;
        }
        uint256 before = IERC20(bought).balanceOf(address(this));
        IERC20(sold).forceApprove(move.router, payload.inputAmount);
        IRouter(move.router).swapExactInputForOutput(payload);
        IERC20(sold).forceApprove(move.router, 0);
        uint256 amountOut = IERC20(bought).balanceOf(address(this)) - before;
        require(amountOut >= payload.minOutputAmount, "V3RangeMover: the swap paid less than its minimum");
        emit Swapped(sold, payload.inputAmount, amountOut);
    }

    function _mint(IPositionManager manager, address token0, address token1, uint24 fee, address owner, Move memory move)
        private
        returns (uint256 newTokenId, uint128 liquidity, uint256 amount0, uint256 amount1)
    {
        uint256 held0 = IERC20(token0).balanceOf(address(this));
        uint256 held1 = IERC20(token1).balanceOf(address(this));
        IERC20(token0).forceApprove(address(manager), held0);
        IERC20(token1).forceApprove(address(manager), held1);
        (newTokenId, liquidity, amount0, amount1) = manager.mint(
            IPositionManager.MintParams(
                token0, token1, fee, move.tickLower, move.tickUpper, held0, held1, move.mint0Min, move.mint1Min, owner, move.deadline
            )
        );
        IERC20(token0).forceApprove(address(manager), 0);
        IERC20(token1).forceApprove(address(manager), 0);
    }
}
