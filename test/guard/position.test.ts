import { type Address, encodeAbiParameters, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { GuardRefusal } from '../../src/guard/refusal.ts';
import { addAtReference, checkPoolAtReference, checkPositionFlows, checkPositionOwned } from '../../src/guard/position.ts';
import { amountsForLiquidity } from '../../src/pools/uniswap-v3-liquidity.ts';
import { sqrtRatioAtTick } from '../../src/pools/uniswap-v3-math.ts';
import { budgetsApply, checkBudgets } from '../../src/trade/check.ts';

const wallet: Address = '0x1111111111111111111111111111111111111111';
const pool: Address = '0x2222222222222222222222222222222222222222';
const stranger: Address = '0x3333333333333333333333333333333333333333';
const token0: Address = '0x4444444444444444444444444444444444444444';
const token1: Address = '0x5555555555555555555555555555555555555555';
const manager: Address = '0x6666666666666666666666666666666666666666';
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const transfer = (token: Address, from: Address, to: Address, amount: bigint) => ({
  address: token,
  topics: [transferTopic, pad(from), pad(to)] as [`0x${string}`, ...`0x${string}`[]],
  data: encodeAbiParameters([{ type: 'uint256' }], [amount]),
});
const nftTransfer = (from: Address, to: Address, id: bigint) => ({
  address: manager,
  topics: [transferTopic, pad(from), pad(to), pad(`0x${id.toString(16)}`)] as [`0x${string}`, ...`0x${string}`[]],
  data: '0x' as const,
});
const asked = (kind: 'collect' | 'add-liquidity') => ({ kind, wallet, tokenIn: token0, tokenOut: token1, amountIn: 100n, amountIn1: 50n, positionId: 7n });
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof GuardRefusal ? { reason: error.reason, message: error.shortMessage } : error;
  }
  return undefined;
};

describe('the guards of a position trade', () => {
  it('accepts a collect paid by the pool to the wallet, and an add the wallet pays the pool, within what it asked', () => {
    expect(checkPositionFlows(asked('collect'), pool, [transfer(token0, pool, wallet, 9n), transfer(token1, pool, wallet, 4n)])).toEqual({
      amount0: 9n,
      amount1: 4n,
    });
    expect(checkPositionFlows(asked('add-liquidity'), pool, [transfer(token0, wallet, pool, 100n), transfer(token1, wallet, pool, 49n)])).toEqual({
      amount0: 100n,
      amount1: 49n,
    });
  });

  it('refuses fees sent elsewhere, another token, an add taking more than asked, and any NFT moving', () => {
    expect(refusal(() => checkPositionFlows(asked('collect'), pool, [transfer(token0, pool, stranger, 9n)]))).toMatchObject({ reason: 'token-flow' });
    expect(refusal(() => checkPositionFlows(asked('collect'), pool, [transfer(stranger, pool, wallet, 9n)]))).toMatchObject({ reason: 'token-flow' });
    expect(refusal(() => checkPositionFlows(asked('collect'), pool, [transfer(token0, wallet, pool, 1n)]))).toMatchObject({ reason: 'token-flow' });
    expect(refusal(() => checkPositionFlows(asked('add-liquidity'), pool, [transfer(token1, wallet, pool, 51n)]))).toMatchObject({
      reason: 'token-flow',
      message: expect.stringMatching(/more than the 100 and 50 asked/),
    });
    expect(refusal(() => checkPositionFlows(asked('collect'), pool, [nftTransfer(wallet, stranger, 7n)]))).toMatchObject({ reason: 'token-flow' });
  });

  it("refuses a position that is not the wallet's or not of the trade's tokens", () => {
    expect(refusal(() => checkPositionOwned(asked('collect'), { owner: stranger, token0, token1 }))).toMatchObject({ reason: 'position' });
    expect(refusal(() => checkPositionOwned(asked('collect'), { owner: wallet, token0: token1, token1: token0 }))).toMatchObject({ reason: 'position' });
    expect(checkPositionOwned(asked('collect'), { owner: wallet, token0, token1 })).toBeUndefined();
  });

  it('adds only with the pool at the reference, and takes its minimums from the reference less the slippage', () => {
    const reference = sqrtRatioAtTick(-6932);
    // 1% apart in price is 100 ticks or so: within 2%, not within 0.5%.
    expect(checkPoolAtReference(sqrtRatioAtTick(-6832), reference, 200)).toBeUndefined();
    expect(refusal(() => checkPoolAtReference(sqrtRatioAtTick(-6832), reference, 50))).toMatchObject({ reason: 'price' });
    const range = { tickLower: -8160, tickUpper: -5700 };
    const { liquidity, amount0Min, amount1Min } = addAtReference(reference, range, { amount0: 1_000n * 10n ** 18n, amount1: 500n * 10n ** 18n }, 50);
    const held = amountsForLiquidity(reference, range, liquidity, 'down');
    expect([amount0Min, amount1Min]).toEqual([(held.amount0 * 9_950n) / 10_000n, (held.amount1 * 9_950n) / 10_000n]);
  });
});

describe('budgets and a trade on a V3 position', () => {
  const position = { positionManager: manager, positionId: 7n };
  const common = { id: 'lp:s#x', strategyId: 'lp', slot: 's#x', wallet, chainId: 42220, tokenIn: token0, tokenOut: token1, slippageBps: 50, position };
  const budget = (token: Address) => ({ token, symbol: token === token0 ? 'T0' : 'T1', decimals: 18, perDay: 1_000n });
  const nothingCommitted = async () => [];

  it('counts nothing a collect spends, and refuses an add whose second token has a budget it cannot count yet', async () => {
    const collect = { ...common, kind: 'collect' as const, amountIn: 0n, amountIn1: 0n };
    const add = { ...common, kind: 'add-liquidity' as const, amountIn: 10n, amountIn1: 20n };
    // A collect spends nothing: no budget applies to it.
    expect(budgetsApply({ wallet: [budget(token0), budget(token1)] }, collect)).toBe(false);
    // An add's token0 is counted as any input; its token1 has no count yet, and is refused rather than let through.
    await expect(checkBudgets({ wallet: [budget(token0)] }, add, nothingCommitted, async () => true)).resolves.toBeUndefined();
    await expect(checkBudgets({ wallet: [budget(token1)] }, add, nothingCommitted, async () => true)).rejects.toMatchObject({
      reason: 'budget',
      shortMessage: expect.stringMatching(/has a budget of T1, which an add to a V3 position spends and budgets do not count yet/),
    });
  });
});
