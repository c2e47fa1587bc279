// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IFarm, IRouter, SwapPayload} from "./Interfaces.sol";

/// Enters and leaves an LP or gauge position in one transaction.
/// `oneClickDeposit` has exactly the real network's interface (selector 0x887cdfbe).
/// `oneClickWithdraw` is routekeeper's own design: no public one-transaction withdraw exists.
contract OneClickFarm is ReentrancyGuard {
    using SafeERC20 for IERC20;

    event OneClickWithdraw(
        address indexed sender, address indexed positionToken, uint256 amount, address tokenOut, uint256 amountOut, address to
    );

    /// For each route: a one-token path moves the token from the caller straight to `depositPairAddr`;
    /// any other path is pulled here and swapped through `router` with the output sent to `depositPairAddr`.
    /// Then the farm turns what it holds into the position, minted to `to`.
    function oneClickDeposit(
        SwapPayload[] calldata details,
        address router,
        address depositPairAddr,
        uint256 minExpected,
        address to,
        bytes calldata data
    ) external nonReentrant returns (uint256 liquidity) {
        for (uint256 i = 0; i < details.length; i++) {
            SwapPayload calldata route = details[i];
            if (route.path.length == 1) {
                IERC20(route.path[0]).safeTransferFrom(msg.sender, depositPairAddr, route.inputAmount);
            } else {
                IERC20(route.path[0]).safeTransferFrom(msg.sender, address(this), route.inputAmount);
                _swap(route, router, route.inputAmount, depositPairAddr);
            }
        }
        liquidity = IFarm(depositPairAddr).deposit(minExpected, to, data);
    }

    /// Pulls `amount` of `positionToken` (an LP or gauge token) from the caller into `farm`, unwinds it
    /// into its underlyings here, swaps each underlying to `tokenOut` along `details`, and pays the whole
    /// of `tokenOut` to `to`, reverting unless that is at least `minOut`.
    /// Each swap spends exactly what the unwind produced of its input token (its quoted `inputAmount` is
    /// replaced by that); a route whose path is just `[tokenOut]` needs no swap.
    function oneClickWithdraw(
        address positionToken,
        uint256 amount,
        address farm,
        bytes calldata farmData,
        SwapPayload[] calldata details,
        address router,
        address tokenOut,
        uint256 minOut,
        address to
    ) external nonReentrant returns (uint256 amountOut) {
        uint256[] memory inputBefore = new uint256[](details.length);
        for (uint256 i = 0; i < details.length; i++) {
            require(details[i].path[details[i].path.length - 1] == tokenOut, "OneClickFarm: route must end at tokenOut");
            inputBefore[i] = IERC20(details[i].path[0]).balanceOf(address(this));
        }
        uint256 outBefore = IERC20(tokenOut).balanceOf(address(this));

        IERC20(positionToken).safeTransferFrom(msg.sender, farm, amount);
        IFarm(farm).withdraw(address(this), farmData);

        for (uint256 i = 0; i < details.length; i++) {
            if (details[i].path.length == 1) continue;
            uint256 received = IERC20(details[i].path[0]).balanceOf(address(this)) - inputBefore[i];
            if (received > 0) _swap(details[i], router, received, address(this));
        }

        amountOut = IERC20(tokenOut).balanceOf(address(this)) - outBefore;
        require(amountOut >= minOut, "OneClickFarm: Insufficient output amount!");
        IERC20(tokenOut).safeTransfer(to, amountOut);
        emit OneClickWithdraw(msg.sender, positionToken, amount, tokenOut, amountOut, to);
    }

    function _swap(SwapPayload calldata route, address router, uint256 inputAmount, address recipient) private {
        SwapPayload memory payload = route;
        payload.inputAmount = inputAmount;
        payload.to = recipient;
        IERC20(route.path[0]).forceApprove(router, inputAmount);
        IRouter(router).swapExactInputForOutput(payload);
    }
}
