/**
 * A V3 position strategy's run, end to end on the devnet (the real position manager, our routing service): fees
 * that beat N times the gas are collected, the surplus sold to the range's ratio through a checked route, and the
 * rest added back, each step a trade of the ledger; the status counts what was collected and added. A lying service
 * for the ratio swap stops the run after the collect, the position untouched and the fees in the wallet, said so.
 */
import { Writable } from 'node:stream';
import { erc20Abi, formatUnits, isAddressEqual } from 'viem';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/json.ts';
import { displayNumber } from '../../src/units.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import { statusReport, strategyDetail } from '../../src/status/report.ts';
import { markOnce } from '../../src/engine/marker.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { runStrategy } from '../../src/engine/runner.ts';
import type { V3PositionStrategy } from '../../src/strategy/types.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { testExecutor, useTestExecutor } from '../helpers/engine.ts';
import {
  cusdCeloPool,
  oneObservationPool,
  openPosition,
  positionStrategy,
  pushPoolDown,
  readPosition,
  swapInPool,
  tradeBusily,
  tradeVolume,
} from '../../support/positions.ts';
import { uniswapV3PoolAbi } from '../../src/contracts/abi.ts';
import { sizeRangeSale } from '../../src/engine/range-sale.ts';
import { amountsForLiquidity, liquidityForAmounts, sqrtPriceX96FromUsd, swapToRangeRatio } from '../../src/pools/uniswap-v3/liquidity.ts';
import { startQuoteProxy } from '../helpers/quote-proxy.ts';
import { trader } from '../helpers/routing.ts';

const e18 = 10n ** 18n;

describe('a V3 position compounded by its strategy', () => {
  const fork = useDevnetFork({ uniswapV3: true, routing: true });
  const executor = useTestExecutor(fork, { eachTest: true });

  const pool = () => cusdCeloPool(fork);
  const info = (symbol: string) => ({ symbol, address: fork.token(symbol), decimals: 18 });
  const strategyOf = (positionId: bigint, overrides: Partial<V3PositionStrategy> = {}) => positionStrategy(fork, positionId, overrides);
  const view = (client = executor().wallet.client) => ({
    client,
    prices: executor().prices,
    wallet: trader(fork).address,
    nativeToken: info('CELO'),
    now: Date.now,
  });
  const read = (tokenId: bigint) => readPosition(fork, tokenId);
  const balances = () =>
    Promise.all([fork.balanceOf(fork.token(pool().token0), trader(fork).address), fork.balanceOf(fork.token(pool().token1), trader(fork).address)]);

  it('collects, swaps to the ratio and adds back: liquidity grows by what the fees buy, little left over, all in the status', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 });
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 5 });
    const { uncollected: owed, liquidity } = await read(opened.tokenId);
    const before = await balances();

    const strategy = strategyOf(opened.tokenId);
    // As a daemon's start does: the strategy described for status, with the chain's coin.
    await executor().ledger.strategies.describe([
      { id: strategy.id, kind: strategy.kind, walletName: 'main', wallet: trader(fork).address, definition: toJson(strategy) },
    ]);
    await executor().ledger.strategies.setMeta('native-token', toJson(info('CELO')));
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
      ['collect', 'confirmed'],
      ['swap', 'confirmed'],
      ['add-liquidity', 'confirmed'],
    ]);
    expect(run.note).toMatch(/^compound: fees worth .* cUSD, gas .* cUSD$/);
    const [collect, swap, add] = run.trades as [TradeReport, TradeReport, TradeReport];
    expect(collect.moved).toEqual({ amount0: owed.amount0, amount1: owed.amount1 });
    expect((await read(opened.tokenId)).liquidity).toBe(liquidity + (add.moved?.liquidity ?? 0n));
    expect(add.moved?.liquidity ?? 0n).toBeGreaterThan(0n);

    // What stays in the wallet: the fees less what went in. The swap was sized for its fee and impact, so only
    // rounding is left (split at the reference price, it left 2.6e12 of the 1.1e17 collected of token1).
    const after = await balances();
    const left: [bigint, bigint] = [after[0] - before[0], after[1] - before[1]];
    const soldToken0 = swap.trade.tokenIn === fork.token(pool().token0);
    const [fees0, fees1] = [owed.amount0, owed.amount1];
    expect(left[0] >= 0n && left[1] >= 0n).toBe(true);
    // Under a millionth of what was collected and bought of either token.
    const [had0, had1] = [fees0 + (soldToken0 ? 0n : (swap.amountOut ?? 0n)), fees1 + (soldToken0 ? (swap.amountOut ?? 0n) : 0n)];
    expect(left[0] * 1_000_000n <= had0 && left[1] * 1_000_000n <= had1).toBe(true);

    const status = await statusReport(executor().ledger);
    const lp = status.strategies.find((strategy) => strategy.id === 'lp');
    expect(lp?.position).toMatchObject({
      positionId: opened.tokenId.toString(),
      compounds: 1,
      collected: { token0: { raw: owed.amount0.toString() }, token1: { raw: owed.amount1.toString() } },
      added: { liquidity: (add.moved?.liquidity ?? 0n).toString() },
    });
    expect(BigInt(lp?.gas.native.raw ?? '0')).toBeGreaterThan(0n);

    // At once again: the fees are gone, nothing to do.
    const again = await runStrategy(strategyOf(opened.tokenId), 'slot-2', { executor: executor(), view: view() });
    expect(again.trades).toEqual([]);
    expect(again.note).toMatch(/^fees worth 0 cUSD, not more than 3 × gas/);
  });

  it("puts back what its own earlier steps left in the wallet, as the chain shows it, and never the wallet's other funds", async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 });
    const strategy = strategyOf(opened.tokenId);
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 5 });
    const start = await balances();
    const first = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(first.trades.map((trade) => trade.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    // What the first compound left: its collect less what its swap and its add took.
    const afterFirst = await balances();
    const left: [bigint, bigint] = [afterFirst[0] - start[0], afterFirst[1] - start[1]];
    expect(left[0] > 0n || left[1] > 0n).toBe(true);

    // Someone sends the wallet 1,000 of each token: the wallet's, not the strategy's.
    const gift = 1_000n * e18;
    const giver = trader(fork, 1).wallet;
    for (const symbol of [pool().token0, pool().token1]) {
      await fork.confirm(
        await giver.writeContract({ address: fork.token(symbol), abi: erc20Abi, functionName: 'transfer', args: [trader(fork).address, gift] }),
      );
    }
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 5 });
    const { liquidity } = await read(opened.tokenId);
    const second = await runStrategy(strategy, 'slot-2', { executor: executor(), view: view() });
    expect(second.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
      ['collect', 'confirmed'],
      ['swap', 'confirmed'],
      ['add-liquidity', 'confirmed'],
    ]);
    const names = [pool().token0, pool().token1];
    const human = (raw: bigint) => displayNumber(raw, 18);
    expect(second.note).toContain(`; with ${human(left[0])} ${names[0]} and ${human(left[1])} ${names[1]} its earlier steps left`);
    // The add took what the second collect paid and what the first compound left, less the swap's trade between them.
    const [collect, swap, add] = second.trades as [TradeReport, TradeReport, TradeReport];
    const stored = await executor().ledger.trades.get(add.intentId);
    if (stored?.kind !== 'add-liquidity') throw new Error('no add stored');
    const sold0 = isAddressEqual(swap.trade.tokenIn, fork.token(pool().token0));
    const [sold, bought] = [swap.trade.amountIn, swap.amountOut ?? 0n];
    expect([stored.amountIn, stored.amountIn1]).toEqual([
      left[0] + (collect.moved?.amount0 ?? 0n) + (sold0 ? -sold : bought),
      left[1] + (collect.moved?.amount1 ?? 0n) + (sold0 ? bought : -sold),
    ]);
    expect((await read(opened.tokenId)).liquidity).toBe(liquidity + (add.moved?.liquidity ?? 0n));
    // The gift is still in the wallet: what left it is no more than the first compound's leftover, which went in.
    const afterSecond = await balances();
    const changed: [bigint, bigint] = [afterSecond[0] - afterFirst[0] - gift, afterSecond[1] - afterFirst[1] - gift];
    expect(changed[0] >= -left[0] && changed[1] >= -left[1]).toBe(true);
  });

  it('stops after the collect when the service lies about the ratio swap: nothing added, the fees in the wallet', async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 });
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 5 });
    const { uncollected: owed, liquidity } = await read(opened.tokenId);
    const proxy = await startQuoteProxy(fork.addressBook.routingServiceUrl as string);
    const lied = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      proxy.setRewrite((body) => {
        const inflated = ((BigInt(body.expectedOut) * 3n) / 2n).toString();
        body.details.expectedOutputAmount = inflated;
        const { txn, ...rest } = body;
        return { ...rest, expectedOut: inflated };
      });
      const before = await balances();
      const run = await runStrategy(strategyOf(opened.tokenId), 'slot-1', { executor: lied, view: view(lied.wallet.client) });
      expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([
        ['collect', 'confirmed'],
        ['swap', 'refused'],
      ]);
      expect(run.trades[1]?.refusal).toBe('simulation');
      // The next run says what the stopped compound left in the wallet, and adds none of it.
      proxy.setRewrite(undefined);
      const next = await runStrategy(strategyOf(opened.tokenId), 'slot-2', { executor: lied, view: view(lied.wallet.client) });
      expect(next.note).toMatch(/^the compound of slot-1 stopped after its collect: [\d.,]+ (cUSD|CELO) and [\d.,]+ (cUSD|CELO) stayed in the wallet; /);
      expect(next.trades).toEqual([]);
      const after = await balances();
      expect([after[0] - before[0], after[1] - before[1]]).toEqual([owed.amount0, owed.amount1]);
      expect((await read(opened.tokenId)).liquidity).toBe(liquidity);
    } finally {
      await lied.close();
      await proxy.close();
    }
  });

  it("sizes a ratio swap through its own pool for the price it moves, and a lying service's rate only within the tolerance", async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 });
    const strategy = strategyOf(opened.tokenId);
    const range = { tickLower: opened.tickLower, tickUpper: opened.tickUpper };
    const [usd0, usd1] = await Promise.all([executor().prices.usdPrice(fork.token(pool().token0)), executor().prices.usdPrice(fork.token(pool().token1))]);
    const referenceSqrtPriceX96 = sqrtPriceX96FromUsd(usd0.usdE18, usd1.usdE18, 18, 18);
    // 160,000 of token0 and none of token1, to be brought to the range's ratio: selling half moves the pool about 0.15%.
    const held = { amount0: 160_000n * e18, amount1: 0n };
    const atReference = swapToRangeRatio(referenceSqrtPriceX96, range, held);
    if (atReference?.sell !== 'token0') throw new Error('token0 was expected to be sold');
    const honest = await sizeRangeSale(strategy, { executor: executor(), view: view() }, { range, held, referenceSqrtPriceX96 });
    // Through the position's own pool: the sale moves the price the mint meets, so it sells less than at the reference,
    // and what is left then fits the range at that price.
    expect(honest?.sizedBy).toBe('own-pool');
    const sold = honest?.amount ?? 0n;
    expect(sold < atReference.amount).toBe(true);
    const proxy = await startQuoteProxy(fork.addressBook.routingServiceUrl as string);
    const lied = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      // The service says the sale goes through another pool and pays a tenth of its worth: sized at that rate, it would
      // sell 1.8 times the split at the reference. Held to the reference less 1%, it sells under 1% more.
      const elsewhere = oneObservationPool(fork).address;
      proxy.setRewrite((body, asked) => {
        if (asked !== '/routes') return body;
        const tenth = (BigInt(body.expectedOut) / 10n).toString();
        const { path: hops } = body.details;
        const path = [hops[0], hops[hops.length - 1]];
        return { ...body, expectedOut: tenth, details: { ...body.details, path, pairs: [elsewhere], extras: [elsewhere], expectedOutputAmount: tenth } };
      });
      const sized = await sizeRangeSale(strategy, { executor: lied, view: view(lied.wallet.client) }, { range, held, referenceSqrtPriceX96 });
      expect(sized?.sizedBy).toBe('route');
      expect((sized?.amount ?? 0n) > atReference.amount).toBe(true);
      expect((sized?.amount ?? 0n) * 100n < atReference.amount * 101n).toBe(true);
    } finally {
      await lied.close();
      await proxy.close();
    }
    // Sold through its own pool at that size, what is left fits the range at the price the pool is left at.
    const swapped = await swapInPool(fork, pool(), { account: 1, sell: 'token0', amount: sold });
    const [after] = await executor().wallet.client.readContract({ address: pool().address, abi: uniswapV3PoolAbi, functionName: 'slot0' });
    const left = { amount0: held.amount0 - sold, amount1: swapped };
    const taken = amountsForLiquidity(after, range, liquidityForAmounts(after, range, left), 'up');
    expect((left.amount0 - taken.amount0) * 1_000_000n < left.amount0 && (left.amount1 - taken.amount1) * 1_000_000n < left.amount1).toBe(true);
  });

  it('compounds on a busy pool of one observation, held to the reference; pushed in the block before: nothing added, nothing lost', async () => {
    const busy = oneObservationPool(fork);
    const celoIs0 = busy.token0 === 'CELO';
    const [celo, weth] = [20_000n * e18, (20_000n * e18) / 6_000n];
    const opened = await openPosition(fork, busy, { halfWidthTicks: 1_200, amount0: celoIs0 ? celo : weth, amount1: celoIs0 ? weth : celo });
    const strategy = positionStrategy(fork, opened.tokenId, {}, busy);
    const holdings = () =>
      Promise.all([fork.balanceOf(fork.token(busy.token0), trader(fork).address), fork.balanceOf(fork.token(busy.token1), trader(fork).address)]);
    // Swaps every five minutes, each in a block of its own: the pool's one observation never reaches the window back.
    await tradeBusily(fork, busy, { seconds: 3_600, everySeconds: 300, usd: 5_000 });
    await expect(fork.publicClient.readContract({ address: busy.address, abi: uniswapV3PoolAbi, functionName: 'observe', args: [[600, 0]] })).rejects.toThrow(
      /OLD/,
    );
    const { uncollected: owed, liquidity } = await readPosition(fork, opened.tokenId);
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status, trade.reason])).toEqual([
      ['collect', 'confirmed', undefined],
      ['swap', 'confirmed', undefined],
      ['add-liquidity', 'confirmed', undefined],
    ]);
    const [collect, , add] = run.trades as [TradeReport, TradeReport, TradeReport];
    expect(collect.moved).toEqual({ amount0: owed.amount0, amount1: owed.amount1 });
    expect(add.moved?.liquidity ?? 0n).toBeGreaterThan(0n);
    expect((await readPosition(fork, opened.tokenId)).liquidity).toBe(liquidity + (add.moved?.liquidity ?? 0n));

    // More trading, then another trader moves the pool 2% or more in the block before the run.
    await tradeBusily(fork, busy, { seconds: 3_600, everySeconds: 300, usd: 5_000 });
    await swapInPool(fork, busy, { account: 1, sell: celoIs0 ? 'token0' : 'token1', amount: 60_000n * e18 });
    const again = await readPosition(fork, opened.tokenId);
    const before = await holdings();
    const pushed = await runStrategy(strategy, 'slot-2', { executor: executor(), view: view() });
    const kinds = pushed.trades.map((trade) => [trade.trade.kind, trade.status]);
    // The collect moves no liquidity and goes; what the pool's move decides is refused by the reference, whichever step meets it.
    expect(kinds[0]).toEqual(['collect', 'confirmed']);
    expect(kinds.at(-1)?.[1]).toBe('refused');
    expect(pushed.trades.at(-1)?.reason).toMatch(/% from the reference .*own oracle does not reach 600 s back .*: not traded into$/);
    // Nothing added: the position holds what it held; nothing lost: the wallet holds the fees the collect paid, and
    // what a ratio swap (if one went) bought for what it sold.
    expect((await readPosition(fork, opened.tokenId)).liquidity).toBe(again.liquidity);
    const after = await holdings();
    const swap = pushed.trades.find((trade) => trade.trade.kind === 'swap' && trade.status === 'confirmed');
    const sold0 = swap !== undefined && isAddressEqual(swap.trade.tokenIn, fork.token(busy.token0));
    const [in0, in1] = swap ? (sold0 ? [-swap.trade.amountIn, swap.amountOut ?? 0n] : [swap.amountOut ?? 0n, -swap.trade.amountIn]) : [0n, 0n];
    expect([after[0] - before[0], after[1] - before[1]]).toEqual([again.uncollected.amount0 + in0, again.uncollected.amount1 + in1]);
  });

  it("shows the time in range from the pool's own counter, and the position's worth against holding what it started with", async () => {
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 60, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const ledger = executor().ledger;
    const strategy = strategyOf(opened.tokenId, { compound: { minFeesToGas: 1_000_000 } });
    await ledger.strategies.describe([
      { id: strategy.id, kind: strategy.kind, walletName: 'main', wallet: trader(fork).address, definition: toJson(strategy) },
    ]);
    await ledger.strategies.setMeta('native-token', toJson(info('CELO')));
    const run = (slot: string) => runStrategy(strategy, slot, { executor: executor(), view: view(), positionMarks: ledger.marks });
    const blockTime = async () => Number((await fork.publicClient.getBlock()).timestamp);
    const later = async (seconds: number) => {
      await fork.testClient.increaseTime({ seconds });
      await fork.testClient.mine({ blocks: 1 });
    };

    await run('slot-1');
    const first = await blockTime();
    await later(1_800);
    await tradeVolume(fork, pool(), { account: 1, size: 1_000n * e18, rounds: 2 });
    // Another trader takes the price out of the range, and it stays out.
    await pushPoolDown(fork, pool(), 1_000_000n * e18);
    const leftRange = await blockTime();
    expect((await read(opened.tokenId)).tick).toBeLessThan(opened.tickLower);
    await later(2_400);
    await run('slot-2');
    const last = await blockTime();
    await markOnce({
      client: executor().wallet.client,
      prices: executor().prices,
      ledger,
      strategies: [strategy],
      wallets: new Map([['main', trader(fork).address]]),
      nativeToken: info('CELO'),
      logger: createLogger({ destination: new Writable({ write: (_chunk, _encoding, done) => done() }), pretty: false }),
    });

    const lp = (await statusReport(ledger)).strategies.find((candidate) => candidate.id === 'lp');
    // Inside from the first run until the price left, of all the time between the runs: to the second.
    expect(lp?.position?.timeInRange).toEqual({
      seconds: leftRange - first,
      observedSeconds: last - first,
      percent: (((leftRange - first) * 100) / (last - first)).toFixed(1),
    });
    // Against holding: the position's tokens now and at the first run, both at the latest reference prices.
    const marks = await ledger.marks.positionMarks();
    const [start, now] = [marks[0], marks.at(-1)];
    const worth = async (amount0: bigint, amount1: bigint) =>
      (await executor().prices.convert(fork.token(pool().token0), fork.token('cUSD'), amount0)).amountOut +
      (await executor().prices.convert(fork.token(pool().token1), fork.token('cUSD'), amount1)).amountOut;
    const [position, holding] = [await worth(now?.amount0 ?? 0n, now?.amount1 ?? 0n), await worth(start?.amount0 ?? 0n, start?.amount1 ?? 0n)];
    expect(lp?.position?.againstHolding).toMatchObject({
      position: { raw: position.toString() },
      holding: { raw: holding.toString() },
      difference: { raw: (position - holding).toString() },
    });
    // The pool's price fell through the range: of token1 the position now holds only the fees it earned.
    expect(now?.amount1).toBe((await read(opened.tokenId)).uncollected.amount1);
    expect(start?.amount1).toBeGreaterThan(0n);
    // What it earned since entry: its worth now against then, the fees it owes now (nothing collected: the compound
    // never paid), and the divergence the rest of the difference to holding.
    const owedNow = await worth(now?.fees?.amount0 ?? 0n, now?.fees?.amount1 ?? 0n);
    expect(now?.fees).toEqual((await read(opened.tokenId)).uncollected);
    expect(owedNow).toBeGreaterThan(0n);
    const gas = BigInt(lp?.gas.value?.raw ?? '0');
    expect(lp?.position?.earned).toMatchObject({
      entry: { raw: holding.toString() },
      now: { raw: position.toString() },
      profit: { raw: (position - holding - gas).toString() },
      fees: { raw: owedNow.toString() },
      divergence: { raw: (position - holding - owedNow).toString() },
      days: ((last - first) / 86_400).toFixed(2),
    });
    // Its chart: the position's worth at each run's look against holding the entry amounts, at that time's prices.
    const detail = await strategyDetail(ledger, 'lp');
    expect(detail?.series.value.map((point) => [point.t, point.value, point.hold])).toEqual(
      marks.map((mark) => [mark.at, expect.stringMatching(/^\d+(\.\d+)?$/), expect.stringMatching(/^\d+(\.\d+)?$/)]),
    );
    expect(detail?.series.value.at(-1)).toMatchObject({
      value: formatUnits(position, 18),
      hold: formatUnits(holding, 18),
    });
    // The fees over the entry value, a year's worth of the 70 minutes since entry.
    const apr = (Number(owedNow) / Number(holding)) * (31_536_000 / (last - first)) * 100;
    expect(Math.abs(Number(lp?.position?.earned?.apr) - apr)).toBeLessThan(0.011);
  });
});
