// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A pair adapter's quote, declared without `view`: some adapters quote by swapping and reverting (Uniswap's
/// QuoterV2), which a static call forbids.
interface IPairQuote {
    function getOutputAmount(address input, address output, uint256 amountIn, bytes calldata data)
        external
        returns (uint256 amountOut);
}

/// What a route pays, hop by hop: each hop's adapter asked for its `getOutputAmount` of the previous hop's output,
/// as an ordinary call. Never deployed: the daemon places this code by state override in the call or simulation
/// it already makes, so that every hop is quoted on one state, in one node request.
contract HopQuoter {
    /// Hop `hop`'s adapter reverted (`reason` is its revert data) or answered something that is not an amount.
    error HopQuoteFailed(uint256 hop, bytes reason);

    function quoteHops(address[] calldata path, address[] calldata pairs, bytes[] calldata extras, uint256 amountIn)
        external
        returns (uint256[] memory amounts)
    {
        require(pairs.length > 0 && path.length == pairs.length + 1 && extras.length == pairs.length, "HopQuoter: route does not line up");
        amounts = new uint256[](pairs.length);
        uint256 amount = amountIn;
        for (uint256 i = 0; i < pairs.length; i++) {
            (bool ok, bytes memory answer) =
                pairs[i].call(abi.encodeCall(IPairQuote.getOutputAmount, (path[i], path[i + 1], amount, extras[i])));
            if (!ok || answer.length < 32) revert HopQuoteFailed(i, answer);
            amount = abi.decode(answer, (uint256));
            amounts[i] = amount;
        }
    }
}
