import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { TradeBudgets } from '../../src/trade/settings.ts';
import type { SwapTrade, TradeReport } from '../../src/model/trade.ts';
import { minimumFromPrice } from '../../src/guard/guards.ts';
import type { RefusalReason } from '../../src/model/guard-refusal.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { swapTrade, testExecutor } from '../helpers/engine.ts';
import { type Rewrite, useQuoteProxy } from '../helpers/quote-proxy.ts';
import { tradeKinds } from '../../src/trade/kinds/registry.ts';

const fork = useDevnetFork({ routing: true });
const proxy = useQuoteProxy(fork);

const me = () => fork.addressBook.accounts[0]?.address as Address;
const request = (overrides: Partial<SwapTrade> = {}): SwapTrade => swapTrade(fork, 'guarded', `slot-${Math.random()}`, overrides);

async function wallet() {
  return Promise.all([
    fork.publicClient.getTransactionCount({ address: me() }),
    fork.publicClient.getBalance({ address: me() }),
    fork.balanceOf(fork.token('cUSD'), me()),
    fork.balanceOf(fork.token('CELO'), me()),
  ]);
}

/** Runs a trade through the rewriting proxy and asserts it was refused for `reason` with nothing sent. */
async function expectRefused(
  rewrite: Rewrite | undefined,
  reason: RefusalReason,
  overrides: Partial<SwapTrade> = {},
  settings = {},
  budgets?: TradeBudgets,
): Promise<TradeReport> {
  proxy.setRewrite(rewrite);
  const executor = await testExecutor(fork, { serviceUrl: proxy.url, settings, budgets });
  try {
    const before = await wallet();
    const report = await runTrade(executor, request(overrides));
    expect(report.status, report.reason).toBe('refused');
    expect(report.refusal).toBe(reason);
    expect(await executor.ledger.trades.get(report.intentId)).toMatchObject({
      status: 'refused',
      failure: { refusal: reason, reason: expect.stringContaining(`${reason}:`) },
    });
    expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
    expect(await wallet()).toEqual(before);
    // A check refused it, named in the report (a budget is held in the transaction that records the trade, after them).
    if (reason !== 'budget') expect(tradeKinds.swap.checks).toContain(report.refusedBy);
    return report;
  } finally {
    await executor.close();
    proxy.setRewrite(undefined);
  }
}

const rewriteDetails =
  (change: (details: Parameters<Rewrite>[0]) => void): Rewrite =>
  (body) => {
    change(body.details);
    return body;
  };

describe('a lying service is refused before anything is signed', () => {
  it('router address swapped for another contract', () =>
    expectRefused((body) => ({ ...body, routerAddress: fork.addressBook.contracts.oneClickFarm }), 'contract-not-allowed'));

  it('path ending at another token', () =>
    expectRefused(
      rewriteDetails((d) => {
        d.path[d.path.length - 1] = fork.token('cEUR');
      }),
      'quote-mismatch',
    ));

  it('input amount changed', () =>
    expectRefused(
      rewriteDetails((d) => {
        d.inputAmount = (BigInt(d.inputAmount) * 2n).toString();
      }),
      'quote-mismatch',
    ));

  it('deadline a day away', () =>
    expectRefused(
      rewriteDetails((d) => {
        d.deadline += 24 * 3600;
      }),
      'deadline',
    ));

  it('deadline already passed', () =>
    expectRefused(
      rewriteDetails((d) => {
        d.deadline -= 3600;
      }),
      'deadline',
    ));

  it('recipient inside the ready-to-sign transaction', () =>
    expectRefused((body) => {
      const stranger = fork.addressBook.accounts[4]?.address.slice(2).toLowerCase() as string;
      const ours = me().slice(2).toLowerCase();
      return { ...body, txn: { ...body.txn, data: (body.txn.data as string).replace(ours, stranger) } };
    }, 'ready-transaction-mismatch'));

  it('expectedOut inflated (the simulation shows the router cannot pay it)', () =>
    expectRefused((body) => {
      const inflated = ((BigInt(body.expectedOut) * 3n) / 2n).toString();
      body.details.expectedOutputAmount = inflated;
      const { txn, ...rest } = body;
      return { ...rest, expectedOut: inflated };
    }, 'simulation'));

  it("below the strategy's own minimum", async () => {
    const report = await expectRefused(undefined, 'threshold', { minAmountOut: parseUnits('1000', 18) });
    expect(report.refusedBy).toBe('strategy-floor');
  });

  it("below the strategy's price limit (3 CELO per cUSD when the pool gives about 2)", () =>
    expectRefused(undefined, 'threshold', { minAmountOut: minimumFromPrice(parseUnits('100', 18), '3', 18, 18) }));

  it('gas above the fee cap', () => expectRefused(undefined, 'fee-cap', {}, { feeCap: 1n }));

  it('over the daily budget', () =>
    expectRefused(undefined, 'budget', {}, {}, { strategy: () => [{ token: fork.token('cUSD'), perDay: parseUnits('99', 18) }] }));
});
