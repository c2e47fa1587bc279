import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultLedgerFile, removeStaleThrowawayLedgers, throwawayLedgerFile } from '../../src/ledger/files.ts';
import { Ledger, LedgerChainMismatchError, type LedgerLocation, describeLocation, LedgerLockedError, lockStaleAfterMs } from '../../src/ledger/ledger.ts';
import { backends, freshLedger, runSql, spentSince } from '../helpers/ledgers.ts';
import { committedTrades, pastTradesOf } from '../../src/trade/wallet-history.ts';
import { IllegalTransitionError } from '../../src/ledger/transitions.ts';
import { PausedError } from '../../src/ledger/pauses.ts';
import { migrations } from '../../src/ledger/schema.ts';
import type { Settlement, Trade } from '../../src/model/trade.ts';

const wallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as const;
const celo = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

function freshFile() {
  return join(mkdtempSync(join(tmpdir(), 'routekeeper-ledger-')), 'ledger.sqlite');
}
async function openLedger(where: string | LedgerLocation, options: Parameters<typeof Ledger.open>[1] = {}) {
  const ledger = await Ledger.open(where, options);
  open.push(ledger);
  return ledger;
}
const cusd = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as const;
const intent = (slot: string, amountIn = 10n ** 18n): Trade => ({
  id: `dca:${slot}`,
  strategyId: 'dca',
  slot,
  kind: 'swap',
  wallet,
  chainId: 42220,
  tokenIn: celo,
  tokenOut: cusd,
  amountIn,
  slippageBps: 30,
  minAmountOut: 4n,
});
const signedAttempt = (intentId: string, nonce: number, hash: `0x${string}`) => ({
  intentId,
  purpose: 'trade' as const,
  wallet,
  chainId: 42220,
  nonce,
  maxFeePerGas: 30_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  gasLimit: 400_000n,
  rawTx: '0x02f8aa' as const,
  hash,
});

const call = { target: celo, spender: celo, data: '0x9acc65a9' as const, expectedOut: 100n, minOut: 99n, deadline: 1_700_000_000n, router: celo };
const settlement = { txHash: '0xfeed' as const, blockNumber: 9n, gasUsed: 100n, effectiveGasPrice: 7n, amountOut: 5n, reportedOut: 5n };
let hashes = 0;
/** Drives a claimed trade through the legal moves to `to`, as the pipeline would. */
async function walk(ledger: Ledger, id: string, to: 'checked' | 'signed' | 'broadcast' | 'confirmed', now?: number, settledWith: Settlement = settlement) {
  await ledger.trades.commitChecked(id, { call, status: 'checked' }, now);
  if (to === 'checked') return;
  const [attempt] = await ledger.trades.recordSigned([signedAttempt(id, hashes, `0x${(++hashes).toString(16).padStart(64, '0')}`)], { now });
  if (to === 'signed') return;
  await ledger.trades.markBroadcast(id, { now });
  if (to === 'broadcast') return;
  await ledger.attempts.settleNonce(attempt?.id as number, { status: 'mined', blockNumber: 9n, gasUsed: 100n, effectiveGasPrice: 7n }, [], now);
  await ledger.trades.settle(id, settledWith, now);
}

/** Makes (or removes) a trigger that fails every insert of a pause, as a crash between an anomaly's steps would. */
async function failPauses(location: LedgerLocation, fail: boolean): Promise<void> {
  if (location.kind === 'sqlite') {
    await runSql(
      location,
      fail ? "CREATE TRIGGER crash BEFORE INSERT ON pauses BEGIN SELECT RAISE(ABORT, 'crash before the pause'); END" : 'DROP TRIGGER crash',
    );
    return;
  }
  if (!fail) return runSql(location, 'DROP TRIGGER crash ON pauses');
  await runSql(location, "CREATE FUNCTION crash() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'crash before the pause'; END $$ LANGUAGE plpgsql");
  await runSql(location, 'CREATE TRIGGER crash BEFORE INSERT ON pauses FOR EACH ROW EXECUTE FUNCTION crash()');
}

describe.each(backends)('the ledger on %s', (backend) => {
  it('records an anomaly with its event and its pauses in one transaction: a crash between them leaves neither', async () => {
    const location = freshLedger(backend);
    const ledger = await openLedger(location);
    await ledger.trades.claimSlot(intent('odd'));
    await walk(ledger, 'dca:odd', 'broadcast');
    const anomaly = { reason: 'the wallet received less than the logs say', event: { kind: 'anomaly' as const, details: { reason: 'less' } }, settlement };
    await failPauses(location, true);
    await expect(ledger.trades.markAnomaly(intent('odd'), anomaly)).rejects.toThrow(/crash before the pause/);
    expect((await ledger.trades.get('dca:odd'))?.status).toBe('broadcast');
    expect((await ledger.events.list('dca:odd')).filter((event) => event.kind === 'anomaly')).toEqual([]);
    expect(await ledger.pauses.all()).toEqual([]);
    await failPauses(location, false);
    await ledger.trades.markAnomaly(intent('odd'), anomaly);
    expect(await ledger.trades.get('dca:odd')).toMatchObject({ status: 'anomaly', anomaly: anomaly.reason, settlement });
    expect((await ledger.events.list('dca:odd')).map((event) => event.kind)).toContain('anomaly');
    expect((await ledger.pauses.all()).map((pause) => [pause.scope, pause.key, pause.intentId])).toEqual([
      ['strategy', 'dca', 'dca:odd'],
      ['wallet', wallet.toLowerCase(), 'dca:odd'],
    ]);
  });

  it('keeps the V3 position trades of every kind, their fields and what their settlement read, exactly', async () => {
    const ledger = await openLedger(freshLedger(backend));
    const position = { positionManager: cusd, positionId: 7n };
    const common = { strategyId: 'lp', wallet, chainId: 42220, tokenIn: celo, tokenOut: cusd, slippageBps: 50, position };
    const trades: Trade[] = [
      { ...common, id: 'lp:s#collect', slot: 's#collect', kind: 'collect', amountIn: 0n, amountIn1: 0n },
      { ...common, id: 'lp:s#add', slot: 's#add', kind: 'add-liquidity', amountIn: 5n, amountIn1: 6n },
      { ...common, id: 'lp:s#remove', slot: 's#remove', kind: 'remove-liquidity', amountIn: 0n, amountIn1: 0n, liquidity: 10n ** 21n, burn: true },
      { ...common, id: 'lp:s#mint', slot: 's#mint', kind: 'mint', amountIn: 8n, amountIn1: 9n, fee: 3000, range: { tickLower: -600, tickUpper: 1200 } },
    ];
    const settled = {
      'lp:s#remove': { ...settlement, position: { amount0: 30n, amount1: 40n, liquidity: 10n ** 21n, freed0: 25n, freed1: 38n } },
      'lp:s#mint': { ...settlement, position: { amount0: 8n, amount1: 7n, liquidity: 123n, positionId: 12n } },
    } as const;
    for (const trade of trades) {
      await ledger.trades.claimSlot(trade);
      await walk(ledger, trade.id, 'confirmed', undefined, settled[trade.id as keyof typeof settled] ?? settlement);
    }
    // Addresses come back in lower case, as the ledger stores them.
    const lower = (address: string) => address.toLowerCase();
    for (const trade of trades) {
      expect(await ledger.trades.get(trade.id)).toMatchObject({
        ...trade,
        wallet: lower(trade.wallet),
        tokenIn: lower(trade.tokenIn),
        tokenOut: lower(trade.tokenOut),
        position: { positionManager: lower(position.positionManager), positionId: 7n },
        status: 'confirmed',
      });
    }
    expect((await ledger.trades.get('lp:s#remove'))?.settlement?.position).toEqual(settled['lp:s#remove'].position);
    expect((await ledger.trades.get('lp:s#mint'))?.settlement?.position).toEqual(settled['lp:s#mint'].position);
    // What they spent, token by token, for the budgets: an add and a mint spend both tokens, a collect and a removal
    // none (a swap of the second token, as its input, counts as any swap).
    expect(await spentSince(ledger, { wallet, strategyId: 'lp', token: celo, since: 0 })).toBe(5n + 8n);
    expect(await spentSince(ledger, { wallet, strategyId: 'lp', token: cusd, since: 0 })).toBe(6n + 9n);
    expect(await spentSince(ledger, { wallet, strategyId: 'lp', token: cusd, since: 0, excludeId: 'lp:s#mint' })).toBe(6n);
  });

  it('records one trade per slot: a second run of the slot gets nothing to do', async () => {
    const ledger = await openLedger(freshLedger(backend));
    const created = await ledger.trades.claimSlot(intent('2026-11-20T10:00'), { now: 1_000 });
    // Addresses are stored (and read back) in lower case, whatever case they were given in.
    expect(created?.record).toEqual({
      ...intent('2026-11-20T10:00'),
      wallet: wallet.toLowerCase(),
      tokenIn: celo.toLowerCase(),
      tokenOut: cusd.toLowerCase(),
      status: 'claimed',
      createdAt: 1_000,
      updatedAt: 1_000,
    });
    expect(created?.paused).toBe(false);
    expect(await ledger.trades.get('dca:2026-11-20T10:00')).toEqual(created?.record);
    expect(await ledger.trades.claimSlot(intent('2026-11-20T10:00'), { now: 2_000 })).toBeUndefined();
    expect((await ledger.trades.unfinished()).map((i) => i.id)).toEqual(['dca:2026-11-20T10:00']);
    await walk(ledger, 'dca:2026-11-20T10:00', 'confirmed');
    expect(await ledger.trades.get('dca:2026-11-20T10:00')).toMatchObject({ status: 'confirmed', settlement });
    expect((await ledger.trades.get('dca:2026-11-20T10:00'))?.failure).toBeUndefined();
    expect(await ledger.trades.unfinished()).toEqual([]);
  });

  it('stores each stage in typed columns: the checked call, the simulation, a refusal with its guard', async () => {
    const ledger = await openLedger(freshLedger(backend));
    await ledger.trades.claimSlot(intent('s2'));
    await ledger.trades.commitChecked('dca:s2', { call, simulatedOut: 100n, status: 'checked' });
    const stored = { ...call, target: celo.toLowerCase(), spender: celo.toLowerCase(), router: celo.toLowerCase() };
    expect(await ledger.trades.get('dca:s2')).toMatchObject({ status: 'checked', call: stored, simulatedOut: 100n });
    await ledger.trades.refuse('dca:s2', { reason: 'deadline: too far', refusal: 'deadline', errorClass: 'refused', retryable: false });
    // A later stage keeps what earlier ones stored.
    expect(await ledger.trades.get('dca:s2')).toMatchObject({
      status: 'refused',
      call: stored,
      failure: { reason: 'deadline: too far', refusal: 'deadline', errorClass: 'refused', retryable: false },
    });
  });

  it('moves a trade to `signed` in the same transaction that stores its signed bytes', async () => {
    const ledger = await openLedger(freshLedger(backend));
    await ledger.trades.claimSlot(intent('s3'));
    // Not checked yet: no bytes can be stored for it, and nothing is.
    await expect(ledger.trades.recordSigned([signedAttempt('dca:s3', 4, '0xaa00')])).rejects.toThrow(IllegalTransitionError);
    expect(await ledger.attempts.ofTrade('dca:s3')).toEqual([]);
    await walk(ledger, 'dca:s3', 'checked');
    const [approve, trade] = await ledger.trades.recordSigned([
      { ...signedAttempt('dca:s3', 4, '0xaa01'), purpose: 'approve' },
      signedAttempt('dca:s3', 5, '0xaa02'),
    ]);
    expect([approve?.nonce, trade?.nonce, trade?.status]).toEqual([4, 5, 'signed']);
    expect((await ledger.trades.get('dca:s3'))?.status).toBe('signed');
    // A replacement later leaves the trade's state alone.
    await ledger.trades.markBroadcast('dca:s3');
    await ledger.trades.recordSigned([signedAttempt('dca:s3', 5, '0xaa03')]);
    expect((await ledger.trades.get('dca:s3'))?.status).toBe('broadcast');
    expect((await ledger.attempts.ofTrade('dca:s3')).map((a) => a.hash)).toEqual(['0xaa01', '0xaa02', '0xaa03']);
  });

  it('stores signed attempts with their bytes and follows their status', async () => {
    const ledger = await openLedger(freshLedger(backend));
    await ledger.trades.claimSlot(intent('s1'));
    await walk(ledger, 'dca:s1', 'checked');
    const [attempt] = await ledger.trades.recordSigned([signedAttempt('dca:s1', 7, '0xABC1')]);
    if (!attempt) throw new Error('no attempt stored');
    expect(attempt).toMatchObject({ status: 'signed', nonce: 7, maxFeePerGas: 30_000_000_000n, rawTx: '0x02f8aa', blockNumber: null, hash: '0xabc1' });
    await ledger.attempts.update(attempt.id, { status: 'broadcast' });
    expect(await ledger.attempts.byHash('0xAbC1')).toMatchObject({ id: attempt.id, status: 'broadcast' });
    const [replacement] = await ledger.trades.recordSigned([signedAttempt('dca:s1', 7, '0xabc3')]);
    // One of the nonce's transactions mined: it has the receipt's figures, the other is replaced, in one step.
    const mined = await ledger.attempts.settleNonce(attempt.id, { status: 'mined', blockNumber: 123n, gasUsed: 210_000n, effectiveGasPrice: 25n }, [
      replacement?.id as number,
    ]);
    expect(mined).toMatchObject({ status: 'mined', blockNumber: 123n, gasUsed: 210_000n, effectiveGasPrice: 25n });
    expect((await ledger.attempts.ofTrade('dca:s1')).map((a) => a.status)).toEqual(['mined', 'replaced']);
    expect(await ledger.attempts.gasByTrade()).toEqual(new Map([['dca:s1', 210_000n * 25n]]));
    // A wallet's attempts from a nonce on, by nonce (an address in any case; another chain has none).
    const nonces = async (from: typeof wallet, chainId: number, fromNonce = 0) =>
      (await ledger.attempts.ofWallet(from, chainId, fromNonce)).map((a) => [a.nonce, a.status]);
    expect(await nonces(wallet, 42220)).toEqual([
      [7, 'mined'],
      [7, 'replaced'],
    ]);
    expect(await nonces(wallet.toLowerCase() as typeof wallet, 42220)).toEqual([
      [7, 'mined'],
      [7, 'replaced'],
    ]);
    expect(await nonces(wallet, 1)).toEqual([]);
    const [refused] = await ledger.trades.recordSigned([signedAttempt('dca:s1', 8, '0xabc2')]);
    await ledger.attempts.update(refused?.id as number, { status: 'dropped', error: 'underpriced' });
    expect(await nonces(wallet, 42220, 8)).toEqual([[8, 'dropped']]);
  });

  it('sums what a strategy and a wallet committed of a token since a time: checked or further, not refused, failed or still being checked', async () => {
    const location = freshLedger(backend);
    const ledger = await openLedger(location);
    for (const [slot, amount, at] of [
      ['a', 100n, 1_000],
      ['b', 200n, 2_000],
      ['c', 400n, 3_000],
      ['d', 800n, 4_000],
      ['e', 1_600n, 5_000],
      ['f', 3_200n, 6_000],
    ] as const) {
      await ledger.trades.claimSlot(intent(slot, amount), { now: at });
    }
    await walk(ledger, 'dca:b', 'confirmed');
    await ledger.trades.refuse('dca:c', { reason: 'price limit', refusal: 'threshold', retryable: false });
    await ledger.trades.fail('dca:d', { reason: 'the service failed', retryable: false });
    await walk(ledger, 'dca:e', 'checked');
    // a and f are claimed (being checked): neither has passed its budget yet, so neither commits anything.
    expect(await spentSince(ledger, { wallet, strategyId: 'dca', token: celo, since: 0 })).toBe(1_800n);
    expect(await spentSince(ledger, { wallet, token: celo, since: 4_500 })).toBe(1_600n);
    expect(
      await spentSince(ledger, {
        wallet: wallet.toLowerCase() as typeof wallet,
        token: celo.toUpperCase().replace('0X', '0x') as typeof celo,
        since: 0,
        excludeId: 'dca:e',
      }),
    ).toBe(200n);
    expect(await spentSince(ledger, { wallet, strategyId: 'other', token: celo, since: 0 })).toBe(0n);
    // A trade whose transaction was signed counts whatever its state says: a state set back gives nothing back.
    await walk(ledger, 'dca:a', 'signed');
    await runSql(location, "UPDATE intents SET status = 'failed' WHERE id = ?", 'dca:a');
    expect((await ledger.trades.get('dca:a'))?.status).toBe('failed');
    expect(await spentSince(ledger, { wallet, strategyId: 'dca', token: celo, since: 0 })).toBe(1_900n);
  });

  it('checks a budget and commits the amount in one step: of two trades racing for the last of a budget, one commits', async () => {
    const ledger = await openLedger(freshLedger(backend));
    await ledger.trades.claimSlot(intent('x', 600n));
    await ledger.trades.claimSlot(intent('y', 600n));
    const limit = 1_000n;
    const commit = (id: string) =>
      ledger.trades.commitChecked(id, {
        call,
        status: 'checked',
        verify: async (rows) => {
          const already = committedTrades(pastTradesOf(rows), celo, { strategyId: 'dca', excludeId: id }).reduce(
            (sum, { record }) => sum + record.amountIn,
            0n,
          );
          // Each looks while the other may be looking: only the transaction keeps them apart. (A pause inside the
          // transaction, on purpose: it holds the window open.)
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (already + 600n > limit) throw new Error(`budget: ${already} spent`);
        },
      });
    const results = await Promise.allSettled([commit('dca:x'), commit('dca:y')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as Error).message).toBe('budget: 600 spent');
    expect(await spentSince(ledger, { wallet, strategyId: 'dca', token: celo, since: 0 })).toBe(600n);
    // The refused one is still claimed: nothing of it was written.
    expect((await Promise.all(['dca:x', 'dca:y'].map((id) => ledger.trades.get(id)))).map((t) => t?.status).sort()).toEqual(['checked', 'claimed']);
  });

  it("answers a run's gate as it starts: paused by its strategy or its wallet, waiting for a trade that may have traded", async () => {
    const ledger = await openLedger(freshLedger(backend));
    const gateAt = async (slot: string) => (await ledger.runs.start('dca', wallet, slot)).gate;
    expect(await gateAt('1')).toEqual({ paused: false });
    await ledger.pauses.pause({ scope: 'wallet', key: wallet, reason: 'key used elsewhere' });
    expect(await gateAt('2')).toEqual({ paused: true });
    expect(await ledger.runs.gate('other', wallet)).toEqual({ paused: true });
    expect(await ledger.runs.gate('dca', '0x0000000000000000000000000000000000000001')).toEqual({ paused: false });
    await ledger.pauses.lift('wallet', wallet);
    await ledger.pauses.pause({ scope: 'strategy', key: 'dca', reason: 'anomaly' });
    expect(await ledger.runs.gate('dca', '0x0000000000000000000000000000000000000001')).toEqual({ paused: true });
    await ledger.pauses.lift('strategy', 'dca');
    // A trade checked is not waited for; one signed may have traded.
    await ledger.trades.claimSlot(intent('checked'));
    await walk(ledger, 'dca:checked', 'checked');
    expect(await gateAt('3')).toEqual({ paused: false });
    await ledger.trades.claimSlot(intent('signed'));
    await walk(ledger, 'dca:signed', 'signed');
    expect(await gateAt('4')).toEqual({ paused: false, waitingFor: 'dca:signed' });
    expect((await ledger.runs.list()).map((run) => run.slot)).toEqual(['4', '3', '2', '1']);
  });

  it('commits no checked call once its strategy or wallet is paused: the trade stays claimed', async () => {
    const ledger = await openLedger(freshLedger(backend));
    for (const [slot, scope, key] of [
      ['p1', 'strategy', 'dca'],
      ['p2', 'wallet', wallet],
    ] as const) {
      expect((await ledger.trades.claimSlot(intent(slot, 100n)))?.paused).toBe(false);
      await ledger.pauses.pause({ scope, key, reason: 'a person looks' });
      // A claim made now says so.
      expect((await ledger.trades.claimSlot(intent(`${slot}-later`, 100n)))?.paused).toBe(true);
      const error = await ledger.trades.commitChecked(`dca:${slot}`, { call, status: 'checked' }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(PausedError);
      expect((error as PausedError).pause).toMatchObject({ scope, key: key.toLowerCase(), reason: 'a person looks' });
      // With a budget to check too, in its transaction.
      const budgeted = await ledger.trades.commitChecked(`dca:${slot}`, { call, status: 'checked', verify: async () => {} }).catch((thrown: unknown) => thrown);
      expect(budgeted).toBeInstanceOf(PausedError);
      expect((await ledger.trades.get(`dca:${slot}`))?.status).toBe('claimed');
      await ledger.pauses.lift(scope, key);
    }
    await ledger.trades.commitChecked('dca:p1', { call, status: 'checked' });
    expect(await spentSince(ledger, { wallet, strategyId: 'dca', token: celo, since: 0 })).toBe(100n);
  });

  it("knows each strategy's latest scheduled slot that decided to trade nothing, for every strategy or those asked", async () => {
    const ledger = await openLedger(freshLedger(backend));
    const ran = async (strategyId: string, slot: string, outcome: 'nothing' | 'paused' | 'failed' | 'traded') => {
      const { runId } = await ledger.runs.start(strategyId, wallet, slot);
      await ledger.runs.finish(runId, outcome, outcome);
    };
    await ran('dca', '2026-11-20T10:00:00.000Z', 'nothing');
    await ran('dca', '2026-11-20T10:01:00.000Z', 'paused');
    // A failed run decided nothing (it is caught up); a run that traded shows in its trade; `once` is off schedule.
    await ran('dca', '2026-11-20T10:02:00.000Z', 'failed');
    await ran('dca', '2026-11-20T10:03:00.000Z', 'traded');
    await ran('dca', 'once-2026-11-20T10:04:00.000Z', 'nothing');
    await ran('other', '2026-11-20T09:00:00.000Z', 'nothing');
    const both = new Map([
      ['dca', Date.parse('2026-11-20T10:01:00.000Z')],
      ['other', Date.parse('2026-11-20T09:00:00.000Z')],
    ]);
    expect(await ledger.runs.lastSlots()).toEqual(both);
    expect(await ledger.runs.lastSlots(['other', 'gone'])).toEqual(new Map([['other', Date.parse('2026-11-20T09:00:00.000Z')]]));
    expect(await ledger.runs.lastSlots([])).toEqual(new Map());
  });

  it('ties a run to the trades it claimed', async () => {
    const ledger = await openLedger(freshLedger(backend));
    const { runId: run } = await ledger.runs.start('dca', wallet, '2026-11-20T10:00', 1_000);
    await ledger.trades.claimSlot(intent('2026-11-20T10:00#sell'), { runId: run, now: 1_001 });
    await ledger.trades.claimSlot(intent('2026-11-20T10:00#buy'), { runId: run, now: 1_001 });
    // A trade from before trades named their run belongs to the run whose slot its own extends.
    const { runId: older } = await ledger.runs.start('dca', wallet, '2026-11-20T09:00', 500);
    await ledger.trades.claimSlot(intent('2026-11-20T09:00#buy'), { now: 501 });
    const runs = await ledger.runs.list();
    const byRun = await ledger.trades.ofRuns(runs);
    expect(byRun.get(run)?.map((t) => t.id)).toEqual(['dca:2026-11-20T10:00#sell', 'dca:2026-11-20T10:00#buy']);
    expect(byRun.get(older)?.map((t) => t.id)).toEqual(['dca:2026-11-20T09:00#buy']);
  });

  it('names tokens once per address, in lower case, the last name given winning', async () => {
    const ledger = await openLedger(freshLedger(backend));
    await ledger.marks.nameTokens([
      { address: celo, symbol: 'CELO', decimals: 18 },
      { address: cusd, symbol: 'cUSD', decimals: 18 },
      { address: celo.toLowerCase() as typeof celo, symbol: 'Celo', decimals: 18 },
    ]);
    await ledger.marks.nameTokens([{ address: cusd, symbol: 'USDm', decimals: 18 }]);
    expect((await ledger.marks.tokenNames()).sort((a, b) => a.symbol.localeCompare(b.symbol))).toEqual([
      { address: celo.toLowerCase(), symbol: 'Celo', decimals: 18 },
      { address: cusd.toLowerCase(), symbol: 'USDm', decimals: 18 },
    ]);
  });

  it('keeps events in order, amounts as decimal strings', async () => {
    const ledger = await openLedger(freshLedger(backend));
    await ledger.events.record('nonce-used-elsewhere', { expected: 3, onChain: 5 });
    await ledger.events.record('replace', { bumpedTo: 11n }, 'dca:x');
    expect((await ledger.events.list()).map((e) => e.kind)).toEqual(['nonce-used-elsewhere', 'replace']);
    expect((await ledger.events.list('dca:x'))[0]?.details).toEqual({ bumpedTo: '11' });
  });

  it(backend === 'sqlite' ? 'is owned by one process at a time' : 'is shared by several daemons (each wallet held by one, through its lease)', async () => {
    const file = freshLedger(backend);
    const first = await openLedger(file, { owner: 'first' });
    if (backend === 'sqlite') {
      await expect(Ledger.open(file, { owner: 'second' })).rejects.toThrow(LedgerLockedError);
      return;
    }
    const second = await openLedger(file, { owner: 'second' });
    await first.trades.claimSlot(intent('2026-01-01T00:00:00.000Z'));
    expect((await second.trades.unfinished()).map((trade) => trade.id)).toEqual([intent('2026-01-01T00:00:00.000Z').id]);
  });

  it('takes over a lock whose owner stopped refreshing it', async () => {
    const file = freshLedger(backend);
    const now = Date.now();
    const stuck = await Ledger.open(file, { owner: 'stuck', now: () => now - lockStaleAfterMs - 1 });
    // The owner never closes (as after a hang); a newcomer sees a stale heartbeat and takes the ledger.
    const taker = await openLedger(file, { owner: 'taker' });
    expect(await taker.trades.unfinished()).toEqual([]);
    await stuck.close();
  });

  describe('bound to its chain', () => {
    const devnetA = { chainId: 42220, genesisHash: `0x${'aa'.repeat(32)}` } as const;
    const devnetB = { chainId: 42220, genesisHash: `0x${'bb'.repeat(32)}` } as const;

    it('remembers the chain it was created on and refuses another with the same chain id', async () => {
      const file = freshLedger(backend);
      const first = await openLedger(file, { chain: devnetA });
      await first.trades.claimSlot(intent('2026-01-01T00:00:00.000Z'));
      expect(await first.chain()).toEqual(devnetA);
      await first.close();
      open.pop();
      let refused: unknown;
      try {
        await Ledger.open(file, { chain: devnetB });
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(LedgerChainMismatchError);
      expect((refused as Error).message).toBe(
        `the ledger ${describeLocation(file)} was written on chain 42220 (genesis ${devnetA.genesisHash}), but the node is chain 42220 (genesis ${devnetB.genesisHash}); its trades cannot be settled here: use another ROUTEKEEPER_DATA_DIR for this chain`,
      );
      // Refused before the lock was taken: the rightful chain still opens it, with its trade.
      expect((await (await openLedger(file, { chain: devnetA })).trades.get('dca:2026-01-01T00:00:00.000Z'))?.status).toBe('claimed');
    });

    it('binds a ledger from before binding at its first open, unless its trades name another chain id', async () => {
      const file = freshLedger(backend);
      await (await openLedger(file)).trades.claimSlot(intent('2026-01-01T00:00:00.000Z'));
      await open.pop()?.close();
      await expect(Ledger.open(file, { chain: { chainId: 44787, genesisHash: devnetA.genesisHash } })).rejects.toThrow(LedgerChainMismatchError);
      expect(await (await openLedger(file, { chain: devnetA })).chain()).toEqual(devnetA);
    });
  });

  describe('the last scheduled slot of each strategy', () => {
    it('is the newest slot on its schedule, not a once-run', async () => {
      const ledger = await openLedger(freshLedger(backend));
      expect(await ledger.trades.lastScheduledSlots()).toEqual(new Map());
      await ledger.trades.claimSlot(intent('2026-11-20T10:00:00.000Z#buy'), { now: 1_000 });
      await ledger.trades.claimSlot(intent('once-2026-11-20T10:07:00.000Z#buy'), { now: 2_000 });
      expect(await ledger.trades.lastScheduledSlots()).toEqual(new Map([['dca', Date.parse('2026-11-20T10:00:00.000Z')]]));
      await ledger.trades.claimSlot(intent('2026-11-20T10:30:00.000Z#buy'), { now: 3_000 });
      expect(await ledger.trades.lastScheduledSlots()).toEqual(new Map([['dca', Date.parse('2026-11-20T10:30:00.000Z')]]));
      expect(await ledger.trades.lastScheduledSlots(['dca'])).toEqual(new Map([['dca', Date.parse('2026-11-20T10:30:00.000Z')]]));
      expect(await ledger.trades.lastScheduledSlots(['other'])).toEqual(new Map());
      expect(await ledger.trades.lastScheduledSlots([])).toEqual(new Map());
    });
  });
});

describe('a SQLite ledger file', () => {
  it('carries a ledger written by the first version over into typed columns, addresses in lower case', async () => {
    const file = freshFile();
    const raw = new Database(file);
    raw.exec(migrations[0] as string);
    raw.pragma('user_version = 1');
    const insert = raw.prepare(
      `INSERT INTO intents (id, strategy_id, slot, kind, wallet, chain_id, token_in, amount_in, request, status, reason, quote, outcome, created_at, updated_at)
       VALUES (?, 'dca', ?, 'swap', ?, 42220, ?, '100', ?, ?, NULL, ?, ?, 1, 2)`,
    );
    const request = JSON.stringify({ tokenOut: cusd, slippageBps: 30, minAmountOut: '40' });
    const quote = JSON.stringify({ kind: 'swap', router: cusd, expectedOut: '50', minOut: '49', deadline: '1700000000' });
    insert.run(
      'dca:old',
      'old',
      wallet,
      celo,
      request,
      'confirmed',
      quote,
      JSON.stringify({ txHash: '0xfeed', blockNumber: 9, gasUsed: '100', effectiveGasPrice: '7', amountOut: '50' }),
    );
    insert.run('dca:open', 'open', wallet, celo, request, 'submitted', quote, null);
    raw.close();

    const ledger = await openLedger(file);
    expect(await ledger.trades.get('dca:old')).toMatchObject({
      status: 'confirmed',
      wallet: wallet.toLowerCase(),
      tokenOut: cusd.toLowerCase(),
      slippageBps: 30,
      minAmountOut: 40n,
      settlement: { txHash: '0xfeed', blockNumber: 9n, gasUsed: 100n, effectiveGasPrice: 7n, amountOut: 50n },
    });
    // `submitted` meant "maybe broadcast": it is still open, to be settled with the chain.
    expect((await ledger.trades.unfinished({ wallet })).map((i) => [i.id, i.status])).toEqual([['dca:open', 'broadcast']]);
  });

  it('resumes a trade a ledger left `quoted` (no longer a state of its own) as claimed', async () => {
    const file = freshFile();
    const older = new Database(file);
    for (const [i, migration] of migrations.slice(0, 9).entries()) {
      older.exec(migration);
      older.pragma(`user_version = ${i + 1}`);
    }
    older
      .prepare(
        `INSERT INTO intents (id, strategy_id, slot, kind, wallet, chain_id, token_in, token_out, amount_in, slippage_bps, status, created_at, updated_at)
         VALUES ('dca:q', 'dca', 'q', 'swap', ?, 42220, ?, ?, '100', 30, 'quoted', 1, 2)`,
      )
      .run(wallet.toLowerCase(), celo.toLowerCase(), cusd.toLowerCase());
    older.close();
    const ledger = await openLedger(file);
    expect((await ledger.trades.unfinished({ wallet })).map((trade) => [trade.id, trade.status])).toEqual([['dca:q', 'claimed']]);
  });

  it('carries a run that failed before trading, once told by its note, over as `error`; a run whose trade failed stays `failed`', async () => {
    const file = freshFile();
    const older = new Database(file);
    for (const [i, migration] of migrations.slice(0, 11).entries()) {
      older.exec(migration);
      older.pragma(`user_version = ${i + 1}`);
    }
    const run = older.prepare('INSERT INTO runs (strategy_id, slot, started_at, finished_at, outcome, note) VALUES (?, ?, 1, 2, ?, ?)');
    run.run('dca', '2026-11-21T10:00:00.000Z', 'failed', 'failed before trading: quote: the node is down');
    run.run('dca', '2026-11-21T10:01:00.000Z', 'failed', 'sell 2 cUSD for CELO: the service answered 500');
    older.close();
    const ledger = await openLedger(file);
    expect((await ledger.runs.list()).map((r) => [r.slot, r.outcome])).toEqual([
      ['2026-11-21T10:01:00.000Z', 'failed'],
      ['2026-11-21T10:00:00.000Z', 'error'],
    ]);
    expect(await ledger.runs.failedBeforeTrading()).toEqual(new Map([['dca', ['failed before trading: quote: the node is down']]]));
  });

  it('reads the trades of a ledger from before the V3 position columns, opened read-only (status before the daemon migrates it)', async () => {
    const file = freshFile();
    const ledger = await openLedger(file);
    await ledger.trades.claimSlot(intent('2026-11-27T10:00'));
    await walk(ledger, 'dca:2026-11-27T10:00', 'confirmed');
    await ledger.close();
    // The columns and the table migrations 13 to 16 added, gone again: the ledger as version 12 left it.
    const older = new Database(file);
    const added = migrations
      .slice(12)
      .join('\n')
      .matchAll(/ALTER TABLE intents ADD COLUMN (\w+)/g);
    for (const [, column] of added) older.exec(`ALTER TABLE intents DROP COLUMN ${column}`);
    older.exec('DROP TABLE position_marks');
    older.pragma('user_version = 12');
    older.close();
    const reader = await Ledger.openReadOnly(file);
    try {
      const [trade] = await reader.trades.history({});
      expect(trade).toMatchObject({ id: 'dca:2026-11-27T10:00', status: 'confirmed', call: { minOut: 99n, expectedOut: 100n }, settlement: { amountOut: 5n } });
      expect(trade?.call && 'minOut1' in trade.call).toBe(false);
      expect(trade?.settlement && 'position' in trade.settlement).toBe(false);
      expect(await reader.marks.positionMarks()).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it('records runs and token names; a reader of a ledger from before them sees none rather than failing', async () => {
    const file = freshFile();
    const older = new Database(file);
    for (const [i, migration] of migrations.slice(0, 4).entries()) {
      older.exec(migration);
      older.pragma(`user_version = ${i + 1}`);
    }
    older.close();
    const reader = await Ledger.openReadOnly(file);
    expect([await reader.runs.list(), await reader.marks.tokenNames(), await reader.runs.existing([{ strategyId: 'dca', slot: 'x' }])]).toEqual([
      [],
      [],
      new Set(),
    ]);
    await reader.close();

    const ledger = await openLedger(file);
    const { runId: run } = await ledger.runs.start('dca', wallet, '2026-11-21T10:00:00.000Z', 1_000);
    expect(await ledger.runs.list()).toEqual([{ id: run, strategyId: 'dca', slot: '2026-11-21T10:00:00.000Z', startedAt: 1_000 }]);
    await ledger.runs.finish(run, 'nothing', 'holds 9 cUSD, needs 10', 1_500);
    const finished = {
      id: run,
      strategyId: 'dca',
      slot: '2026-11-21T10:00:00.000Z',
      startedAt: 1_000,
      finishedAt: 1_500,
      outcome: 'nothing',
      note: 'holds 9 cUSD, needs 10',
    };
    expect(await ledger.runs.list({ strategyId: 'dca' })).toEqual([finished]);
    expect(await ledger.runs.latest()).toEqual(new Map([['dca', finished]]));
    expect(await ledger.runs.counts()).toEqual([{ strategyId: 'dca', outcome: 'nothing', count: 1 }]);
    expect(await ledger.runs.existing([{ strategyId: 'dca', slot: '2026-11-21T10:00:00.000Z' }])).toEqual(new Set(['dca\n2026-11-21T10:00:00.000Z']));
    await ledger.marks.nameTokens([{ address: celo, symbol: 'CELO', decimals: 18 }]);
    expect(await ledger.marks.tokenNames()).toEqual([{ address: celo.toLowerCase(), symbol: 'CELO', decimals: 18 }]);
  });

  it('takes over a lock whose process is gone, however fresh its heartbeat', async () => {
    const file = freshFile();
    await (await openLedger(file, { owner: 'setup' })).close();
    open.pop();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    const raw = new Database(file);
    raw.prepare("INSERT OR REPLACE INTO owner_lock (id, owner, pid, host, heartbeat) VALUES (1, 'crashed', ?, ?, ?)").run(dead, hostname(), Date.now());
    raw.close();
    await expect(openLedger(file, { owner: 'restarted' })).resolves.toBeInstanceOf(Ledger);
  });

  describe('bound to its chain', () => {
    const devnetA = { chainId: 42220, genesisHash: `0x${'aa'.repeat(32)}` } as const;
    const devnetB = { chainId: 42220, genesisHash: `0x${'bb'.repeat(32)}` } as const;

    it('tells whether a live process holds a ledger, without taking it', async () => {
      const file = freshFile();
      const held = await openLedger(file, { chain: devnetA });
      expect(Ledger.isHeld(file)).toBe(true);
      await held.close();
      expect(Ledger.isHeld(file)).toBe(false);
      expect(Ledger.isHeld(join(tmpdir(), 'no-such-ledger.sqlite'))).toBe(false);
    });

    it('removes the ledgers of earlier devnets at start, never one that a live process holds', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'routekeeper-data-'));
      const running = throwawayLedgerFile(dir, 'devnet', devnetA);
      const stopped = throwawayLedgerFile(dir, 'devnet', devnetB);
      expect(running).toBe(join(dir, 'devnet-42220-aaaaaaaa.sqlite'));
      await openLedger(running, { chain: devnetA });
      await openLedger(stopped, { chain: devnetB });
      await open.pop()?.close();
      expect(removeStaleThrowawayLedgers(dir, 'devnet')).toEqual([stopped]);
      expect(readdirSync(dir).filter((name) => name.endsWith('.sqlite'))).toEqual(['devnet-42220-aaaaaaaa.sqlite']);
      expect(defaultLedgerFile(dir)).toBe(running);
    });
  });
});
