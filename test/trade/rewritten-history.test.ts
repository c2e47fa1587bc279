/**
 * A database writer rewriting what already happened, by plain SQL on both ledgers: whether a trade happened is the
 * wallet's signatures' and the chain's to say, never a status column's. Each rewrite below once made the wallet sign a
 * finished trade again, sign at a nonce of the row's choosing, or spend past a budget; now each is refused by name and
 * nothing is signed: the wallet's nonce and balances stay as they were.
 */
import { type Address, parseTransaction, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { decide, runStrategy } from '../../src/engine/runner.ts';
import { stillAskedBy } from '../../src/engine/still-asked.ts';
import { strategyFit } from '../../src/engine/strategy-fit.ts';
import { Ledger, type LedgerLocation } from '../../src/ledger/ledger.ts';
import type { LimitStrategy, Strategy } from '../../src/strategy/types.ts';
import { resumeOpenTrades, runTrade } from '../../src/trade/pipeline.ts';
import { RecordTags } from '../../src/model/record-tags.ts';
import { callKeyOf, digestOf } from '../../src/trade/signed-history.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, dcaStrategy, limitStrategy, swapTrade, testExecutor, walletState as walletStateOf } from '../helpers/engine.ts';
import { backends, freshLedger, liftWrittenOnce, runSql } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });
const me = () => fork.addressBook.accounts[0]?.address as Address;

type Options = { budget?: bigint; wallet?: NonNullable<Parameters<typeof testExecutor>[1]>['wallet']; strategies?: Strategy[] };

/** One routekeeper process at a time on a ledger: each call ends the previous one's, then starts its own. */
let current: { executor: TestExecutor; location: LedgerLocation; options: string } | undefined;
afterAll(async () => {
  await current?.executor.close();
});
async function executor(location: LedgerLocation, options: Options = {}) {
  const key = JSON.stringify(options, (_, value) => (typeof value === 'bigint' ? value.toString() : value));
  if (current?.location === location && current.options === key) return current.executor;
  await current?.executor.close();
  const cUSD = { token: fork.token('cUSD'), symbol: 'cUSD', decimals: 18 };
  const strategies = options.strategies ?? [dcaStrategy(fork)];
  const made = await testExecutor(fork, {
    location,
    adoptsWallet: false,
    fits: strategyFit(strategies, () => me()),
    ...(options.budget !== undefined && { budgets: { wallet: [{ ...cUSD, perDay: options.budget }] } }),
    wallet: options.wallet,
    settings: options.wallet?.feeCap === undefined ? {} : { feeCap: options.wallet.feeCap },
  });
  // Decided again on resumption, as the daemon does (engine/runtime.ts).
  const view = { client: made.wallet.client, prices: made.prices, wallet: me(), now: Date.now };
  made.stillAsked = stillAskedBy(strategies, (strategy) => decide(strategy, { executor: made, view }));
  current = { executor: made, location, options: key };
  return made;
}

const walletState = () => walletStateOf(fork, me());

/** Two DCA buys traded and confirmed, the first on the lower nonces, each as its strategy decides it. */
async function twoTrades(location: LedgerLocation) {
  const deps = await executor(location);
  // Named as runs of `once` name them: the DCA decides them again as it did (a buy of 100 cUSD), on no schedule.
  const first = await runTrade(deps, swapTrade(fork, 'dca', 'once-first#buy'));
  const second = await runTrade(deps, swapTrade(fork, 'dca', 'once-second#buy'));
  expect([first.status, second.status], `${first.reason} ${second.reason}`).toEqual(['confirmed', 'confirmed']);
  const attempts = async (id: string) => deps.ledger.attempts.ofTrade(id);
  return {
    first: { id: first.intentId, attempts: await attempts(first.intentId) },
    second: { id: second.intentId, attempts: await attempts(second.intentId) },
  };
}

/** The trade back at `claimed`, as if it had never been checked or signed: what a rollback writes. */
async function setBackToClaimed(location: LedgerLocation, id: string) {
  await runSql(
    location,
    "UPDATE intents SET status = 'claimed', target = NULL, spender = NULL, call_data = NULL, router = NULL, farm = NULL, expected_out = NULL, min_out = NULL, deadline = NULL, simulated_out = NULL, reference_out = NULL, amount_out = NULL, tx_hash = NULL, block_number = NULL, gas_used = NULL, effective_gas_price = NULL, call_tag = NULL WHERE id = ?",
    id,
  );
}

/** A one-shot order selling 1 CELO for cUSD: a take-profit or a stop-loss by `overrides`. */
const limitOrder = (overrides: Partial<LimitStrategy>) => limitStrategy(fork, { id: 'take', amount: parseUnits('1', 18), ...overrides });

async function resume(location: LedgerLocation): Promise<TradeReport[]> {
  return resumeOpenTrades(await executor(location));
}

/** Refused by name: an anomaly with the words `why`, its strategy and wallet paused, nothing signed. */
async function expectAnomaly(location: LedgerLocation, report: TradeReport | undefined, why: RegExp, before: Awaited<ReturnType<typeof walletState>>) {
  expect(report?.status, report?.reason).toBe('anomaly');
  expect(report?.reason).toMatch(why);
  expect(await walletState()).toEqual(before);
  const { ledger } = await executor(location);
  expect((await ledger.pauses.for(report?.intentId.split(':')[0] as string, me())).map((pause) => pause.scope).sort()).toEqual(['strategy', 'wallet']);
}

describe.each(backends)('history rewritten on %s', (backend) => {
  it('a confirmed trade set back to claimed, its transactions moved to another trade: refused, not signed again', async () => {
    const location = freshLedger(backend);
    const { first, second } = await twoTrades(location);
    await setBackToClaimed(location, first.id);
    await runSql(location, 'UPDATE attempts SET intent_id = ? WHERE intent_id = ?', second.id, first.id);
    const before = await walletState();
    const [report] = await resume(location);
    // Its approval's bytes are the same as the second trade's own (an exact approval of the same amount): only the
    // row's tag, which names the trade it was signed for, tells them apart.
    const moved = first.attempts[0];
    expect(moved?.purpose).toBe('approve');
    await expectAnomaly(
      location,
      report,
      new RegExp(
        `^attempt ${moved?.id} \\(${moved?.hash}, nonce ${moved?.nonce}\\) of trade ${second.id}: it carries no tag of the wallet binding it to that trade`,
      ),
      before,
    );
  });

  it('in a process that starts on it, a record of earlier proofs rewritten to vouch for moved rows vouches for nothing', async () => {
    const location = freshLedger(backend);
    const { first, second } = await twoTrades(location);
    await setBackToClaimed(location, first.id);
    await runSql(location, 'UPDATE attempts SET intent_id = ? WHERE intent_id = ?', second.id, first.id);
    // The digest a writer computes of the rows as they are now (the algorithm is public), under the tag of the rows as they were.
    const record = await (await executor(location)).ledger.attempts.provenThrough(me(), fork.addressBook.chainId);
    // Written before the second trade was signed: it vouches for the first trade's rows.
    expect(record?.throughId).toBe(first.attempts.at(-1)?.id);
    const { ledger } = await executor(location);
    const start = (await ledger.attempts.signedFrom(me(), fork.addressBook.chainId))?.nonce as number;
    const rows = await ledger.trades.walletRows(me(), fork.addressBook.chainId);
    const covered = rows.attempts.filter((attempt) => attempt.nonce >= start && attempt.id <= (record?.throughId as number));
    const callKeys = new Map(rows.trades.map((trade) => [trade.id, callKeyOf(trade)]));
    await runSql(
      location,
      "UPDATE ledger_meta SET value = ? WHERE key LIKE 'proven-through:%'",
      `${record?.throughId}:${digestOf(covered, callKeys)}:${record?.tag}`,
    );
    const before = await walletState();
    // Another process (its own executor): it has proven nothing itself, and reads the record.
    const restarted = await executor(location, { budget: parseUnits('1000000', 18) });
    const [report] = await resumeOpenTrades(restarted);
    // Its approval's bytes are the same as the second trade's own (an exact approval of the same amount): only the
    // row's tag, which names the trade it was signed for, tells them apart.
    const moved = first.attempts[0];
    expect(moved?.purpose).toBe('approve');
    await expectAnomaly(
      location,
      report,
      new RegExp(
        `^attempt ${moved?.id} \\(${moved?.hash}, nonce ${moved?.nonce}\\) of trade ${second.id}: it carries no tag of the wallet binding it to that trade`,
      ),
      before,
    );
  });

  it('a confirmed trade set back to claimed, its transactions deleted: the hole at its nonce is refused, not signed again', async () => {
    const location = freshLedger(backend);
    const { first } = await twoTrades(location);
    await setBackToClaimed(location, first.id);
    await runSql(location, 'DELETE FROM attempts WHERE intent_id = ?', first.id);
    const before = await walletState();
    const [report] = await resume(location);
    const nonce = Math.min(...first.attempts.map((attempt) => attempt.nonce));
    await expectAnomaly(
      location,
      report,
      new RegExp(`^the ledger holds no transaction of ${me()} at nonce ${nonce}, between nonces \\d+ and \\d+ it signed: its row was deleted`),
      before,
    );
  });

  it('lifting the pause after a refused rollback gains nothing: the same rows are refused again', async () => {
    const location = freshLedger(backend);
    const { first } = await twoTrades(location);
    await setBackToClaimed(location, first.id);
    await runSql(location, 'DELETE FROM attempts WHERE intent_id = ?', first.id);
    const before = await walletState();
    expect((await resume(location))[0]?.status).toBe('anomaly');
    await runSql(location, 'DELETE FROM pauses');
    await runSql(location, "UPDATE intents SET status = 'claimed', anomaly = NULL, reason = NULL WHERE id = ?", first.id);
    const [again] = await resume(location);
    await expectAnomaly(location, again, new RegExp(`^the ledger holds no transaction of ${me()} at nonce \\d+`), before);
  });

  it("where the wallet's record starts is written once: deleted by whoever may lift that, the wallet pauses until adopted", async () => {
    const location = freshLedger(backend);
    await twoTrades(location);
    const start = "DELETE FROM ledger_meta WHERE key LIKE 'signed-from:%'";
    await expect(runSql(location, start)).rejects.toThrow(/written once/);
    await liftWrittenOnce(location);
    await runSql(location, start);
    const before = await walletState();
    const report = await runTrade(await executor(location), swapTrade(fork, 'dca', 'once-third#buy'));
    await expectAnomaly(
      location,
      report,
      new RegExp(
        `^the ledger holds no record of where the transactions of ${me()} start, and it has signed trades of it \\(dca:once-first#buy among them\\): .* nothing is signed until a person adopts it`,
      ),
      before,
    );
  });

  it("the wallet's whole record deleted (every trade and the row where it starts): not a new wallet, it pauses until a person adopts it", async () => {
    const location = freshLedger(backend);
    await twoTrades(location);
    await liftWrittenOnce(location);
    for (const statement of ['DELETE FROM attempts', 'DELETE FROM intents', "DELETE FROM ledger_meta WHERE key LIKE 'signed-from:%'"])
      await runSql(location, statement);
    const before = await walletState();
    const report = await runTrade(await executor(location), swapTrade(fork, 'dca', 'once-first#buy'));
    await expectAnomaly(
      location,
      report,
      new RegExp(
        `^the ledger holds no record of where the transactions of ${me()} start, and the chain counts ${before.nonce} of them: the wallet was used before`,
      ),
      before,
    );
    // A person adopts it at the chain's count (what \`routekeeper adopt --nonce N\` writes), and lifts the pauses.
    const deps = await executor(location);
    const chainId = fork.addressBook.chainId;
    await deps.ledger.attempts.startSignedFrom(me(), chainId, { nonce: before.nonce, tag: await deps.wallet.tags.signedFrom(me(), chainId, before.nonce) });
    await runSql(location, 'DELETE FROM pauses');
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    const adopted = await runTrade(deps, swapTrade(fork, 'dca', 'once-again#buy'));
    expect(adopted.status, adopted.reason).toBe('confirmed');
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('100', 18));
  });

  it('a confirmed trade set back to claimed, its transactions left: the rollback is refused, nothing sent', async () => {
    const location = freshLedger(backend);
    const { first } = await twoTrades(location);
    await setBackToClaimed(location, first.id);
    const before = await walletState();
    const [report] = await resume(location);
    await expectAnomaly(
      location,
      report,
      new RegExp(`^trade ${first.id}: the ledger has it claimed, yet the wallet's trade of it is stored .*: its state was rolled back`),
      before,
    );
  });

  it('a confirmed trade set back to claimed with a fresh claim time: its tag no longer holds, refused', async () => {
    const location = freshLedger(backend);
    const { first } = await twoTrades(location);
    await setBackToClaimed(location, first.id);
    await runSql(location, 'DELETE FROM attempts WHERE intent_id = ?', first.id);
    await runSql(location, 'UPDATE intents SET created_at = created_at + 1000 WHERE id = ?', first.id);
    const before = await walletState();
    const [report] = await resume(location);
    await expectAnomaly(location, report, new RegExp(`^trade ${first.id}: its request carries no tag of the wallet`), before);
  });

  it('the newest trade set back and its transactions deleted: the chain counts them, the wallet stops, nothing signed', async () => {
    const location = freshLedger(backend);
    const { second } = await twoTrades(location);
    await setBackToClaimed(location, second.id);
    await runSql(location, 'DELETE FROM attempts WHERE intent_id = ?', second.id);
    const before = await walletState();
    const [report] = await resume(location);
    expect(report?.status, report?.reason).toBe('failed');
    const erased = Math.min(...second.attempts.map((attempt) => attempt.nonce));
    expect(report?.reason).toBe(
      `the node counts ${before.nonce} transactions from ${me()}, but routekeeper signed ${erased}: the key is used elsewhere, or the ledger's rows of the newest were deleted`,
    );
    expect(await walletState()).toEqual(before);
    expect((await (await executor(location)).ledger.pauses.for('dca', me())).map((pause) => pause.scope)).toEqual(['wallet']);
  });

  it('a planted attempt row at a high nonce: the next trade is refused naming it, and nothing is signed at a gap', async () => {
    const location = freshLedger(backend);
    const { second } = await twoTrades(location);
    const planted = { ...(second.attempts.at(-1) as (typeof second.attempts)[0]) };
    await runSql(
      location,
      "INSERT INTO attempts (intent_id, purpose, wallet, chain_id, nonce, max_fee_per_gas, max_priority_fee_per_gas, gas_limit, raw_tx, hash, status, created_at, updated_at) VALUES (?, 'trade', ?, ?, ?, '1', '1', '21000', '0x02', ?, 'mined', 0, 0)",
      second.id,
      me().toLowerCase(),
      fork.addressBook.chainId,
      planted.nonce + 5,
      `0x${'ab'.repeat(32)}`,
    );
    const before = await walletState();
    const report = await runTrade(await executor(location), swapTrade(fork, 'dca', 'third'));
    await expectAnomaly(location, report, new RegExp(`^attempt \\d+ \\(0x(ab){32}\\) of trade ${second.id}: its stored bytes are not a transaction`), before);
  });

  it('a budget: a committed trade set to failed still counts, and one whose claim time is moved out of the day is refused', async () => {
    const location = freshLedger(backend);
    // 250 cUSD a day: two trades of 100 leave room for none more.
    const deps = await executor(location, { budget: parseUnits('250', 18) });
    const done = await runTrade(deps, swapTrade(fork, 'dca', 'one'));
    const failed = await runTrade(deps, swapTrade(fork, 'dca', 'two'));
    expect([done.status, failed.status]).toEqual(['confirmed', 'confirmed']);
    await runSql(location, "UPDATE intents SET status = 'failed' WHERE id = ?", failed.intentId);
    const before = await walletState();
    const third = await runTrade(deps, swapTrade(fork, 'dca', 'three'));
    expect(third).toMatchObject({ status: 'refused', refusal: 'budget' });
    await runSql(location, 'UPDATE intents SET created_at = created_at - 172800000 WHERE id IN (?, ?)', done.intentId, failed.intentId);
    const fourth = await runTrade(deps, swapTrade(fork, 'dca', 'four'));
    await expectAnomaly(
      location,
      fourth,
      new RegExp(
        `^trade (${done.intentId}|${failed.intentId}), a row of wallet ${me()}, carries no tag of the wallet: its strategy, wallet, tokens, amounts or claim time`,
      ),
      before,
    );
  });

  it('a tagged request copied from another ledger, or from a paper-trading one of the same ledger id: refused', async () => {
    const location = freshLedger(backend);
    const { ledger } = await executor(location);
    const account = privateKeyToAccount(fork.addressBook.accounts[0]?.privateKey as `0x${string}`);
    const other = await Ledger.open(freshLedger(backend));
    const otherId = await other.id();
    await other.close();
    expect(otherId).not.toBe(await ledger.id());
    const elsewhere = new RecordTags(account, Promise.resolve({ ledgerId: otherId, paper: false }));
    const paper = new RecordTags(
      account,
      ledger.id().then((ledgerId) => ({ ledgerId, paper: true })),
    );
    const now = Date.now();
    const copied = swapTrade(fork, 'dca', 'copied');
    await ledger.trades.claimSlot(copied, { now, requestTag: await elsewhere.request(copied, now) });
    const fromPaper = swapTrade(fork, 'dca', 'from-paper');
    await ledger.trades.claimSlot(fromPaper, { now, requestTag: await paper.request(fromPaper, now) });
    const before = await walletState();
    const reports = await resume(location);
    expect(reports.map((report) => [report.intentId, report.status, report.reason])).toEqual(
      [copied.id, fromPaper.id].map((id) => [
        id,
        'anomaly',
        `trade ${id}: its request carries no tag of the wallet (written or changed without its key); it is not resumed`,
      ]),
    );
    expect(await walletState()).toEqual(before);
  });

  it("raised fee columns of a stuck trade: refused naming the row, nothing replaced, none of the wallet's coin burned", async () => {
    const location = freshLedger(backend);
    const { maxFeePerGas } = await fork.publicClient.estimateFeesPerGas();
    const feeCap = maxFeePerGas * 3n;
    const first = await executor(location, { wallet: { feeCap, giveUpAfterMs: 300, syncWaitMs: 50 } });
    await fork.testClient.setAutomine(false);
    try {
      const left = await runTrade(first, swapTrade(fork, 'dca', 'once-stuck#buy'));
      expect(left.status, left.reason).toBe('unknown');
      const [approval] = await first.ledger.attempts.ofTrade(left.intentId);
      const signedFee = parseTransaction(approval?.rawTx as `0x02${string}`).maxFeePerGas as bigint;
      const raised = 10n ** 30n;
      await runSql(location, 'UPDATE attempts SET max_fee_per_gas = ? WHERE intent_id = ?', raised.toString(), left.intentId);
      const before = await walletState();
      // A fresh process resumes it; a transaction pending for a moment is stuck, and would be replaced.
      const later = await executor(location, { wallet: { feeCap, stuckAfterMs: 0, giveUpAfterMs: 10_000 } });
      const [report] = await resumeOpenTrades(later);
      const attempts = await later.ledger.attempts.ofTrade(left.intentId);
      expect(attempts).toHaveLength(2);
      expect((await later.ledger.events.list(left.intentId)).filter((event) => event.kind === 'replace' || event.kind === 'cancel')).toEqual([]);
      await expectAnomaly(
        location,
        report,
        new RegExp(
          `^attempt ${approval?.id} \\(${approval?.hash}\\) of trade ${left.intentId}: its row says a max fee per gas of ${raised}, its stored bytes ${signedFee}; nothing is sent for it$`,
        ),
        before,
      );
    } finally {
      await fork.testClient.setAutomine(true);
    }
  });

  it("the ledger's id changed: every tag of it is invalid, its open trade refused, nothing signed", async () => {
    const location = freshLedger(backend);
    const { ledger, wallet } = await executor(location);
    const open = swapTrade(fork, 'dca', 'once-open#buy');
    const now = Date.now();
    await ledger.trades.claimSlot(open, { now, requestTag: await wallet.tags.request(open, now) });
    const rewrite = "UPDATE ledger_meta SET value = 'another-ledger' WHERE key = 'ledger-id'";
    await expect(runSql(location, rewrite)).rejects.toThrow(/written once/);
    await liftWrittenOnce(location);
    await runSql(location, rewrite);
    const before = await walletState();
    // The next process reads the id as it finds it.
    const [report] = await resumeOpenTrades(await executor(location, { budget: parseUnits('1000000', 18) }));
    await expectAnomaly(location, report, new RegExp(`^trade ${open.id}: its request carries no tag of the wallet`), before);
  });

  it('a filled one-shot order whose trade is set to failed: still filled, it does not sell again', async () => {
    const location = freshLedger(backend);
    const deps = await executor(location);
    const takeProfit = limitOrder({ takeProfit: '0.01' });
    const view = { client: deps.wallet.client, prices: deps.prices, wallet: me(), now: Date.now };
    const filled = await runStrategy(takeProfit, 'slot-1', { executor: deps, view });
    expect(
      filled.trades.map((trade) => trade.status),
      `${filled.note}; ${filled.trades.map((trade) => trade.reason).join('; ')}`,
    ).toEqual(['confirmed']);
    await runSql(location, "UPDATE intents SET status = 'failed', reason = 'no route' WHERE strategy_id = 'take'");
    const before = await walletState();
    const again = await runStrategy(takeProfit, 'slot-2', { executor: deps, view });
    expect(again).toMatchObject({ trades: [], note: 'already filled once' });
    expect(await walletState()).toEqual(before);
  });
});
