import { displayNumber } from '../units.ts';
import type { CompoundStrategy, Decision } from './types.ts';

export type CompoundObservation = {
  now: number;
  /** Rewards claimable now, in the reward token's raw units. */
  earned: bigint;
  /** What they are worth, and what claiming and re-depositing would cost in gas, both in the value token. */
  earnedValue: bigint;
  gasCostValue: bigint;
  /** Gauge tokens the wallet holds. */
  position: bigint;
};

/**
 * Claim the gauge's rewards when they are worth at least minRewardValue more than the gas, and deposit
 * exactly what the claim paid back into the position. With `exit`, leave the position once `at` is reached.
 */
export function decideCompound(strategy: CompoundStrategy, observed: CompoundObservation): Decision {
  const { gauge, valueToken } = strategy;
  if (strategy.exit && (strategy.exit.atMs === undefined || observed.now >= strategy.exit.atMs)) {
    if (observed.position === 0n) return { trades: [], note: 'exited: no position left' };
    return {
      trades: [{ key: 'exit', kind: 'withdraw', tokenIn: gauge.address, tokenOut: strategy.exit.to.address, amountIn: observed.position }],
      note: `exit: withdraw the whole position to ${strategy.exit.to.symbol}`,
    };
  }
  const net = observed.earnedValue - observed.gasCostValue;
  const worth = (value: bigint) => `${displayNumber(value, valueToken.decimals)} ${valueToken.symbol}`;
  if (observed.earned === 0n || net < strategy.minRewardValue) {
    return {
      trades: [],
      note: `rewards worth ${worth(observed.earnedValue)} less gas ${worth(observed.gasCostValue)} are below ${worth(strategy.minRewardValue)}`,
    };
  }
  return {
    trades: [
      { key: 'claim', kind: 'claim', tokenIn: gauge.address, tokenOut: gauge.rewardToken.address, amountIn: observed.earned },
      { key: 'deposit', kind: 'deposit', tokenIn: gauge.rewardToken.address, tokenOut: gauge.address, amountIn: 'previous-output' },
    ],
    note: `compound: rewards worth ${worth(observed.earnedValue)}, gas ${worth(observed.gasCostValue)}`,
  };
}
