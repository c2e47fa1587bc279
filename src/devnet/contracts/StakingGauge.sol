// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// Stake an LP token, receive a transferable gauge token 1:1, earn a reward token over time.
/// Rewards follow the holder of the gauge token: every balance change settles both sides first,
/// so what was earned before a transfer stays with the sender.
contract StakingGauge is ERC20 {
    using SafeERC20 for IERC20;

    IERC20 public immutable stakingToken;
    IERC20 public immutable rewardToken;

    uint256 public rewardRate; // reward wei per second, for all stakers together
    uint256 public periodFinish;
    uint256 public lastUpdateTime;
    uint256 public rewardPerTokenStored; // scaled by 1e18
    mapping(address => uint256) public userRewardPerTokenPaid;
    mapping(address => uint256) public rewards;

    event Staked(address indexed payer, address indexed recipient, uint256 amount);
    event Withdrawn(address indexed owner, uint256 amount);
    event RewardPaid(address indexed owner, uint256 reward);
    event RewardAdded(uint256 reward, uint256 duration);

    constructor(string memory name_, string memory symbol_, IERC20 stakingToken_, IERC20 rewardToken_)
        ERC20(name_, symbol_)
    {
        stakingToken = stakingToken_;
        rewardToken = rewardToken_;
    }

    function lastTimeRewardApplicable() public view returns (uint256) {
        return block.timestamp < periodFinish ? block.timestamp : periodFinish;
    }

    function rewardPerToken() public view returns (uint256) {
        uint256 supply = totalSupply();
        if (supply == 0) return rewardPerTokenStored;
        return rewardPerTokenStored + ((lastTimeRewardApplicable() - lastUpdateTime) * rewardRate * 1e18) / supply;
    }

    function earned(address account) public view returns (uint256) {
        return rewards[account] + (balanceOf(account) * (rewardPerToken() - userRewardPerTokenPaid[account])) / 1e18;
    }

    /// Pulls `amount` of the staking token from the caller and mints gauge tokens to `recipient`.
    function deposit(uint256 amount, address recipient) external {
        require(amount > 0, "StakingGauge: zero amount");
        stakingToken.safeTransferFrom(msg.sender, address(this), amount);
        _mint(recipient, amount);
        emit Staked(msg.sender, recipient, amount);
    }

    /// Burns the caller's gauge tokens and returns the staking token to the caller.
    function withdraw(uint256 amount) external {
        require(amount > 0, "StakingGauge: zero amount");
        _burn(msg.sender, amount);
        stakingToken.safeTransfer(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
    }

    /// Pays the caller everything it has earned so far.
    function claim() external returns (uint256 reward) {
        _settle(msg.sender);
        reward = rewards[msg.sender];
        if (reward > 0) {
            rewards[msg.sender] = 0;
            rewardToken.safeTransfer(msg.sender, reward);
            emit RewardPaid(msg.sender, reward);
        }
    }

    /// Adds `reward` to be streamed over `duration` seconds (anyone may fund the gauge).
    function notifyRewardAmount(uint256 reward, uint256 duration) external {
        require(duration > 0, "StakingGauge: zero duration");
        _settle(address(0));
        rewardToken.safeTransferFrom(msg.sender, address(this), reward);
        uint256 remaining = block.timestamp < periodFinish ? (periodFinish - block.timestamp) * rewardRate : 0;
        rewardRate = (reward + remaining) / duration;
        require(rewardRate > 0, "StakingGauge: reward rate is zero");
        lastUpdateTime = block.timestamp;
        periodFinish = block.timestamp + duration;
        emit RewardAdded(reward, duration);
    }

    function _update(address from, address to, uint256 value) internal override {
        _settle(from);
        _settle(to);
        super._update(from, to, value);
    }

    function _settle(address account) private {
        rewardPerTokenStored = rewardPerToken();
        lastUpdateTime = lastTimeRewardApplicable();
        if (account != address(0)) {
            rewards[account] = earned(account);
            userRewardPerTokenPaid[account] = rewardPerTokenStored;
        }
    }
}
