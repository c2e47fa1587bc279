/**
 * What already happened is read from one place: the wallet's rows, proven by its tags before any is sorted by what it
 * says (src/trade/wallet-history.ts). A database writer moving a row out of the way (its strategy, its wallet, its
 * token) once made a filled one-shot order sell again and lifted a daily budget; each edit below, by plain SQL on both
 * ledgers, now stops the strategy and the wallet by name, with nothing signed: the wallet's nonce and balances stay.
 */
import { type Address, parseTransaction, parseUnits } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { runStrategy } from '../../src/engine/runner.ts';
import type { LedgerLocation } from '../../src/ledger/ledger.ts';
import type { LimitStrategy } from '../../src/strategy/types.ts';
import { resumeOpenTrades, runTrade } from '../../src/trade/pipeline.ts';
import type { RunReport } from '../../src/engine/run-types.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, limitStrategy, swapTrade, testExecutor, walletState as walletStateOf } from '../helpers/engine.ts';
import { backends, freshLedger, runSql } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });
const me = () => fork.addressBook.accounts[0]?.address as Address;
const walletState = () => walletStateOf(fork, me());
const outsider = '0x000000000000000000000000000000000000dEaD';

const opened: TestExecutor[] = [];
afterAll(async () => {
  for (const executor of opened) await executor.close().catch(() => {});
});
async function executor(location: LedgerLocation, options: Parameters<typeof testExecutor>[1] = {}) {
  const made = await testExecutor(fork, { location, ...options });
  opened.push(made);
  return made;
}

/** A take-profit selling 1 CELO for cUSD once, whatever the price: it fills at its first look. */
const takeProfit = (): LimitStrategy => limitStrategy(fork, { id: 'take', amount: parseUnits('1', 18), takeProfit: '0.01' });

const look = (deps: TestExecutor, slot: string) =>
  runStrategy(takeProfit(), slot, { executor: deps, view: { client: deps.wallet.client, prices: deps.prices, wallet: me(), now: Date.now } });

/** Stopped by name before anything was claimed: the strategy and the wallet paused, nothing signed. */
async function expectStopped(deps: TestExecutor, run: RunReport, row: RegExp, before: Awaited<ReturnType<typeof walletState>>) {
  expect(run.trades).toEqual([]);
  expect(run.heldBy).toBe('pause');
  expect(run.note).toMatch(row);
  expect(await walletState()).toEqual(before);
  const pauses = await deps.ledger.pauses.for('take', me());
  expect(pauses.map((pause) => pause.scope).sort()).toEqual(['strategy', 'wallet']);
  expect(pauses[0]?.reason).toMatch(/^anomaly in the wallet's history: /);
}

/** The trade refused by name as an anomaly: strategy and wallet paused, nothing signed. */
async function expectAnomaly(deps: TestExecutor, report: TradeReport, why: RegExp, before: Awaited<ReturnType<typeof walletState>>) {
  expect(report.status, report.reason).toBe('anomaly');
  expect(report.reason).toMatch(why);
  expect(await walletState()).toEqual(before);
  expect((await deps.ledger.pauses.for(report.intentId.split(':')[0] as string, me())).map((pause) => pause.scope).sort()).toEqual(['strategy', 'wallet']);
}

describe.each(backends)('decisions read from the proven history on %s', (backend) => {
  it('a filled one-shot order moved to another strategy id: not sold again at any look, the moved row named', async () => {
    const location = freshLedger(backend);
    const deps = await executor(location);
    const filled = await look(deps, 'slot-1');
    expect(filled.trades.map((trade) => trade.status)).toEqual(['confirmed']);
    const sold = filled.trades[0]?.intentId as string;
    await runSql(location, "UPDATE intents SET strategy_id = 'x' WHERE strategy_id = 'take'");
    const before = await walletState();
    await expectStopped(deps, await look(deps, 'slot-2'), new RegExp(`^anomaly: trade ${sold}, a row of wallet ${me()}, carries no tag of the wallet`), before);
    // The pause lifted by hand, the next looks read the same row again: stopped again, never sold.
    for (const slot of ['slot-3', 'slot-4']) {
      await runSql(location, 'DELETE FROM pauses');
      await expectStopped(deps, await look(deps, slot), new RegExp(`^anomaly: trade ${sold}, a row of wallet`), before);
    }
  });

  it("a filled one-shot order moved to another wallet: the wallet's own transaction still names it, stopped by name", async () => {
    const location = freshLedger(backend);
    const deps = await executor(location);
    const filled = await look(deps, 'slot-1');
    expect(filled.trades.map((trade) => trade.status)).toEqual(['confirmed']);
    await runSql(location, "UPDATE intents SET wallet = ? WHERE strategy_id = 'take'", outsider.toLowerCase());
    const before = await walletState();
    await expectStopped(
      deps,
      await look(deps, 'slot-2'),
      new RegExp(`^anomaly: trade ${filled.trades[0]?.intentId}, a row of wallet ${me()}, carries no tag`),
      before,
    );
  });

  for (const [column, value] of [
    ['wallet', () => outsider.toLowerCase()],
    ['token_in', () => fork.token('CELO').toLowerCase()],
    ['strategy_id', () => 'elsewhere'],
  ] as const) {
    it(`a spent daily budget whose trade has its ${column} moved: the budget still counts it, or the row is refused by name`, async () => {
      const location = freshLedger(backend);
      // 250 cUSD a day: two trades of 100 leave room for none more.
      const cUSD = { token: fork.token('cUSD'), symbol: 'cUSD', decimals: 18 };
      const deps = await executor(location, { budgets: { wallet: [{ ...cUSD, perDay: parseUnits('250', 18) }] } });
      const spent = [await runTrade(deps, swapTrade(fork, 'dca', 'one')), await runTrade(deps, swapTrade(fork, 'dca', 'two'))];
      expect(spent.map((report) => report.status)).toEqual(['confirmed', 'confirmed']);
      await runSql(location, `UPDATE intents SET ${column} = ? WHERE id = ?`, value(), spent[1]?.intentId);
      const before = await walletState();
      const third = await runTrade(deps, swapTrade(fork, 'dca', 'three'));
      await expectAnomaly(deps, third, new RegExp(`^trade ${spent[1]?.intentId}, a row of wallet ${me()}, carries no tag of the wallet`), before);
    });
  }

  it('an in-flight transaction marked dropped: the chain still knows it, so the next trade neither takes nor replaces its nonce', async () => {
    const location = freshLedger(backend);
    const first = await executor(location, { wallet: { giveUpAfterMs: 300, syncWaitMs: 50 } });
    await fork.testClient.setAutomine(false);
    try {
      const left = await runTrade(first, swapTrade(fork, 'dca', 'once-left#buy'));
      expect(left.status, left.reason).toBe('unknown');
      const inFlight = await first.ledger.attempts.ofTrade(left.intentId);
      await runSql(location, "UPDATE attempts SET status = 'dropped' WHERE intent_id = ?", left.intentId);
      await first.close();
      // Another process signs the next trade; the node still holds the first one's transactions in its pool.
      const next = await executor(location, { wallet: { giveUpAfterMs: 300, syncWaitMs: 50 } });
      const second = await runTrade(next, swapTrade(fork, 'dca', 'once-next#buy'));
      expect(second.status, second.reason).toBe('unknown');
      const signed = await next.ledger.attempts.ofTrade(second.intentId);
      const highest = Math.max(...inFlight.map((attempt) => attempt.nonce));
      expect(Math.min(...signed.map((attempt) => attempt.nonce))).toBe(highest + 1);
      // Nothing of the second trade was signed at a nonce of the first: none of its transactions replaced.
      expect(signed.map((attempt) => parseTransaction(attempt.rawTx).nonce).every((nonce) => (nonce as number) > highest)).toBe(true);
      await next.close();
    } finally {
      await fork.testClient.setAutomine(true);
    }
    // Mined, both trades settle as the chain says: the first one's transactions were never replaced, and its rows'
    // `dropped` does not make it a trade that did not happen.
    await fork.testClient.mine({ blocks: 1 });
    const settled = await resumeOpenTrades(await executor(location));
    expect(settled.map((report) => [report.intentId, report.status]).sort()).toEqual([
      ['dca:once-left#buy', 'confirmed'],
      ['dca:once-next#buy', 'confirmed'],
    ]);
  });
});
