/**
 * A V3 position's strategy leaving it and keeping its range, end to end on the devnet (the real position manager,
 * our routing service):
 *  - exit at its time: all liquidity removed and collected in one transaction, what it paid in the other token sold
 *    into the one the file names, the wallet's gain exactly that, the NFT emptied and still the wallet's;
 *  - keep in range: a position out of range for longer than the file allows is emptied, the proceeds brought to the
 *    new range's ratio at the reference, and a range of the same width opened around the reference; the next run
 *    keeps the new NFT (found from the mint's receipt, vouched for by the wallet's tags), the old one kept or burned;
 *  - a pool pushed off the reference: nothing removed, nothing signed, the position and the wallet unchanged;
 *  - an opening whose mint was refused after its swap is not tried again: nothing is sold twice.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAddressEqual, parseEventLogs } from 'viem';
import { describe, expect, it } from 'vitest';
import { positionManagerAbi } from '../../src/contracts/abi.ts';
import { heldPosition } from '../../src/engine/held-position.ts';
import { readWalletHistory } from '../../src/trade/wallet-history.ts';
import { runStrategy } from '../../src/engine/runner.ts';
import { toJson } from '../../src/json.ts';
import { statusReport } from '../../src/status/report.ts';
import { type TradeReport, isPositionTrade } from '../../src/model/trade.ts';
import type { V3PositionStrategy } from '../../src/strategy/types.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { testExecutor, useTestExecutor } from '../helpers/engine.ts';
import { runSql } from '../helpers/ledgers.ts';
import { cusdCeloPool, openPosition, pushPoolDown, positionManagerOf, positionStrategy, readPosition, tradeVolume } from '../../support/positions.ts';
import { trader } from '../helpers/routing.ts';

const e18 = 10n ** 18n;

describe('a V3 position left and kept in range by its strategy, in steps where no position mover is deployed', () => {
  const fork = useDevnetFork({ uniswapV3: true, routing: true });
  // A chain whose data names no position mover: a re-range and an exit go in steps, each its own transaction.
  const withoutMover = () => ({ ...fork.addressBook, contracts: { ...fork.addressBook.contracts, v3RangeMover: undefined } });
  const executor = useTestExecutor(fork, { eachTest: true, book: withoutMover });

  const pool = () => cusdCeloPool(fork);
  const info = (symbol: string) => ({ symbol, address: fork.token(symbol), decimals: 18 });
  const strategyOf = (positionId: bigint, overrides: Partial<V3PositionStrategy> = {}) => positionStrategy(fork, positionId, overrides);
  const view = () => ({ client: executor().wallet.client, prices: executor().prices, wallet: trader(fork).address, nativeToken: info('CELO'), now: Date.now });
  const me = () => trader(fork).address;
  const balances = () => Promise.all([fork.balanceOf(fork.token(pool().token0), me()), fork.balanceOf(fork.token(pool().token1), me())]);
  const ownerOf = (tokenId: bigint) =>
    fork.publicClient.readContract({ address: positionManagerOf(fork).address, abi: positionManagerAbi, functionName: 'ownerOf', args: [tokenId] });
  /** Lets an hour and ten minutes pass, a block mined at the end: the pool's oracle then covers the hour. */
  const anHourLater = async () => {
    await fork.testClient.increaseTime({ seconds: 4_200 });
    await fork.testClient.mine({ blocks: 1 });
  };

  it('exits at its time: removes and collects all in one transaction, sells the other token into the one asked', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    await tradeVolume(fork, pool(), { account: 1, size: 2_000n * e18, rounds: 2 });
    const { uncollected, liquidity } = await readPosition(fork, opened.tokenId);
    expect(uncollected.amount0 + uncollected.amount1).toBeGreaterThan(0n);
    const before = await balances();
    const into = info('cUSD');
    const intoIs0 = pool().token0 === 'cUSD';
    const strategy = strategyOf(opened.tokenId, { exit: { atMs: Date.now() - 1_000, to: into } });
    await executor().ledger.strategies.describe([{ id: strategy.id, kind: strategy.kind, walletName: 'main', wallet: me(), definition: toJson(strategy) }]);

    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
      ['remove-liquidity', 'confirmed'],
      ['swap', 'confirmed'],
    ]);
    expect(run.note).toMatch(/^exit: its time .* has come, into cUSD$/);
    const [removal, sale] = run.trades as [TradeReport, TradeReport];
    // The removal paid the liquidity's tokens and the fees, and took all the liquidity out.
    expect(removal.moved?.liquidity).toBe(liquidity);
    const paid: [bigint, bigint] = [removal.moved?.amount0 ?? 0n, removal.moved?.amount1 ?? 0n];
    expect(paid[0]).toBeGreaterThan(uncollected.amount0);
    expect(paid[1]).toBeGreaterThan(uncollected.amount1);
    // Of what it collected, all but what the liquidity freed are the fees owed before it: exactly.
    const freed: [bigint, bigint] = [removal.moved?.freed0 ?? 0n, removal.moved?.freed1 ?? 0n];
    expect([paid[0] - freed[0], paid[1] - freed[1]]).toEqual([uncollected.amount0, uncollected.amount1]);
    // The status counts those as fees, and the rest as removed.
    const lp = (await statusReport(executor().ledger)).strategies.find((candidate) => candidate.id === 'lp');
    expect(lp?.position).toMatchObject({
      collected: { token0: { raw: uncollected.amount0.toString() }, token1: { raw: uncollected.amount1.toString() } },
      removed: { count: 1, token0: { raw: freed[0].toString() }, token1: { raw: freed[1].toString() } },
      reRanges: 0,
    });
    // All of the other token was sold, exactly; the wallet gained the rest and what the sale paid.
    expect(sale.trade.amountIn).toBe(intoIs0 ? paid[1] : paid[0]);
    const after = await balances();
    const gained: [bigint, bigint] = [after[0] - before[0], after[1] - before[1]];
    expect(intoIs0 ? gained : [gained[1], gained[0]]).toEqual([(intoIs0 ? paid[0] : paid[1]) + (sale.amountOut ?? 0n), 0n]);
    // The NFT is empty, owes nothing, and is still the wallet's.
    const emptied = await readPosition(fork, opened.tokenId);
    expect([emptied.liquidity, emptied.uncollected.amount0, emptied.uncollected.amount1]).toEqual([0n, 0n, 0n]);
    expect(await ownerOf(opened.tokenId)).toBe(me());

    // Exited: the next run has nothing to do.
    const again = await runStrategy(strategy, 'slot-2', { executor: executor(), view: view() });
    expect(again.trades).toEqual([]);
    expect(again.note).toMatch(/^exited: its time .* has come; the position holds nothing$/);
  });

  it('re-ranges a position out of range for the whole window around the reference, and keeps the new NFT from then on', async () => {
    // A range wholly above the price: out of range from the start, all of it in one token.
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 600, offsetTicks: 2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const width = opened.tickUpper - opened.tickLower;
    const strategy = strategyOf(opened.tokenId, { keepInRange: { outsideMs: 3_600_000, oldPosition: 'keep' } });
    await anHourLater();
    const { liquidity } = await readPosition(fork, opened.tokenId);
    const before = await balances();

    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
      ['remove-liquidity', 'confirmed'],
      ['swap', 'confirmed'],
      ['mint', 'confirmed'],
    ]);
    expect(run.note).toMatch(/^re-range: the price has been below \[-?\d+, -?\d+\) for 60 min; new range \[-?\d+, -?\d+\)$/);
    const [removal, swap, mint] = run.trades as [TradeReport, TradeReport, TradeReport];
    expect(removal.moved?.liquidity).toBe(liquidity);
    const newId = mint.moved?.positionId as bigint;
    expect(newId).toBeGreaterThan(opened.tokenId);

    // The new position: the wallet's, the same width, around the reference, and holding what the removal freed.
    const opening = await readPosition(fork, newId);
    expect(opening.owner).toBe(me());
    expect(opening.tickUpper - opening.tickLower).toBe(width);
    expect(opening.liquidity).toBe(mint.moved?.liquidity);
    // The pool's price, which the checks held within the tolerance of the reference, is inside the new range.
    expect(opening.tickLower < opening.tick && opening.tick < opening.tickUpper).toBe(true);
    // The wallet kept only what the mint could not use: what the removal paid, less the swap's fee and impact.
    const after = await balances();
    const freed: [bigint, bigint] = [removal.moved?.amount0 ?? 0n, removal.moved?.amount1 ?? 0n];
    const minted: [bigint, bigint] = [mint.moved?.amount0 ?? 0n, mint.moved?.amount1 ?? 0n];
    const sold0 = isAddressEqual(swap.trade.tokenIn, fork.token(pool().token0));
    const expected: [bigint, bigint] = sold0
      ? [freed[0] - swap.trade.amountIn - minted[0], freed[1] + (swap.amountOut ?? 0n) - minted[1]]
      : [freed[0] + (swap.amountOut ?? 0n) - minted[0], freed[1] - swap.trade.amountIn - minted[1]];
    expect([after[0] - before[0], after[1] - before[1]]).toEqual(expected);
    // Little is left over: under 2% of what was freed of either token.
    expect(expected[0] * 50n <= freed[0] + freed[1] && expected[1] * 50n <= freed[0] + freed[1]).toBe(true);
    // The old NFT was kept, empty.
    expect(await ownerOf(opened.tokenId)).toBe(me());
    expect((await readPosition(fork, opened.tokenId)).liquidity).toBe(0n);

    // From then on the strategy keeps the new NFT: fees it earns are compounded into it.
    expect(await heldPosition(strategy, { client: fork.publicClient, wallet: executor().wallet, history: await readWalletHistory(executor()) })).toEqual({
      positionId: newId,
      via: { mintTx: mint.txHash },
    });
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 4 });
    const next = await runStrategy(strategy, 'slot-2', { executor: executor(), view: view() });
    expect(next.note).toMatch(new RegExp(`^position ${newId} \\(opened by 0x[0-9a-f]{64}\\): compound: `));
    expect(next.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
      ['collect', 'confirmed'],
      ['swap', 'confirmed'],
      ['add-liquidity', 'confirmed'],
    ]);
    const slot2 = (await readWalletHistory(executor()))
      .ofStrategy('lp')
      .map((past) => past.record)
      .filter((trade) => trade.slot.startsWith('slot-2#'));
    expect(slot2.flatMap((trade) => (isPositionTrade(trade) ? [[trade.kind, trade.position.positionId]] : []))).toEqual([
      ['collect', newId],
      ['add-liquidity', newId],
    ]);
  });

  it("follows no position a ledger row points at: a mint's columns move nothing, and a call the wallet did not tag pauses", async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 600, offsetTicks: 2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const strategy = strategyOf(opened.tokenId, { keepInRange: { outsideMs: 3_600_000, oldPosition: 'keep' } });
    await anHourLater();
    const ledgerFile = join(mkdtempSync(join(tmpdir(), 'routekeeper-rerange-')), 'ledger.sqlite');
    const own = await testExecutor(fork, { ledgerFile, addressBook: withoutMover() });
    try {
      const run = await runStrategy(strategy, 'slot-1', { executor: own, view: view() });
      const mint = run.trades[2] as TradeReport;
      expect(mint.status).toBe('confirmed');
      const held = async () => heldPosition(strategy, { client: fork.publicClient, wallet: own.wallet, history: await readWalletHistory(own) });
      expect(await held()).toMatchObject({ positionId: mint.moved?.positionId });
      // Another position of the wallet's, in range, which the strategy must never touch.
      const other = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
      const otherMint = (
        await fork.publicClient.getContractEvents({
          address: positionManagerOf(fork).address,
          abi: positionManagerAbi,
          eventName: 'IncreaseLiquidity',
          args: { tokenId: other.tokenId },
        })
      )[0];
      const sql = (statement: string, ...params: unknown[]) => runSql({ kind: 'sqlite', file: ledgerFile }, statement, ...params);
      // The mint row pointed at the other position's transaction: the held position is read from the transaction the
      // wallet signed, not from the row's columns.
      await sql('UPDATE intents SET tx_hash = ?, moved_position_id = ? WHERE id = ?', otherMint?.transactionHash, other.tokenId.toString(), mint.intentId);
      expect(await held()).toEqual({ positionId: mint.moved?.positionId, via: { mintTx: mint.txHash } });
      // The row's call changed to match the other position's: its tag no longer holds, and nothing is decided on it.
      const otherTx = await fork.publicClient.getTransaction({ hash: otherMint?.transactionHash as `0x${string}` });
      await sql('UPDATE intents SET call_data = ? WHERE id = ?', otherTx.input, mint.intentId);
      const untagged = `trade ${mint.intentId}, signed by wallet ${me()}, has no checked call of the wallet's tag`;
      await expect(held()).rejects.toThrow(new RegExp(`^${untagged}`));
      // So the strategy is paused by name, and moves nothing.
      const { liquidity } = await readPosition(fork, other.tokenId);
      const next = await runStrategy(strategy, 'slot-2', { executor: own, view: view() });
      expect(next).toMatchObject({ trades: [], heldBy: 'pause' });
      expect(next.note).toMatch(new RegExp(`^anomaly: ${untagged}`));
      expect((await own.ledger.pauses.for('lp', me())).map((pause) => pause.scope).sort()).toEqual(['strategy', 'wallet']);
      expect((await readPosition(fork, other.tokenId)).liquidity).toBe(liquidity);
    } finally {
      await own.close();
    }
  });

  it('tries an opening whose swap went through and whose mint did not only once: nothing is sold again', async () => {
    // A range off the pool's spacing (a file's is always rounded onto it): the mint is refused after the swap.
    const strategy = strategyOf(0n, {
      positionId: undefined,
      open: { range: { tickLower: -7801, tickUpper: -6001 }, amounts: { amount0: 1_000n * e18, amount1: 1_000n * e18 } },
    });
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status, trade.refusal])).toEqual([
      ['swap', 'confirmed', undefined],
      ['mint', 'refused', 'position'],
    ]);
    const before = await balances();
    const again = await runStrategy(strategy, 'slot-2', { executor: executor(), view: view() });
    expect(again.trades).toEqual([]);
    expect(again.note).toBe(
      'the opening of slot-1 was signed (open-swap, lp:slot-1#open-swap): nothing is opened again; open a position yourself and name it with position:',
    );
    expect(await balances()).toEqual(before);
    // Its rows edited as a database writer would: the swap set to failed is still signed, so still nothing opened; the
    // swap moved to another strategy is a row whose tag fails, and the strategy and the wallet pause by name.
    const sql = (statement: string) => runSql({ kind: 'sqlite', file: executor().ledgerFile }, statement, 'lp:slot-1#open-swap');
    await sql("UPDATE intents SET status = 'failed' WHERE id = ?");
    const failed = await runStrategy(strategy, 'slot-3', { executor: executor(), view: view() });
    expect([failed.trades, failed.note]).toEqual([[], again.note]);
    await sql("UPDATE intents SET strategy_id = 'elsewhere' WHERE id = ?");
    const moved = await runStrategy(strategy, 'slot-4', { executor: executor(), view: view() });
    expect(moved).toMatchObject({ trades: [], heldBy: 'pause' });
    expect(moved.note).toMatch(/^anomaly: trade lp:slot-1#open-swap, a row of wallet 0x[0-9a-fA-F]{40}, carries no tag of the wallet/);
    expect(await balances()).toEqual(before);
  });

  it('burns the old NFT in the removal when the file says so', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 600, offsetTicks: -2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const strategy = strategyOf(opened.tokenId, { keepInRange: { outsideMs: 3_600_000, oldPosition: 'burn' } });
    await anHourLater();
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
      ['remove-liquidity', 'confirmed'],
      ['swap', 'confirmed'],
      ['mint', 'confirmed'],
    ]);
    expect(run.note).toMatch(/^re-range: the price has been above/);
    await expect(ownerOf(opened.tokenId)).rejects.toThrow();
    const receipt = await fork.publicClient.getTransactionReceipt({ hash: run.trades[0]?.txHash as `0x${string}` });
    const burned = parseEventLogs({ abi: positionManagerAbi, eventName: 'Transfer', logs: receipt.logs });
    expect(burned.map((event) => [event.args.from, event.args.to, event.args.tokenId])).toEqual([
      [me(), '0x0000000000000000000000000000000000000000', opened.tokenId],
    ]);
    const newId = run.trades[2]?.moved?.positionId as bigint;
    expect(await ownerOf(newId)).toBe(me());
  });

  it('removes nothing while the pool is pushed off the reference: refused, nothing signed, the position and the wallet unchanged', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 600, offsetTicks: 2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const strategy = strategyOf(opened.tokenId, { keepInRange: { outsideMs: 3_600_000, oldPosition: 'burn' } });
    // Another trader pushes the pool 5% and more below the reference, then an hour passes.
    await pushPoolDown(fork, pool(), 1_000_000n * e18);
    await anHourLater();
    const { liquidity } = await readPosition(fork, opened.tokenId);
    const before = await balances();
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([['remove-liquidity', 'refused']]);
    expect(run.trades[0]?.refusal).toBe('price');
    expect(run.trades[0]?.reason).toMatch(/^the pool's price is [\d.]+% from the reference \(tolerance [\d.]+%\): no liquidity is moved$/);
    expect(await executor().ledger.attempts.ofTrade(run.trades[0]?.intentId as string)).toEqual([]);
    expect(await balances()).toEqual(before);
    expect((await readPosition(fork, opened.tokenId)).liquidity).toBe(liquidity);
    expect(await ownerOf(opened.tokenId)).toBe(me());
  });
});
