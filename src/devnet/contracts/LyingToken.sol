// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// A hostile token for tests, never deployed by the devnet itself: transfers to `victim` move half the
/// amount while the Transfer event claims all of it, so a receipt says more arrived than did.
contract LyingToken is ERC20 {
    address public victim;

    constructor() ERC20("Lying Token", "LIE") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setVictim(address victim_) external {
        victim = victim_;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (to != victim || from == address(0)) return super._update(from, to, value);
        super._update(from, to, value / 2);
        super._update(from, address(0xdead), value - value / 2);
        emit Transfer(from, to, value);
    }
}
