import { type Address, encodeAbiParameters, pad, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { GuardRefusal } from '../../src/model/guard-refusal.ts';
import { addAtReference, checkPoolAtReference, checkPositionFlows, checkPositionOwned, checkRange, removeAtReference } from '../../src/guard/position.ts';
import { amountsForLiquidity, liquidityForAmounts } from '../../src/pools/uniswap-v3/liquidity.ts';
import { sqrtRatioAtTick } from '../../src/pools/uniswap-v3/math.ts';
import { budgetsApply, checkBudgets } from '../../src/trade/budgets.ts';
import { committedTrades } from '../../src/trade/wallet-history.ts';

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
const asked = (kind: 'collect' | 'add-liquidity' | 'remove-liquidity' | 'mint', burns = false) => ({
  kind,
  wallet,
  tokenIn: token0,
  tokenOut: token1,
  amountIn: 100n,
  amountIn1: 50n,
  positionId: 7n,
  burns,
  mints: kind === 'mint',
  pays: kind === 'add-liquidity' || kind === 'mint',
});
const at = { pool, manager };
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
    expect(checkPositionFlows(asked('collect'), at, [transfer(token0, pool, wallet, 9n), transfer(token1, pool, wallet, 4n)])).toEqual({
      amount0: 9n,
      amount1: 4n,
    });
    expect(checkPositionFlows(asked('add-liquidity'), at, [transfer(token0, wallet, pool, 100n), transfer(token1, wallet, pool, 49n)])).toEqual({
      amount0: 100n,
      amount1: 49n,
    });
  });

  it('refuses fees sent elsewhere, another token, an add taking more than asked, and any NFT moving', () => {
    expect(refusal(() => checkPositionFlows(asked('collect'), at, [transfer(token0, pool, stranger, 9n)]))).toMatchObject({ reason: 'token-flow' });
    expect(refusal(() => checkPositionFlows(asked('collect'), at, [transfer(stranger, pool, wallet, 9n)]))).toMatchObject({ reason: 'token-flow' });
    expect(refusal(() => checkPositionFlows(asked('collect'), at, [transfer(token0, wallet, pool, 1n)]))).toMatchObject({ reason: 'token-flow' });
    expect(refusal(() => checkPositionFlows(asked('add-liquidity'), at, [transfer(token1, wallet, pool, 51n)]))).toMatchObject({
      reason: 'token-flow',
      message: expect.stringMatching(/more than the 100 and 50 asked/),
    });
    expect(refusal(() => checkPositionFlows(asked('collect'), at, [nftTransfer(wallet, stranger, 7n)]))).toMatchObject({ reason: 'token-flow' });
  });

  it("lets a mint's new NFT reach the wallet and a removal burn its own emptied NFT, and no other NFT move", () => {
    const paid = [transfer(token0, wallet, pool, 100n), transfer(token1, wallet, pool, 50n)];
    expect(checkPositionFlows(asked('mint'), at, [...paid, nftTransfer(zeroAddress, wallet, 12n)])).toEqual({ amount0: 100n, amount1: 50n });
    const freed = [transfer(token0, pool, wallet, 30n), transfer(token1, pool, wallet, 20n)];
    expect(checkPositionFlows(asked('remove-liquidity', true), at, [...freed, nftTransfer(wallet, zeroAddress, 7n)])).toEqual({ amount0: 30n, amount1: 20n });
    expect(checkPositionFlows(asked('remove-liquidity'), at, freed)).toEqual({ amount0: 30n, amount1: 20n });
    const refused = (kind: Parameters<typeof asked>[0], logs: Parameters<typeof checkPositionFlows>[2], burns = false) =>
      refusal(() => checkPositionFlows(asked(kind, burns), at, logs));
    // A mint to someone else, a mint with no NFT, one minted by another contract.
    expect(refused('mint', [...paid, nftTransfer(zeroAddress, stranger, 12n)])).toMatchObject({
      reason: 'token-flow',
      message: expect.stringMatching(/never leaves the wallet/),
    });
    expect(refused('mint', paid)).toMatchObject({ reason: 'token-flow', message: expect.stringMatching(/moves 0 NFTs, not the 1/) });
    expect(refused('mint', [...paid, { ...nftTransfer(zeroAddress, wallet, 12n), address: stranger }])).toMatchObject({ reason: 'token-flow' });
    // A removal that burns when not asked, burns another position, or sends the NFT away; or pays anyone but the wallet.
    expect(refused('remove-liquidity', [...freed, nftTransfer(wallet, zeroAddress, 7n)])).toMatchObject({ reason: 'token-flow' });
    expect(refused('remove-liquidity', [...freed, nftTransfer(wallet, zeroAddress, 8n)], true)).toMatchObject({ reason: 'token-flow' });
    expect(refused('remove-liquidity', [...freed, nftTransfer(wallet, stranger, 7n)], true)).toMatchObject({ reason: 'token-flow' });
    expect(refused('remove-liquidity', [transfer(token0, pool, stranger, 30n)])).toMatchObject({ reason: 'token-flow' });
    // A mint that takes more than asked.
    expect(refused('mint', [transfer(token0, wallet, pool, 101n), nftTransfer(zeroAddress, wallet, 12n)])).toMatchObject({
      reason: 'token-flow',
      message: expect.stringMatching(/the simulated mint takes 101 and 0, more than the 100 and 50 asked/),
    });
  });

  it("takes only ranges on the pool's spacing", () => {
    expect(checkRange({ tickLower: -120, tickUpper: 60 }, 60)).toBeUndefined();
    expect(refusal(() => checkRange({ tickLower: -100, tickUpper: 60 }, 60))).toMatchObject({ reason: 'position' });
    expect(refusal(() => checkRange({ tickLower: 60, tickUpper: 60 }, 60))).toMatchObject({ reason: 'position' });
  });

  it('removes with minimums any pool price in the slippage band around the reference pays, and one beyond it does not', () => {
    const range = { tickLower: -600, tickUpper: 600 };
    const liquidity = 10n ** 21n;
    const { amount0Min, amount1Min } = removeAtReference(sqrtRatioAtTick(0), range, liquidity, 100);
    // 1% of price is about 100 ticks: every tick within the band pays at least both minimums.
    for (let tick = -99; tick <= 99; tick += 9) {
      const paid = amountsForLiquidity(sqrtRatioAtTick(tick), range, liquidity, 'down');
      expect(paid.amount0 >= amount0Min && paid.amount1 >= amount1Min).toBe(true);
    }
    expect(amountsForLiquidity(sqrtRatioAtTick(150), range, liquidity, 'down').amount0).toBeLessThan(amount0Min);
    expect(amountsForLiquidity(sqrtRatioAtTick(-150), range, liquidity, 'down').amount1).toBeLessThan(amount1Min);
    // A reference below the range: all of it in token0, none in token1 asked.
    const below = removeAtReference(sqrtRatioAtTick(-900), range, liquidity, 100);
    expect(below.amount1Min).toBe(0n);
    expect(below.amount0Min).toBe(amountsForLiquidity(sqrtRatioAtTick(-900), range, liquidity, 'down').amount0);
  });

  it("refuses a position that is not the wallet's or not of the trade's tokens", () => {
    expect(refusal(() => checkPositionOwned(asked('collect'), { owner: stranger, token0, token1 }))).toMatchObject({ reason: 'position' });
    expect(refusal(() => checkPositionOwned(asked('collect'), { owner: wallet, token0: token1, token1: token0 }))).toMatchObject({ reason: 'position' });
    expect(checkPositionOwned(asked('collect'), { owner: wallet, token0, token1 })).toBeUndefined();
  });

  it('adds only with the pool at the reference, with minimums any pool price in the slippage band around the reference meets', () => {
    const reference = sqrtRatioAtTick(-6932);
    // 1% apart in price is 100 ticks or so: within 2%, not within 0.5%.
    expect(checkPoolAtReference(sqrtRatioAtTick(-6832), reference, 200)).toBeUndefined();
    expect(refusal(() => checkPoolAtReference(sqrtRatioAtTick(-6832), reference, 50))).toMatchObject({ reason: 'price' });
    const range = { tickLower: -8160, tickUpper: -5700 };
    const amounts = { amount0: 1_000n * 10n ** 18n, amount1: 500n * 10n ** 18n };
    const { liquidity, amount0Min, amount1Min } = addAtReference(reference, range, amounts, 50);
    expect(liquidity).toBe(liquidityForAmounts(reference, range, amounts));
    // What the position manager takes at a pool price (rounded up, as it does): at least both minimums anywhere in
    // the 0.5% band (about 50 ticks), less than one of them beyond it.
    const taken = (tick: number) => {
      const price = sqrtRatioAtTick(tick);
      return amountsForLiquidity(price, range, liquidityForAmounts(price, range, amounts), 'up');
    };
    for (let tick = -6932 - 49; tick <= -6932 + 49; tick += 7) {
      const used = taken(tick);
      expect(used.amount0 >= amount0Min && used.amount1 >= amount1Min).toBe(true);
    }
    expect(taken(-6932 + 150).amount0 < amount0Min || taken(-6932 + 150).amount1 < amount1Min).toBe(true);
    expect(taken(-6932 - 150).amount0 < amount0Min || taken(-6932 - 150).amount1 < amount1Min).toBe(true);
  });
});

describe('budgets and a trade on a V3 position', () => {
  const position = { positionManager: manager, positionId: 7n };
  const common = { id: 'lp:s#x', strategyId: 'lp', slot: 's#x', wallet, chainId: 42220, tokenIn: token0, tokenOut: token1, slippageBps: 50, position };
  const budget = (token: Address) => ({ token, symbol: token === token0 ? 'T0' : 'T1', decimals: 0, perDay: 1_000n });

  it('counts nothing a collect spends, and counts both tokens an add spends against their budgets', async () => {
    const collect = { ...common, kind: 'collect' as const, amountIn: 0n, amountIn1: 0n };
    const add = (amountIn1: bigint) => ({ ...common, kind: 'add-liquidity' as const, amountIn: 10n, amountIn1 });
    // A collect spends nothing: no budget applies to it.
    expect(budgetsApply({ wallet: [budget(token0), budget(token1)] }, collect)).toBe(false);
    expect(budgetsApply({ wallet: [budget(token1)] }, add(20n))).toBe(true);
    // Committed already: an earlier add's second token (970 of T1) and a swap of T1 (10), both within the day. Each
    // budget reads the trades of its own token.
    const earlier = [
      { ...add(970n), id: 'lp:s#a', status: 'confirmed' as const, createdAt: Date.now() - 1_000, updatedAt: Date.now() },
      {
        ...common,
        id: 'lp:s#b',
        kind: 'swap' as const,
        tokenIn: token1,
        tokenOut: token0,
        amountIn: 10n,
        status: 'confirmed' as const,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      },
    ];
    const read: Address[] = [];
    const history = {
      committed: (token: Address, scope: { strategyId?: string; excludeId?: string }) => {
        read.push(token);
        return committedTrades(
          earlier.map((record) => ({ record, attempts: [] })),
          token,
          scope,
        );
      },
    };
    // 970 + 10 + 20 = 1,000: the day's budget of T1 is met, not passed; one more wei of T1 is refused.
    expect(() => checkBudgets({ wallet: [budget(token0), budget(token1)] }, add(20n), history)).not.toThrow();
    expect(read).toEqual([token0, token1]);
    const refused = (() => {
      try {
        checkBudgets({ wallet: [budget(token1)] }, add(21n), history);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toMatchObject({
      reason: 'budget',
      shortMessage: expect.stringMatching(/^wallet 0x1111111111111111111111111111111111111111 daily budget: 980 T1 spent \+ 21 T1 would pass 1,000 T1$/),
    });
  });
});
