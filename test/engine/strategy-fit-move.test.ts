/**
 * A position move read back from the ledger fits its strategy only as the file has it: the strategy's position
 * manager, its pool's tokens, and a re-range's new range in the pool's own fee tier.
 */
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { strategyFit } from '../../src/engine/strategy-fit.ts';
import type { MovePositionTrade } from '../../src/model/trade.ts';
import type { V3PositionStrategy } from '../../src/strategy/types.ts';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const [wallet, manager, pool, celo, cusd] = [address(1), address(2), address(3), address(4), address(5)];
const token = (a: Address, symbol: string) => ({ address: a, symbol, decimals: 18 });
const strategy: V3PositionStrategy = {
  id: 'lp',
  kind: 'uniswap-v3-position',
  wallet: 'main',
  schedule: { everyMs: 3_600_000, jitterMs: 0, catchUp: 'skip', firstRun: 'now' },
  slippageBps: 100,
  positionManager: { address: manager, factory: address(6), poolInitCodeHash: `0x${'00'.repeat(32)}` },
  positionId: 7n,
  pool: { address: pool, token0: token(celo, 'CELO'), token1: token(cusd, 'cUSD'), fee: 3000, tickSpacing: 60 },
  valueToken: token(cusd, 'cUSD'),
  compound: { minFeesToGas: 3 },
};
const move = (overrides: Partial<MovePositionTrade> = {}): MovePositionTrade => ({
  id: 'lp:slot#re-range-move',
  strategyId: 'lp',
  slot: 'slot#re-range-move',
  wallet,
  chainId: 42220,
  kind: 'move-position',
  position: { positionManager: manager, positionId: 7n },
  tokenIn: celo,
  tokenOut: cusd,
  amountIn: 10n,
  amountIn1: 0n,
  slippageBps: 100,
  liquidity: 1_000n,
  burn: false,
  mint: { fee: 3000, range: { tickLower: -600, tickUpper: 600 } },
  ...overrides,
});

describe("a position move against its strategy's file", () => {
  const fits = strategyFit([strategy], () => wallet);

  it('fits as the file has it: a re-range in the pool’s fee tier, or an exit', () => {
    expect(fits(move())).toBeUndefined();
    expect(fits(move({ mint: undefined }))).toBeUndefined();
  });

  it('does not fit a re-range into another fee tier, another manager or other tokens', () => {
    expect(fits(move({ mint: { fee: 500, range: { tickLower: -600, tickUpper: 600 } } }))).toMatch(
      /^it is not a trade strategy lp \(uniswap-v3-position\) asks for: a move-position of position 7 of/,
    );
    expect(fits(move({ position: { positionManager: address(9), positionId: 7n } }))).toMatch(/a move-position of position 7 of 0x0+9$/);
    expect(fits(move({ tokenIn: cusd, tokenOut: celo }))).toMatch(/a move-position of position 7/);
  });
});
