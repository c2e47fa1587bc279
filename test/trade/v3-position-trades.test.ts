/**
 * Trades on a Uniswap V3 position through the whole pipeline, on the real position manager: a collect pays the
 * wallet exactly what was owed and is settled from the position manager's event; an add with the collected fees
 * buys what the reference says, at no less than its minimums; and the checks refuse, with nothing signed and the
 * wallet and the position unchanged, a position manager the chain data does not name, a position that is not the
 * wallet's, and a pool moved away from the reference.
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { spentSince } from '../helpers/ledgers.ts';
import type { AddLiquidityTrade, CollectTrade, MintTrade, PositionTrade } from '../../src/model/trade.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { testExecutor, useTestExecutor } from '../helpers/engine.ts';
import { openPosition, pushPoolDown, positionManagerOf, tradeVolume, cusdCeloPool, readPosition } from '../../support/positions.ts';
import { trader } from '../helpers/routing.ts';

const e18 = 10n ** 18n;

describe('trades on a V3 position', () => {
  const fork = useDevnetFork({ uniswapV3: true });
  const executor = useTestExecutor(fork, { eachTest: true });

  const pool = () => cusdCeloPool(fork);
  const read = (tokenId: bigint) => readPosition(fork, tokenId);
  const balances = () =>
    Promise.all([fork.balanceOf(fork.token(pool().token0), trader(fork).address), fork.balanceOf(fork.token(pool().token1), trader(fork).address)]);
  let slots = 0;
  const base = (kind: PositionTrade['kind'], tokenId: bigint, manager: Address = positionManagerOf(fork).address) => {
    const slot = `s${++slots}#${kind}`;
    return {
      id: `lp:${slot}`,
      strategyId: 'lp',
      slot,
      wallet: trader(fork).address,
      chainId: fork.addressBook.chainId,
      tokenIn: fork.token(pool().token0),
      tokenOut: fork.token(pool().token1),
      slippageBps: 50,
      position: { positionManager: manager, positionId: tokenId },
    };
  };
  const collect = (tokenId: bigint, manager?: Address): CollectTrade => ({
    ...base('collect', tokenId, manager),
    kind: 'collect',
    amountIn: 0n,
    amountIn1: 0n,
  });
  const add = (tokenId: bigint, amounts: { amount0: bigint; amount1: bigint }): AddLiquidityTrade => ({
    ...base('add-liquidity', tokenId),
    kind: 'add-liquidity',
    amountIn: amounts.amount0,
    amountIn1: amounts.amount1,
  });

  const mint = (replaces: bigint, range: { tickLower: number; tickUpper: number }, amounts: { amount0: bigint; amount1: bigint }): MintTrade => ({
    ...base('mint', replaces),
    kind: 'mint',
    amountIn: amounts.amount0,
    amountIn1: amounts.amount1,
    fee: pool().fee,
    range,
  });
  const pushPool = () => pushPoolDown(fork, pool(), parseUnits('1000000', 18));

  it('opens a position at the reference, its NFT minted to the wallet; refuses a range off the spacing and a pool away from the reference', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    const range = { tickLower: opened.tickLower, tickUpper: opened.tickUpper };
    const before = await balances();
    const offSpacing = await runTrade(
      executor(),
      mint(opened.tokenId, { tickLower: range.tickLower + 1, tickUpper: range.tickUpper }, { amount0: e18, amount1: e18 }),
    );
    expect(offSpacing).toMatchObject({ status: 'refused', refusal: 'position' });
    const opening = await runTrade(executor(), mint(opened.tokenId, range, { amount0: 100n * e18, amount1: 100n * e18 }));
    expect(opening.status).toBe('confirmed');
    const minted = opening.moved;
    const newId = minted?.positionId as bigint;
    expect(newId).toBeGreaterThan(opened.tokenId);
    const made = await read(newId);
    expect([made.owner, made.liquidity, made.tickLower, made.tickUpper]).toEqual([trader(fork).address, minted?.liquidity, range.tickLower, range.tickUpper]);
    const after = await balances();
    expect([before[0] - after[0], before[1] - after[1]]).toEqual([minted?.amount0, minted?.amount1]);
    // Pushed 5% and more from the reference: nothing opened, nothing signed.
    await pushPool();
    const pushedBefore = await balances();
    const pushed = await runTrade(executor(), mint(opened.tokenId, range, { amount0: 100n * e18, amount1: 100n * e18 }));
    expect(pushed.status).toBe('refused');
    expect(['price', 'manipulated']).toContain(pushed.refusal);
    expect(await balances()).toEqual(pushedBefore);
    for (const report of [offSpacing, pushed]) expect(await executor().ledger.attempts.ofTrade(report.intentId)).toEqual([]);
  });

  it('collects exactly what the position owed, then adds it back at the reference', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    await tradeVolume(fork, pool(), { account: 1, size: 2_000n * e18, rounds: 4 });
    const owed = (await read(opened.tokenId)).uncollected;
    const before = await balances();
    const collected = await runTrade(executor(), collect(opened.tokenId));
    expect(collected.status, collected.reason).toBe('confirmed');
    const after = await balances();
    expect([after[0] - before[0], after[1] - before[1]]).toEqual([owed.amount0, owed.amount1]);
    const record = await executor().ledger.trades.get(collected.intentId);
    expect(record?.settlement?.position).toEqual({ amount0: owed.amount0, amount1: owed.amount1 });
    expect((await read(opened.tokenId)).uncollected).toEqual({ amount0: 0n, amount1: 0n });

    // What the collect paid, added back: the position grows by what it buys; the wallet pays no more than asked.
    const liquidityBefore = (await read(opened.tokenId)).liquidity;
    const added = await runTrade(executor(), add(opened.tokenId, owed));
    expect(added.status, added.reason).toBe('confirmed');
    const settled = (await executor().ledger.trades.get(added.intentId))?.settlement?.position;
    expect(settled?.liquidity).toBe(added.amountOut);
    expect((await read(opened.tokenId)).liquidity).toBe(liquidityBefore + (settled?.liquidity ?? 0n));
    const end = await balances();
    expect([after[0] - end[0], after[1] - end[1]]).toEqual([settled?.amount0, settled?.amount1]);
    expect((settled?.amount0 ?? 0n) <= owed.amount0 && (settled?.amount1 ?? 0n) <= owed.amount1).toBe(true);
    // The minimums signed came from the reference, and held.
    const call = (await executor().ledger.trades.get(added.intentId))?.call;
    expect((settled?.amount0 ?? 0n) >= (call?.minOut ?? 0n) && (settled?.amount1 ?? 0n) >= (call?.minOut1 ?? 0n)).toBe(true);
  });

  it('counts the second token an add spends against its budget: the add past the day’s budget is refused, nothing signed', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    const token1 = fork.token(pool().token1);
    const budgeted = await testExecutor(fork, { budgets: { wallet: [{ token: token1, perDay: 150n * e18, symbol: pool().token1, decimals: 18 }] } });
    try {
      const first = await runTrade(budgeted, add(opened.tokenId, { amount0: 100n * e18, amount1: 100n * e18 }));
      expect(first.status, first.reason).toBe('confirmed');
      expect(await spentSince(budgeted.ledger, { wallet: trader(fork).address, token: token1, since: 0 })).toBe(100n * e18);
      const before = [await balances(), (await read(opened.tokenId)).liquidity];
      // 100 committed and 60 more would pass 150: refused by the budget of the add's second token.
      const second = await runTrade(budgeted, add(opened.tokenId, { amount0: 10n * e18, amount1: 60n * e18 }));
      expect(second).toMatchObject({ status: 'refused', refusal: 'budget' });
      expect(second.reason).toMatch(new RegExp(`daily budget: 100 ${pool().token1} spent \\+ 60 ${pool().token1} would pass 150 ${pool().token1}`));
      expect([await balances(), (await read(opened.tokenId)).liquidity]).toEqual(before);
      expect(await budgeted.ledger.attempts.ofTrade(second.intentId)).toEqual([]);
    } finally {
      await budgeted.close();
    }
  });

  it('refuses a position manager the chain data does not name, a position not the wallet’s, and a pool away from the reference', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    await tradeVolume(fork, pool(), { account: 1, size: 1_000n * e18, rounds: 2 });
    const { uncollected: owed, liquidity } = await read(opened.tokenId);
    const before = await balances();
    const stranger = await runTrade(executor(), collect(opened.tokenId, fork.token('WETH')));
    expect(stranger).toMatchObject({ status: 'refused', refusal: 'contract-not-allowed' });
    const theirs = await openPosition(fork, pool(), { account: 2, halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    expect(await runTrade(executor(), collect(theirs.tokenId))).toMatchObject({ status: 'refused', refusal: 'position' });
    // The pool pushed 5% or more from the reference: no liquidity added.
    await pushPool();
    const moved = await runTrade(executor(), add(opened.tokenId, { amount0: 10n * e18, amount1: 10n * e18 }));
    expect(moved.status).toBe('refused');
    expect(['price', 'manipulated']).toContain(moved.refusal);
    expect(await balances()).toEqual(before);
    // Nothing collected (the push through the pool only added to its fees), nothing added.
    const after = await read(opened.tokenId);
    expect(after.liquidity).toBe(liquidity);
    expect(after.uncollected.amount0 >= owed.amount0 && after.uncollected.amount1 >= owed.amount1).toBe(true);
    for (const report of [stranger, moved]) expect(await executor().ledger.attempts.ofTrade(report.intentId)).toEqual([]);
  });
});
