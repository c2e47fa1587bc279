/**
 * A hostile database, written by plain SQL on both ledgers: only the strategy file and the chain may make the wallet
 * sign or send. Each row below once made a resumed trade sign or send something; now each is refused by name (the
 * trade an `anomaly`, its strategy and wallet paused), and nothing is signed or sent: the wallet's nonce, balances
 * and attempts stay as they were. The control: the same trade, untouched, resumes and trades.
 */
import { type Address, type Hex, encodeFunctionData, erc20Abi, keccak256, parseUnits, serializeTransaction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { strategyFit } from '../../src/engine/strategy-fit.ts';
import type { LedgerLocation } from '../../src/ledger/ledger.ts';
import { resumeOpenTrades, runTrade } from '../../src/trade/pipeline.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, dcaStrategy, swapTrade, testExecutor } from '../helpers/engine.ts';
import { backends, freshLedger, runSql } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });
const me = () => fork.addressBook.accounts[0]?.address as Address;
const outsider = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

/**
 * One routekeeper process at a time on the ledger (a SQLite ledger has one owner): each call ends the previous one's,
 * then starts its own. `wallet`: the new process's wallet settings.
 */
let current: { executor: TestExecutor; location: LedgerLocation; wallet: WalletOptions } | undefined;
type WalletOptions = NonNullable<Parameters<typeof testExecutor>[1]>['wallet'];
afterAll(async () => {
  await current?.executor.close();
});
async function executor(location: LedgerLocation, wallet: WalletOptions = {}) {
  if (current?.location === location && JSON.stringify(current.wallet) === JSON.stringify(wallet)) return current.executor;
  await current?.executor.close();
  const made = await testExecutor(fork, { location, wallet, fits: strategyFit([dcaStrategy(fork)], () => me()) });
  current = { executor: made, location, wallet };
  return made;
}

const sql = runSql;

/** Claims a trade as the wallet would: tagged, now. */
async function claimTagged(trade: ReturnType<typeof swapTrade>, location: LedgerLocation) {
  const { ledger, wallet } = await executor(location);
  const now = Date.now();
  await ledger.trades.claimSlot(trade, { now, requestTag: await wallet.tags.request(trade, now) });
}

/** A real trade of the wallet, signed and sent but never mined: the node dropped it. The ledger says `unknown`. */
async function tradeLeftInFlight(location: LedgerLocation) {
  const first = await executor(location, { giveUpAfterMs: 300, syncWaitMs: 50 });
  await fork.testClient.setAutomine(false);
  const report = await runTrade(first, swapTrade(fork, 'dca', 'left-in-flight'));
  expect(report.status, report.reason).toBe('unknown');
  const attempts = await first.ledger.attempts.ofTrade(report.intentId);
  expect(attempts.map((attempt) => [attempt.purpose, attempt.status])).toEqual([
    ['approve', 'broadcast'],
    ['trade', 'broadcast'],
  ]);
  for (const attempt of attempts) await fork.testClient.dropTransaction({ hash: attempt.hash });
  await fork.testClient.setAutomine(true);
  return { id: report.intentId, approve: attempts[0] as (typeof attempts)[0], trade: attempts[1] as (typeof attempts)[0] };
}

/** A cUSD transfer of the wallet's to an outsider at `nonce`: what a database writer would like the wallet to send. */
function drain(nonce: number): Parameters<typeof serializeTransaction>[0] {
  return {
    type: 'eip1559',
    chainId: fork.addressBook.chainId,
    nonce,
    to: fork.token('cUSD'),
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [outsider.address, parseUnits('1000', 18)] }),
    gas: 100_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
    value: 0n,
  };
}

async function walletState(location: LedgerLocation, id: string) {
  const ledger = (await executor(location)).ledger;
  return {
    nonce: await fork.publicClient.getTransactionCount({ address: me() }),
    usd: await fork.balanceOf(fork.token('cUSD'), me()),
    celo: await fork.balanceOf(fork.token('CELO'), me()),
    attempts: (await ledger.attempts.ofTrade(id)).map((attempt) => [attempt.purpose, attempt.hash]),
  };
}

/** Resumes the wallet's open trades with a fresh process's executor: a transaction pending a moment is stuck. */
async function resume(location: LedgerLocation): Promise<TradeReport[]> {
  return resumeOpenTrades(await executor(location, { stuckAfterMs: 0, giveUpAfterMs: 5_000 }));
}

/** The trade was refused by name, nothing was signed or sent, and its strategy and wallet are paused. */
async function expectRefused(location: LedgerLocation, id: string, reports: TradeReport[], why: RegExp, before: Awaited<ReturnType<typeof walletState>>) {
  const report = reports.find((candidate) => candidate.intentId === id);
  expect(report?.status, report?.reason).toBe('anomaly');
  expect(report?.reason).toMatch(why);
  expect(await walletState(location, id)).toEqual(before);
  const { ledger } = await executor(location);
  expect((await ledger.trades.get(id))?.status).toBe('anomaly');
  expect(
    (await ledger.events.list(id)).filter((event) => event.kind === 'stored-record-refused').map((event) => (event.details as { reason: string }).reason),
  ).toEqual([report?.reason]);
  expect((await ledger.pauses.for('dca', me())).map((pause) => pause.scope).sort()).toEqual(['strategy', 'wallet']);
}

describe.each(backends)('a hostile database on %s', (backend) => {
  it('(the control) leaves an honest trade in flight that, resumed, is sent again byte for byte and trades', async () => {
    const location = freshLedger(backend);
    const { id, trade } = await tradeLeftInFlight(location);
    const before = await walletState(location, id);
    const [report] = await resume(location);
    expect(report?.status, report?.reason).toBe('confirmed');
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(before.usd - parseUnits('100', 18));
    expect((await (await executor(location)).ledger.trades.get(id))?.settlement?.txHash).toBe(trade.hash);
  });

  it('unsigned bytes of a transfer to an outsider, marked an approval: refused, nothing sent', async () => {
    const location = freshLedger(backend);
    const { id, approve } = await tradeLeftInFlight(location);
    const raw = serializeTransaction(drain(approve.nonce));
    await sql(location, 'UPDATE attempts SET raw_tx = ?, hash = ? WHERE id = ?', raw, keccak256(raw), approve.id);
    const before = await walletState(location, id);
    await expectRefused(
      location,
      id,
      await resume(location),
      new RegExp(`^attempt ${approve.id} \\(0x\\w+\\) of trade ${id}: its stored bytes carry no valid signature; nothing is sent for it$`),
      before,
    );
    expect(await fork.balanceOf(fork.token('cUSD'), outsider.address)).toBe(0n);
  });

  it('bytes signed by another key: refused, nothing sent', async () => {
    const location = freshLedger(backend);
    const { id, approve } = await tradeLeftInFlight(location);
    const raw = await outsider.signTransaction(drain(approve.nonce) as Parameters<typeof outsider.signTransaction>[0]);
    await sql(location, 'UPDATE attempts SET raw_tx = ?, hash = ? WHERE id = ?', raw, keccak256(raw), approve.id);
    const before = await walletState(location, id);
    await expectRefused(location, id, await resume(location), new RegExp(`its stored bytes are signed by ${outsider.address}, not by the wallet`), before);
  });

  it("a forged purpose on the wallet's own signed bytes: refused, nothing sent", async () => {
    const location = freshLedger(backend);
    const { id, trade } = await tradeLeftInFlight(location);
    await sql(location, "UPDATE attempts SET purpose = 'cancel' WHERE id = ?", trade.id);
    const before = await walletState(location, id);
    await expectRefused(
      location,
      id,
      await resume(location),
      new RegExp(`attempt ${trade.id} .*: its row says cancel, its bytes are the trade's trade`),
      before,
    );
  });

  it('an edited checked call (what a replacement would sign): refused, nothing sent', async () => {
    const location = freshLedger(backend);
    const { id } = await tradeLeftInFlight(location);
    await sql(location, 'UPDATE intents SET call_data = ? WHERE id = ?', drain(0).data as Hex, id);
    const before = await walletState(location, id);
    await expectRefused(location, id, await resume(location), new RegExp(`^trade ${id}: its checked call carries no tag of the wallet`), before);
  });

  it('a claimed trade of a strategy the file does not have, its own tag or none: refused, nothing signed', async () => {
    const location = freshLedger(backend);
    const { ledger } = await executor(location);
    // One the wallet itself claimed under an older file (its tag is the wallet's), one written in by hand (no tag).
    const ghost = swapTrade(fork, 'ghost', 'old-file');
    await claimTagged(ghost, location);
    const forged = swapTrade(fork, 'dca', 'forged');
    await ledger.trades.claimSlot(forged);
    await sql(location, "UPDATE intents SET strategy_id = 'ghost' WHERE id = ?", forged.id);
    const before = await walletState(location, ghost.id);
    const reports = await resume(location);
    // The wallet's own row, of a file since changed: refused, and nothing paused for it (the forged one pauses).
    const ghostReport = reports.find((report) => report.intentId === ghost.id);
    expect(ghostReport).toMatchObject({ status: 'refused', refusal: 'strategy-file' });
    expect(ghostReport?.reason).toBe(`trade ${ghost.id}: no strategy 'ghost' is in the current strategy file; it is not resumed`);
    const forgedReport = reports.find((report) => report.intentId === forged.id);
    expect(forgedReport?.status).toBe('anomaly');
    expect(forgedReport?.reason).toBe(`trade ${forged.id}: its request carries no tag of the wallet (written or changed without its key); it is not resumed`);
    expect(await walletState(location, ghost.id)).toEqual(before);
    expect(await (await executor(location)).ledger.attempts.ofTrade(forged.id)).toEqual([]);
  });

  it('a trade with 99.99% slippage, edited in or tagged by the wallet under a looser file: refused, nothing signed', async () => {
    const location = freshLedger(backend);
    await executor(location);
    const edited = swapTrade(fork, 'dca', 'edited');
    await claimTagged(edited, location);
    await sql(location, 'UPDATE intents SET slippage_bps = 9999 WHERE id = ?', edited.id);
    const loose = swapTrade(fork, 'dca', 'loose', { slippageBps: 9999 });
    await claimTagged(loose, location);
    const before = await walletState(location, edited.id);
    const reports = await resume(location);
    expect(reports.find((report) => report.intentId === edited.id)?.reason).toBe(
      `trade ${edited.id}: its request carries no tag of the wallet (written or changed without its key); it is not resumed`,
    );
    expect(reports.find((report) => report.intentId === loose.id)?.reason).toBe(
      `trade ${loose.id}: its slippage of 9999 bps is looser than strategy dca's 50 bps; it is not resumed`,
    );
    expect(reports.map((report) => [report.intentId, report.status])).toEqual([
      [edited.id, 'anomaly'],
      [loose.id, 'refused'],
    ]);
    expect(await walletState(location, edited.id)).toEqual(before);
  });

  it('an authentication tag copied from another trade: refused, nothing signed', async () => {
    const location = freshLedger(backend);
    const { ledger } = await executor(location);
    const honest = swapTrade(fork, 'dca', 'honest');
    await claimTagged(honest, location);
    await sql(location, "UPDATE intents SET status = 'failed', reason = 'done' WHERE id = ?", honest.id);
    const copy = swapTrade(fork, 'dca', 'copy');
    await ledger.trades.claimSlot(copy);
    await sql(location, 'UPDATE intents SET request_tag = (SELECT request_tag FROM intents WHERE id = ?) WHERE id = ?', honest.id, copy.id);
    const before = await walletState(location, copy.id);
    await expectRefused(location, copy.id, await resume(location), new RegExp(`^trade ${copy.id}: its request carries no tag of the wallet`), before);
  });
});
