/**
 * Runs of one wallet quote and check side by side; only nonces, signing and sending are taken in turn. Budgets
 * stay exact (never over, and no trade refused for a rival that was itself refused) and nonces stay gapless.
 */
import { type Address, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { spentSince } from '../helpers/ledgers.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import { SharedQuotes } from '../../src/trade/quote.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, swapTrade, testExecutor } from '../helpers/engine.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
});
const me = () => fork.addressBook.accounts[0]?.address as Address;

/** The executor, with the most quotes its routing client had in flight at once. */
async function watchedExecutor(options: Parameters<typeof testExecutor>[1] = {}) {
  const executor = await testExecutor(fork, options);
  executors.push(executor);
  const inFlight = { now: 0, most: 0, asked: 0 };
  const getSwapRoute = executor.routing.getSwapRoute.bind(executor.routing);
  executor.routing.getSwapRoute = async (...args: Parameters<typeof getSwapRoute>) => {
    inFlight.asked++;
    inFlight.most = Math.max(inFlight.most, ++inFlight.now);
    try {
      return await getSwapRoute(...args);
    } finally {
      inFlight.now--;
    }
  };
  return { executor, inFlight };
}

describe('concurrent runs of one wallet', () => {
  it('never pass a daily wallet budget, and only the trades that do not fit are refused', async () => {
    const cUSD = fork.token('cUSD');
    const budget = { token: cUSD, symbol: 'cUSD', decimals: 18, perDay: parseUnits('10', 18) };
    const { executor, inFlight } = await watchedExecutor({ budgets: { wallet: [budget] } });
    const [usdBefore, nonceBefore] = [await fork.balanceOf(cUSD, me()), await fork.publicClient.getTransactionCount({ address: me() })];

    // Eight strategies of the wallet, 3 cUSD each, in the same instant: 3 fit in 10 cUSD, the other 5 do not.
    const trades = Array.from({ length: 8 }, (_, i) => swapTrade(fork, `dca-${i}`, '2026-11-21T10:00:00.000Z', { amountIn: parseUnits('3', 18) }));
    const reports = await Promise.all(trades.map((trade) => runTrade(executor, trade)));

    expect(inFlight.most).toBeGreaterThan(1);
    const confirmed = reports.filter((r) => r.status === 'confirmed');
    const refused = reports.filter((r) => r.status === 'refused');
    expect(confirmed).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const report of refused) {
      expect(report.refusal).toBe('budget');
      expect(report.reason).toMatch(/^wallet 0x[0-9a-fA-F]{40} daily budget: 9 cUSD spent \+ 3 cUSD would pass 10 cUSD$/);
    }
    expect(await fork.balanceOf(cUSD, me())).toBe(usdBefore - parseUnits('9', 18));
    expect(await spentSince(executor.ledger, { wallet: me(), token: cUSD, since: 0 })).toBe(parseUnits('9', 18));
    // Nothing refused was signed: an approval and a swap for each confirmed trade, on consecutive nonces.
    const attempts = (await Promise.all(confirmed.map((r) => executor.ledger.attempts.ofTrade(r.intentId)))).flat();
    expect(attempts.map((a) => a.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 6 }, (_, i) => nonceBefore + i));
    expect((await Promise.all(refused.map((r) => executor.ledger.attempts.ofTrade(r.intentId)))).flat()).toEqual([]);
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 6);
  });

  it('sign on gapless nonces, each trade checked again on the chain its turn finds, and every one confirmed', async () => {
    const cUSD = fork.token('cUSD');
    const { executor, inFlight } = await watchedExecutor();
    const [usdBefore, celoBefore, nonceBefore] = [
      await fork.balanceOf(cUSD, me()),
      await fork.balanceOf(fork.token('CELO'), me()),
      await fork.publicClient.getTransactionCount({ address: me() }),
    ];

    const trades = Array.from({ length: 10 }, (_, i) => swapTrade(fork, `dca-${i}`, '2026-11-21T10:00:00.000Z', { amountIn: parseUnits(String(i + 1), 18) }));
    const reports = await Promise.all(trades.map((trade) => runTrade(executor, trade)));

    expect(inFlight.most).toBeGreaterThan(1);
    expect(reports.map((r) => [r.intentId, r.status, r.reason])).toEqual(trades.map((t) => [t.id, 'confirmed', undefined]));
    // The trades interleaved: at least one found the chain changed by another's signing and checked again.
    expect(reports.some((r) => r.stages.filter((s) => s.stage === 'check').length === 2)).toBe(true);
    const attempts = (await Promise.all(reports.map((r) => executor.ledger.attempts.ofTrade(r.intentId)))).flat();
    expect(attempts).toHaveLength(20);
    expect(attempts.map((a) => a.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => nonceBefore + i));
    expect(attempts.every((a) => a.status === 'mined')).toBe(true);
    // Each trade's approval comes right before its swap.
    for (const report of reports) {
      const [approve, swap] = await executor.ledger.attempts.ofTrade(report.intentId);
      expect([approve?.purpose, swap?.purpose, (swap?.nonce ?? 0) - (approve?.nonce ?? 0)]).toEqual(['approve', 'trade', 1]);
    }
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 20);
    expect(await fork.balanceOf(cUSD, me())).toBe(usdBefore - parseUnits('55', 18));
    const received = reports.reduce((sum, r) => sum + (r.amountOut as bigint), 0n);
    expect(await fork.balanceOf(fork.token('CELO'), me())).toBe(celoBefore + received);
  });

  it('share one quote among identical trades asked in the same block, each still checked and signed on its own', async () => {
    const { executor, inFlight } = await watchedExecutor();
    executor.sharedQuotes = new SharedQuotes(() => fork.publicClient.getBlockNumber({ cacheTime: 0 }));
    const nonceBefore = await fork.publicClient.getTransactionCount({ address: me() });
    const sameSlot = (i: number) => swapTrade(fork, `dca-${i}`, '2026-11-21T10:00:00.000Z', { amountIn: parseUnits('2', 18) });
    // Six strategies ask the same quote in the same block: the service is asked once.
    await fork.testClient.setAutomine(false);
    const quoted = await Promise.all(Array.from({ length: 6 }, (_, i) => executor.sharedQuotes?.quote(executor.routing, sameSlot(i))));
    await fork.testClient.setAutomine(true);
    expect(inFlight.asked).toBe(1);
    expect(new Set(quoted).size).toBe(1);
    // Through the pipeline: every trade confirms on its own nonces, however many quotes the blocks it saw needed.
    const reports = await Promise.all(
      Array.from({ length: 6 }, (_, i) => runTrade(executor, swapTrade(fork, `dca-${i}`, '2026-11-21T11:00:00.000Z', { amountIn: parseUnits('2', 18) }))),
    );
    expect(reports.map((r) => r.status)).toEqual(Array(6).fill('confirmed'));
    expect(inFlight.asked - 1).toBeLessThan(6);
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 12);
    // A new block is a new quote.
    await fork.testClient.mine({ blocks: 1 });
    const asked = inFlight.asked;
    await executor.sharedQuotes.quote(executor.routing, sameSlot(0));
    expect(inFlight.asked).toBe(asked + 1);
  });
});
