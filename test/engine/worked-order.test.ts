/**
 * An order larger than the market, worked in slices over time (engine/worked-order.ts), on the devnet's Uniswap V2
 * CELO/cUSD pool (4M CELO, 2M cUSD): a DCA of 60,000 cUSD moves its one route 3.3% and is refused at a 1% tolerance;
 * with `split`, it is sold in slices of at most 0.7% below the reference, an arbitrageur trading the pool back between
 * them (as Celo's do between blocks), every slice a trade of its own, the whole sold exactly once. A stop mid-order
 * goes on with the remainder only; a lying service cannot enlarge a slice.
 */
import { decodeFunctionData, erc20Abi } from 'viem';
import { routerAbi } from '../../src/contracts/abi.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { runStrategy } from '../../src/engine/runner.ts';
import { toJson } from '../../src/json.ts';
import { statusReport } from '../../src/status/report.ts';
import type { RunDeps } from '../../src/engine/run-types.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import type { DcaStrategy, RebalanceStrategy } from '../../src/strategy/types.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, dcaStrategy, testExecutor, useTestExecutor } from '../helpers/engine.ts';
import type { LedgerLocation } from '../../src/ledger/ledger.ts';
import { runSql } from '../helpers/ledgers.ts';
import { startQuoteProxy } from '../helpers/quote-proxy.ts';
import { arbitrageBack as arbitrageBackOnce } from '../../support/arbitrage.ts';
import { getJson, trader } from '../helpers/routing.ts';
import { waitFor } from '../helpers/wait.ts';

const e18 = 10n ** 18n;
const order = 60_000n * e18;
const split = { maxImpactBps: 70, withinMs: 1_800_000, everyMs: 60_000 };

describe('an order larger than the market, worked in slices over time', () => {
  const fork = useDevnetFork({ routing: true });
  const executor = useTestExecutor(fork, { eachTest: true });
  const me = () => trader(fork).address;
  const strategy = (overrides: Partial<DcaStrategy> = {}) => dcaStrategy(fork, { amount: order, maxPriceDeviationBps: 100, ...overrides });
  const deps = (over: Partial<RunDeps> = {}, using: TestExecutor = executor()): RunDeps => ({
    executor: using,
    view: { client: using.wallet.client, prices: using.prices, wallet: me(), now: Date.now },
    pace: arbitrageBack,
    ...over,
  });
  const holdings = async () => ({
    cusd: await fork.balanceOf(fork.token('cUSD'), me()),
    celo: await fork.balanceOf(fork.token('CELO'), me()),
    nonce: await fork.publicClient.getTransactionCount({ address: me() }),
  });

  /** An arbitrageur trades the pool back to the reference between slices, as Celo's do between blocks. */
  const arbitrageBack = () => arbitrageBackOnce(fork);

  it('is refused as one trade; worked in slices, each within 0.7% of the reference, it completes and is sold once', async () => {
    const before = await holdings();
    const whole = await runStrategy(strategy(), '2026-11-28T10:00:00.000Z', deps());
    expect(whole.trades.map((trade) => [trade.trade.amountIn, trade.status, trade.refusal])).toEqual([[order, 'refused', 'price']]);
    expect(await holdings()).toEqual(before);

    // What the service quotes for the whole order on one route as it starts: what splitting is measured against.
    const { body } = await getJson(fork, '/routes', { tokenIn: fork.token('cUSD'), tokenOut: fork.token('CELO'), amountIn: order });
    const oneRoute = BigInt((body as { expectedOut: string }).expectedOut);
    const slot = '2026-11-28T11:00:00.000Z';
    const run = await runStrategy(strategy({ split }), slot, deps());
    const slices = run.trades;
    expect(slices.length).toBeGreaterThanOrEqual(4);
    expect(slices.map((trade) => trade.intentId)).toEqual(slices.map((_, i) => `dca:${slot}#buy.${i + 1}`));
    expect(slices.every((trade) => trade.status === 'confirmed')).toBe(true);
    const sold = slices.reduce((sum, trade) => sum + trade.trade.amountIn, 0n);
    const bought = slices.reduce((sum, trade) => sum + (trade.amountOut ?? 0n), 0n);
    expect(sold).toBe(order);
    // Each slice paid within 0.7% of the reference (2 CELO per cUSD), the pool's 0.3% fee included.
    for (const trade of slices) expect((trade.amountOut ?? 0n) * 1_000n >= trade.trade.amountIn * 2n * 993n).toBe(true);
    const after = await holdings();
    expect(before.cusd - after.cusd).toBe(order);
    expect(after.celo - before.celo).toBe(bought);
    // Each slice approves the router for exactly its amount, then swaps.
    expect(after.nonce - before.nonce).toBe(2 * slices.length);
    expect(run.note).toMatch(new RegExp(`buy: 60,000 cUSD of 60,000 cUSD sold in ${slices.length} slice\\(s\\), 1\\.98\\d* CELO per cUSD; all sold`));
    // The ledger holds the slices as they were sent.
    const rows = await executor().ledger.trades.all('dca');
    expect(rows.filter((row) => row.slot.startsWith(slot)).map((row) => [row.slot, row.amountIn, row.status])).toEqual(
      slices.map((trade, i) => [`${slot}#buy.${i + 1}`, trade.trade.amountIn, 'confirmed']),
    );
    // Each slice names the order as it started: its whole amount and the one route's quote for it.
    for (const row of rows.filter((one) => one.slot.startsWith(slot)))
      expect(row.kind === 'swap' && row.order).toEqual({ amountIn: order, oneRouteOut: oneRoute });
    // The status shows the order: its slices, what they sold and bought, the average price.
    const dca = strategy({ split });
    await executor().ledger.strategies.describe([{ id: dca.id, kind: dca.kind, walletName: 'main', wallet: me(), definition: toJson(dca) }]);
    const shown = (await statusReport(executor().ledger)).strategies.find((entry) => entry.id === 'dca');
    expect(shown?.order).toMatchObject({
      slot,
      key: 'buy',
      slices: slices.length,
      sold: { raw: order.toString(), symbol: 'cUSD' },
      bought: { raw: bought.toString(), symbol: 'CELO' },
      averagePrice: { unit: 'CELO per cUSD' },
      oneRouteAtStart: { raw: oneRoute.toString(), symbol: 'CELO' },
      savedBps: (((bought - oneRoute) * 10_000n) / oneRoute).toString(),
    });
    // The slices bought more than one route would have: about 2.6% (the route's 3.3% impact, less the slices' own).
    expect(Number(shown?.order?.savedBps)).toBeGreaterThan(200);
    // The slot run again sells nothing more: the order is done.
    const again = await runStrategy(strategy({ split }), slot, deps());
    expect(again.trades).toEqual([]);
    expect(await holdings()).toEqual(after);
  });

  it('a rebalance 20 times larger than one route allows within its tolerance: refused whole; in slices it completes within the bounds', async () => {
    // The wallet holds 600,000 cUSD and 80,000 CELO (40,000 cUSD at the reference): half and half is 280,000 cUSD
    // into CELO, 14% of the pool's cUSD.
    const [cusd, celo] = [fork.token('cUSD'), fork.token('CELO')];
    const wallet = trader(fork).wallet;
    const keep = async (token: `0x${string}`, amount: bigint) => {
      const excess = (await fork.balanceOf(token, me())) - amount;
      // The devnet's tokens are minted by anyone; what is more goes to another account.
      if (excess < 0n)
        await fork.confirm(await wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [me(), -excess] }));
      else await fork.confirm(await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [trader(fork, 2).address, excess] }));
    };
    await keep(cusd, 600_000n * e18);
    await keep(celo, 80_000n * e18);
    const rebalance: RebalanceStrategy = {
      id: 'rebalance',
      kind: 'rebalance',
      wallet: 'main',
      schedule: { everyMs: 3_600_000, jitterMs: 0, catchUp: 'once', firstRun: 'now' },
      slippageBps: 50,
      maxPriceDeviationBps: 100,
      targets: [
        { token: { address: cusd, symbol: 'cUSD', decimals: 18 }, weight: 1 },
        { token: { address: celo, symbol: 'CELO', decimals: 18 }, weight: 1 },
      ],
      quote: { address: cusd, symbol: 'cUSD', decimals: 18 },
      driftBps: 50,
      minTrade: 100n * e18,
    };
    const needed = 280_000n * e18;
    // The largest order one route fills within the 1% tolerance is a twentieth of it: 14,000 cUSD pays within 1% of
    // the reference (2 CELO per cUSD), twice that does not.
    const quoted = async (amountIn: bigint) =>
      BigInt(((await getJson(fork, '/routes', { tokenIn: cusd, tokenOut: celo, amountIn })).body as { expectedOut: string }).expectedOut);
    expect((await quoted(needed / 20n)) * 100n >= (needed / 20n) * 2n * 99n).toBe(true);
    expect((await quoted(needed / 10n)) * 100n >= (needed / 10n) * 2n * 99n).toBe(false);

    const before = await holdings();
    const whole = await runStrategy(rebalance, '2026-11-28T18:00:00.000Z', deps());
    expect(whole.trades.map((trade) => [trade.trade.amountIn, trade.status, trade.refusal])).toEqual([[needed, 'refused', 'price']]);
    expect(await holdings()).toEqual(before);

    const slot = '2026-11-28T19:00:00.000Z';
    const run = await runStrategy({ ...rebalance, split: { maxImpactBps: 90, withinMs: 1_800_000, everyMs: 60_000 } }, slot, deps());
    const slices = run.trades;
    expect(slices.length).toBeGreaterThanOrEqual(20);
    expect(slices.map((trade) => [trade.intentId, trade.status])).toEqual(slices.map((_, i) => [`rebalance:${slot}#buy-CELO.${i + 1}`, 'confirmed']));
    const sold = slices.reduce((sum, trade) => sum + trade.trade.amountIn, 0n);
    const bought = slices.reduce((sum, trade) => sum + (trade.amountOut ?? 0n), 0n);
    // The whole order paid within 0.9% of the reference, the pools' fees included (a slice shared across routes may
    // put a small part through a dearer one: each part is held to the tolerance, the slice to the impact).
    expect(bought * 10_000n >= sold * 2n * 9_910n).toBe(true);
    const after = await holdings();
    expect(before.cusd - after.cusd).toBe(sold);
    expect(after.celo - before.celo).toBe(bought);
    expect(after.nonce - before.nonce).toBe(2 * slices.length);
    // Back within its drift: the two halves differ by less than 0.5% of the whole, at the reference.
    const [cusdValue, celoValue] = [after.cusd, after.celo / 2n];
    const drift = cusdValue > celoValue ? cusdValue - celoValue : celoValue - cusdValue;
    expect((drift / 2n) * 10_000n < (cusdValue + celoValue) * 50n).toBe(true);
    // The slot run again trades nothing more.
    expect((await runStrategy({ ...rebalance, split: { maxImpactBps: 90, withinMs: 1_800_000, everyMs: 60_000 } }, slot, deps())).trades).toEqual([]);
    expect(await holdings()).toEqual(after);
  });

  it('stopped between slices, goes on with the remainder only: no slice twice, the whole exactly once', async () => {
    const before = await holdings();
    const slot = '2026-11-28T12:00:00.000Z';
    const stop = new AbortController();
    let paced = 0;
    const stopAfterTwo = async () => {
      if (++paced === 2) stop.abort();
      await arbitrageBack();
      if (stop.signal.aborted) throw new Error('stopped');
    };
    await expect(runStrategy(strategy({ split }), slot, deps({ pace: stopAfterTwo, signal: stop.signal }))).rejects.toThrow('stopped');
    const stopped = await holdings();
    const first = await executor().ledger.trades.all('dca');
    expect(first.map((row) => row.status)).toEqual(['confirmed', 'confirmed']);
    expect(before.cusd - stopped.cusd).toBe(first.reduce((sum, row) => sum + row.amountIn, 0n));

    const resumed = await runStrategy(strategy({ split }), slot, deps());
    expect(resumed.trades.map((trade) => trade.intentId)).toEqual(resumed.trades.map((_, i) => `dca:${slot}#buy.${i + 3}`));
    const after = await holdings();
    expect(before.cusd - after.cusd).toBe(order);
    const rows = await executor().ledger.trades.all('dca');
    expect(new Set(rows.map((row) => row.slot)).size).toBe(rows.length);
    expect(rows.reduce((sum, row) => sum + row.amountIn, 0n)).toBe(order);
  });

  it('a writer who deletes a filled slice cannot make it sell again: the hole is refused, the wallet paused, nothing sent', async () => {
    const slot = '2026-11-28T14:00:00.000Z';
    const stop = new AbortController();
    let paced = 0;
    const stopAfterTwo = async () => {
      if (++paced === 2) {
        stop.abort();
        throw new Error('stopped');
      }
      await arbitrageBack();
    };
    await expect(runStrategy(strategy({ split }), slot, deps({ pace: stopAfterTwo, signal: stop.signal }))).rejects.toThrow('stopped');
    const [, second] = await executor().ledger.trades.all('dca');
    if (!second) throw new Error('two slices were expected');
    const ledger: LedgerLocation = { kind: 'sqlite', file: executor().ledgerFile };
    await runSql(ledger, 'DELETE FROM attempts WHERE intent_id = ?', second.id);
    await runSql(ledger, 'DELETE FROM intents WHERE id = ?', second.id);
    const before = await holdings();
    const resumed = await runStrategy(strategy({ split }), slot, deps());
    expect(resumed.trades.filter((trade) => trade.status === 'confirmed')).toEqual([]);
    expect(`${resumed.anomaly ?? ''} ${resumed.trades.map((trade) => trade.reason).join(' ')}`).toMatch(/deleted/);
    expect(await holdings()).toEqual(before);
    expect((await executor().ledger.pauses.for('dca', me())).length).toBeGreaterThan(0);
  });

  describe('split across disjoint routes, its parts sent side by side in one block', () => {
    afterEach(() => fork.testClient.setAutomine(true));
    /** Waits until the node's pool holds `count` transactions of the wallet (sent, none mined: automine is off). */
    const inPool = (count: number) =>
      waitFor(
        async () =>
          (await fork.publicClient.getTransactionCount({ address: me(), blockTag: 'pending' })) -
            (await fork.publicClient.getTransactionCount({ address: me(), blockTag: 'latest' })) >=
          count,
        `${count} transactions of the wallet in the node's pool`,
        20_000,
      );
    // 30,000 cUSD into WETH, through CELO or through USDC (two hops each, 0.6% of fees): one route pays 6.6% below the
    // reference (6.0% past its pools' fees, which the checks allow for), the two together 4.7% (shared about 65/35).
    const amount = 30_000n * e18;
    const toWeth = (): DcaStrategy =>
      strategy({
        amount,
        buy: { address: fork.token('WETH'), symbol: 'WETH', decimals: 18 },
        maxPriceDeviationBps: 500,
        split: { maxImpactBps: 490, withinMs: 1_800_000, everyMs: 60_000 },
      });
    const weth = () => fork.balanceOf(fork.token('WETH'), me());
    /** An executor with the strategy's own tolerance, as the daemon gives each strategy its own. */
    async function withTolerance<T>(serviceUrl: string | undefined, work: (own: TestExecutor) => Promise<T>): Promise<T> {
      const own = await testExecutor(fork, { settings: { maxPriceDeviationBps: 500 }, ...(serviceUrl && { serviceUrl }) });
      try {
        return await work(own);
      } finally {
        await own.close();
      }
    }
    /** The order is expected to go out in one slice: nothing to wait for. */
    const oneSlice = async () => {
      throw new Error('the order was expected to go out in one slice');
    };
    const singleRoute = async () => {
      const { body } = await getJson(fork, '/routes', { tokenIn: fork.token('cUSD'), tokenOut: fork.token('WETH'), amountIn: amount });
      return BigInt((body as { expectedOut: string }).expectedOut);
    };

    it('one route alone is refused; the order goes out in two parts on disjoint routes, each checked, and pays more', () =>
      withTolerance(undefined, async (own) => {
        const whole = await runStrategy({ ...toWeth(), split: undefined }, '2026-11-28T15:00:00.000Z', deps({}, own));
        expect(whole.trades.map((trade) => [trade.status, trade.refusal])).toEqual([['refused', 'price']]);
        const single = await singleRoute();
        const [before, wethBefore] = [await holdings(), await weth()];
        const slot = '2026-11-28T16:00:00.000Z';
        // The node mines by hand: the parts' four transactions (an exact approval and a swap each) are all sent before
        // any is mined, and one block holds them.
        await fork.testClient.setAutomine(false);
        const running = runStrategy(toWeth(), slot, deps({ pace: oneSlice }, own));
        await inPool(4);
        await fork.testClient.mine({ blocks: 1 });
        const run = await running;
        expect(run.trades.map((trade) => [trade.intentId, trade.status])).toEqual([
          [`dca:${slot}#buy.1`, 'confirmed'],
          [`dca:${slot}#buy.2`, 'confirmed'],
        ]);
        const [first, second] = run.trades.map((trade) => trade.trade.amountIn) as [bigint, bigint];
        expect(first > second).toBe(true);
        expect(first + second).toBe(amount);
        const bought = (await weth()) - wethBefore;
        expect(bought).toBe(run.trades.reduce((sum, trade) => sum + (trade.amountOut ?? 0n), 0n));
        expect(bought > single).toBe(true);
        expect(before.cusd - (await holdings()).cusd).toBe(amount);
        // Disjoint: the two signed calls go through no pool twice (each part's route avoided the other's pools).
        const rows = (await own.ledger.trades.all('dca')).filter((row) => row.slot.startsWith(slot));
        const pools = rows.flatMap((row) => {
          const { args } = decodeFunctionData({ abi: routerAbi, data: row.call?.data ?? '0x' });
          const [payload] = args as unknown as [{ extras: readonly string[] }];
          return payload.extras.map((extra) => extra.slice(0, 42).toLowerCase());
        });
        expect(pools.length).toBe(4);
        expect(new Set(pools).size).toBe(4);
        // One block, on consecutive nonces: each part approved exactly its own amount, after the other part's swap.
        const attempts = (await Promise.all(run.trades.map((trade) => own.ledger.attempts.ofTrade(trade.intentId)))).flat();
        expect(attempts.map((attempt) => [attempt.purpose, attempt.nonce - before.nonce, attempt.status])).toEqual([
          ['approve', 0, 'mined'],
          ['trade', 1, 'mined'],
          ['approve', 2, 'mined'],
          ['trade', 3, 'mined'],
        ]);
        expect(new Set(attempts.map((attempt) => attempt.blockNumber)).size).toBe(1);
      }));

    it("a lying service's route for one part is refused; the other part is checked on its own and trades", async () => {
      const proxy = await startQuoteProxy(fork.addressBook.routingServiceUrl as string);
      try {
        await withTolerance(proxy.url, async (lied) => {
          // The route through USDC promises half as much again: its part is refused by its own checks.
          const usdc = fork.token('USDC').toLowerCase();
          proxy.setRewrite((body, asked) => {
            if (asked !== '/routes' || !body.details.path.some((token: string) => token.toLowerCase() === usdc)) return body;
            const inflated = ((BigInt(body.expectedOut) * 3n) / 2n).toString();
            const { txn, ...rest } = body;
            return { ...rest, expectedOut: inflated, details: { ...body.details, expectedOutputAmount: inflated } };
          });
          const [before, wethBefore] = [await holdings(), await weth()];
          const slot = '2026-11-28T17:00:00.000Z';
          const stop = new AbortController();
          const stopNow = async () => {
            stop.abort();
            throw new Error('stopped');
          };
          await expect(runStrategy(toWeth(), slot, deps({ pace: stopNow, signal: stop.signal }, lied))).rejects.toThrow('stopped');
          const rows = (await lied.ledger.trades.all('dca')).filter((row) => row.slot.startsWith(slot));
          expect(rows.map((row) => [row.status, row.failure?.refusal])).toEqual([
            ['confirmed', undefined],
            ['refused', 'simulation'],
          ]);
          const traded = rows[0];
          expect(before.cusd - (await holdings()).cusd).toBe(traded?.amountIn);
          expect((await weth()) - wethBefore).toBe(traded?.settlement?.amountOut);
        });
      } finally {
        await proxy.close();
      }
    });
  });

  it('a lying service that promises 1.5 times the output gets no slice larger: each is refused, nothing traded', async () => {
    const proxy = await startQuoteProxy(fork.addressBook.routingServiceUrl as string);
    const lied = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      proxy.setRewrite((body) => {
        const inflated = ((BigInt(body.expectedOut) * 3n) / 2n).toString();
        const { txn, ...rest } = body;
        return { ...rest, expectedOut: inflated, details: { ...body.details, expectedOutputAmount: inflated } };
      });
      const before = await holdings();
      const stop = new AbortController();
      let paced = 0;
      const twice = async () => {
        if (++paced === 2) {
          stop.abort();
          throw new Error('stopped');
        }
      };
      await expect(runStrategy(strategy({ split }), '2026-11-28T13:00:00.000Z', deps({ pace: twice, signal: stop.signal }, lied))).rejects.toThrow('stopped');
      const rows = await lied.ledger.trades.all('dca');
      // Sized on the lie, the first slice is the whole order: refused by its checks, as one trade would be.
      expect(rows.map((row) => [row.amountIn, row.status])).toEqual([
        [order, 'refused'],
        [order, 'refused'],
      ]);
      expect(await holdings()).toEqual(before);
    } finally {
      await lied.close();
      await proxy.close();
    }
  });
});
