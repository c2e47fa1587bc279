// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A hostile token for tests, never deployed by the devnet itself: a transfer to `victim` credits half the
/// amount and burns the rest, while its one Transfer event claims the whole amount arrived. Every log of the
/// receipt then agrees on a number the wallet never got.
contract LyingToken {
    string public constant name = "Lying Token";
    string public constant symbol = "LIE";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    address public victim;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function setVictim(address victim_) external {
        victim = victim_;
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    function _move(address from, address to, uint256 amount) private {
        balanceOf[from] -= amount;
        uint256 credited = to == victim ? amount / 2 : amount;
        balanceOf[to] += credited;
        totalSupply -= amount - credited;
        emit Transfer(from, to, amount);
    }
}
