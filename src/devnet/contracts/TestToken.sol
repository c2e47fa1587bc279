// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// A devnet-only ERC20 that anyone may mint: it stands in for CELO, cUSD, USDC and friends. Like Celo's stable
/// tokens it lets a holder burn its own balance: Mento's Broker burns the stable tokens a swap pays it.
contract TestToken is ERC20 {
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// Returns true, as Celo's stable tokens do: Mento's Broker requires it of the stables it mints.
    function mint(address to, uint256 amount) external returns (bool) {
        _mint(to, amount);
        return true;
    }

    function burn(uint256 amount) external returns (bool) {
        _burn(msg.sender, amount);
        return true;
    }
}
