import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultLedgerFile, removeStaleThrowawayLedgers, throwawayLedgerFile } from '../../src/ledger/files.ts';
import { Ledger, LedgerChainMismatchError, LedgerLockedError, lockStaleAfterMs } from '../../src/ledger/ledger.ts';
import { migrations } from '../../src/ledger/schema.ts';
import type { Trade } from '../../src/trade/types.ts';

const wallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as const;
const celo = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
const open: Ledger[] = [];
afterEach(() => {
  for (const ledger of open.splice(0)) ledger.close();
});

function freshFile() {
  return join(mkdtempSync(join(tmpdir(), 'routekeeper-ledger-')), 'ledger.sqlite');
}
function openLedger(file: string, options: Parameters<typeof Ledger.open>[1] = {}) {
  const ledger = Ledger.open(file, options);
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

describe('ledger', () => {
  it('records one intent per slot: a second run of the slot gets nothing to do', () => {
    const ledger = openLedger(freshFile());
    const created = ledger.claim(intent('2026-11-20T10:00'), 1_000);
    expect(created).toEqual({ ...intent('2026-11-20T10:00'), status: 'claimed', createdAt: 1_000, updatedAt: 1_000 });
    expect(ledger.claim(intent('2026-11-20T10:00'), 2_000)).toBeUndefined();
    expect(ledger.unfinishedIntents().map((i) => i.id)).toEqual(['dca:2026-11-20T10:00']);
    const settlement = { txHash: '0xfeed' as const, blockNumber: 9n, gasUsed: 100n, effectiveGasPrice: 7n, amountOut: 5n, reportedOut: 5n };
    ledger.advance('dca:2026-11-20T10:00', { status: 'confirmed', settlement });
    expect(ledger.getIntent('dca:2026-11-20T10:00')).toMatchObject({ status: 'confirmed', settlement });
    expect(ledger.getIntent('dca:2026-11-20T10:00')?.failure).toBeUndefined();
    expect(ledger.unfinishedIntents()).toEqual([]);
  });

  it('stores each stage in typed columns: the checked call, the simulation, a refusal with its guard', () => {
    const ledger = openLedger(freshFile());
    ledger.claim(intent('s2'));
    const call = { target: celo, spender: celo, data: '0x9acc65a9' as const, expectedOut: 100n, minOut: 99n, deadline: 1_700_000_000n, router: celo };
    ledger.advance('dca:s2', { status: 'checked', call, simulatedOut: 100n });
    expect(ledger.getIntent('dca:s2')).toMatchObject({ status: 'checked', call, simulatedOut: 100n });
    ledger.advance('dca:s2', { status: 'refused', failure: { reason: 'deadline: too far', refusal: 'deadline', errorClass: 'GuardRefusal', retryable: false } });
    // A later stage keeps what earlier ones stored.
    expect(ledger.getIntent('dca:s2')).toMatchObject({ status: 'refused', call, failure: { reason: 'deadline: too far', refusal: 'deadline', errorClass: 'GuardRefusal', retryable: false } });
  });

  it('moves a trade to `signed` in the same transaction that stores its signed bytes', () => {
    const ledger = openLedger(freshFile());
    ledger.claim(intent('s3'));
    ledger.advance('dca:s3', { status: 'checked' });
    const [approve, trade] = ledger.addAttempts([{ ...signedAttempt('dca:s3', 4, '0xaa01'), purpose: 'approve' }, signedAttempt('dca:s3', 5, '0xaa02')]);
    expect([approve?.nonce, trade?.nonce, trade?.status]).toEqual([4, 5, 'signed']);
    expect(ledger.getIntent('dca:s3')?.status).toBe('signed');
    // A replacement later leaves the trade's state alone.
    ledger.advance('dca:s3', { status: 'broadcast' });
    ledger.addAttempts([signedAttempt('dca:s3', 5, '0xaa03')]);
    expect(ledger.getIntent('dca:s3')?.status).toBe('broadcast');
  });

  it('stores signed attempts with their bytes and follows their status', () => {
    const ledger = openLedger(freshFile());
    ledger.claim(intent('s1'));
    const [attempt] = ledger.addAttempts([signedAttempt('dca:s1', 7, '0xabc1')]);
    if (!attempt) throw new Error('no attempt stored');
    expect(attempt).toMatchObject({ status: 'signed', nonce: 7, maxFeePerGas: 30_000_000_000n, rawTx: '0x02f8aa', blockNumber: null });
    ledger.updateAttempt(attempt.id, { status: 'broadcast' });
    ledger.updateAttempt(attempt.id, { status: 'mined', blockNumber: 123n, gasUsed: 210_000n, effectiveGasPrice: 25n });
    expect(ledger.attemptsOf('dca:s1')).toEqual([expect.objectContaining({ status: 'mined', blockNumber: 123n, gasUsed: 210_000n, effectiveGasPrice: 25n })]);
    expect(ledger.highestNonce(wallet, 42220)).toBe(7);
    expect(ledger.highestNonce(wallet, 1)).toBeUndefined();
    // A transaction the node never took does not hold its nonce.
    const [refused] = ledger.addAttempts([signedAttempt('dca:s1', 8, '0xabc2')]);
    ledger.updateAttempt(refused?.id as number, { status: 'dropped', error: 'underpriced' });
    expect(ledger.highestNonce(wallet, 42220)).toBe(7);
  });

  it('sums what a strategy and a wallet committed of a token since a time: checked or further, not refused, failed or still being quoted', () => {
    const ledger = openLedger(freshFile());
    ledger.claim(intent('a', 100n), 1_000);
    ledger.claim(intent('b', 200n), 2_000);
    ledger.claim(intent('c', 400n), 3_000);
    ledger.claim(intent('d', 800n), 4_000);
    ledger.claim(intent('e', 1_600n), 5_000);
    ledger.claim(intent('f', 3_200n), 6_000);
    ledger.advance('dca:b', { status: 'confirmed' });
    ledger.advance('dca:c', { status: 'refused', failure: { reason: 'price limit', refusal: 'threshold', retryable: false } });
    ledger.advance('dca:d', { status: 'failed', failure: { reason: 'reverted', retryable: false } });
    ledger.advance('dca:e', { status: 'checked' });
    ledger.advance('dca:f', { status: 'quoted' });
    // a is claimed and f quoted: neither has passed its budget yet, so neither commits anything.
    expect(ledger.spentSince({ strategyId: 'dca', tokenIn: celo, since: 0 })).toBe(1_800n);
    expect(ledger.spentSince({ wallet, tokenIn: celo, since: 4_500 })).toBe(1_600n);
    expect(ledger.spentSince({ wallet, tokenIn: celo, since: 0, excludeId: 'dca:e' })).toBe(200n);
    expect(ledger.spentSince({ strategyId: 'other', tokenIn: celo, since: 0 })).toBe(0n);
  });

  it('carries a ledger written by the first version over into typed columns', () => {
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
    insert.run('dca:old', 'old', wallet, celo, request, 'confirmed', quote, JSON.stringify({ txHash: '0xfeed', blockNumber: 9, gasUsed: '100', effectiveGasPrice: '7', amountOut: '50' }));
    insert.run('dca:open', 'open', wallet, celo, request, 'submitted', quote, null);
    raw.close();

    const ledger = openLedger(file);
    expect(ledger.getIntent('dca:old')).toMatchObject({
      status: 'confirmed',
      tokenOut: cusd,
      slippageBps: 30,
      minAmountOut: 40n,
      settlement: { txHash: '0xfeed', blockNumber: 9n, gasUsed: 100n, effectiveGasPrice: 7n, amountOut: 50n },
    });
    // `submitted` meant "maybe broadcast": it is still open, to be settled with the chain.
    expect(ledger.unfinishedIntents().map((i) => [i.id, i.status])).toEqual([['dca:open', 'broadcast']]);
  });

  it('records runs and token names; a reader of a ledger from before them sees none rather than failing', () => {
    const file = freshFile();
    const older = new Database(file);
    for (const [i, migration] of migrations.slice(0, 4).entries()) {
      older.exec(migration);
      older.pragma(`user_version = ${i + 1}`);
    }
    older.close();
    const reader = Ledger.openReadOnly(file);
    expect([reader.runs(), reader.tokenNames(), reader.hasRun('dca', 'x')]).toEqual([[], [], false]);
    reader.close();

    const ledger = openLedger(file);
    const run = ledger.startRun('dca', '2026-11-21T10:00:00.000Z', 1_000);
    expect(ledger.runs()).toEqual([{ id: run, strategyId: 'dca', slot: '2026-11-21T10:00:00.000Z', startedAt: 1_000 }]);
    ledger.finishRun(run, 'nothing', 'holds 9 cUSD, needs 10', 1_500);
    expect(ledger.runs({ strategyId: 'dca' })).toEqual([{ id: run, strategyId: 'dca', slot: '2026-11-21T10:00:00.000Z', startedAt: 1_000, finishedAt: 1_500, outcome: 'nothing', note: 'holds 9 cUSD, needs 10' }]);
    expect(ledger.hasRun('dca', '2026-11-21T10:00:00.000Z')).toBe(true);
    ledger.nameTokens([{ address: celo, symbol: 'CELO', decimals: 18 }]);
    expect(ledger.tokenNames()).toEqual([{ address: celo.toLowerCase(), symbol: 'CELO', decimals: 18 }]);
  });

  it('keeps events in order', () => {
    const ledger = openLedger(freshFile());
    ledger.recordEvent('nonce-used-elsewhere', { expected: 3, onChain: 5 });
    ledger.recordEvent('replaced', { bumpedTo: 11n }, 'dca:x');
    expect(ledger.events().map((e) => e.kind)).toEqual(['nonce-used-elsewhere', 'replaced']);
    expect(ledger.events('dca:x')[0]?.details).toEqual({ bumpedTo: '11' });
  });

  it('is owned by one process at a time', () => {
    const file = freshFile();
    openLedger(file, { owner: 'first' });
    expect(() => Ledger.open(file, { owner: 'second' })).toThrow(LedgerLockedError);
  });

  it('takes over a lock whose owner stopped refreshing it', () => {
    const file = freshFile();
    const now = Date.now();
    const stuck = Ledger.open(file, { owner: 'stuck', now: () => now - lockStaleAfterMs - 1 });
    // The owner never closes (as after a hang); a newcomer sees a stale heartbeat and takes the ledger.
    const taker = openLedger(file, { owner: 'taker' });
    expect(taker.unfinishedIntents()).toEqual([]);
    stuck.close();
  });

  it('takes over a lock whose process is gone, however fresh its heartbeat', () => {
    const file = freshFile();
    openLedger(file, { owner: 'setup' }).close();
    open.pop();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    const raw = new Database(file);
    raw.prepare("INSERT OR REPLACE INTO owner_lock (id, owner, pid, host, heartbeat) VALUES (1, 'crashed', ?, ?, ?)").run(dead, hostname(), Date.now());
    raw.close();
    expect(() => openLedger(file, { owner: 'restarted' })).not.toThrow();
  });
});

describe('a ledger bound to its chain', () => {
  const devnetA = { chainId: 42220, genesisHash: `0x${'aa'.repeat(32)}` } as const;
  const devnetB = { chainId: 42220, genesisHash: `0x${'bb'.repeat(32)}` } as const;

  it('remembers the chain it was created on and refuses another with the same chain id', () => {
    const file = freshFile();
    const first = openLedger(file, { chain: devnetA });
    first.claim(intent('2026-01-01T00:00:00.000Z'));
    expect(first.chain()).toEqual(devnetA);
    first.close();
    open.pop();
    let refused: unknown;
    try {
      Ledger.open(file, { chain: devnetB });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LedgerChainMismatchError);
    expect((refused as Error).message).toBe(
      `the ledger ${file} was written on chain 42220 (genesis ${devnetA.genesisHash}), but the node is chain 42220 (genesis ${devnetB.genesisHash}); its trades cannot be settled here: use another ROUTEKEEPER_DATA_DIR for this chain`,
    );
    // Refused before the lock was taken: the rightful chain still opens it, with its trade.
    expect(openLedger(file, { chain: devnetA }).getIntent('dca:2026-01-01T00:00:00.000Z')?.status).toBe('claimed');
  });

  it('binds a ledger from before binding at its first open, unless its trades name another chain id', () => {
    const file = freshFile();
    openLedger(file).claim(intent('2026-01-01T00:00:00.000Z'));
    open.pop()?.close();
    expect(() => Ledger.open(file, { chain: { chainId: 44787, genesisHash: devnetA.genesisHash } })).toThrow(LedgerChainMismatchError);
    expect(openLedger(file, { chain: devnetA }).chain()).toEqual(devnetA);
  });

  it('tells whether a live process holds a ledger, without taking it', () => {
    const file = freshFile();
    const held = openLedger(file, { chain: devnetA });
    expect(Ledger.isHeld(file)).toBe(true);
    held.close();
    expect(Ledger.isHeld(file)).toBe(false);
    expect(Ledger.isHeld(join(tmpdir(), 'no-such-ledger.sqlite'))).toBe(false);
  });

  it('removes the ledgers of earlier devnets at start, never one that a live process holds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-data-'));
    const running = throwawayLedgerFile(dir, 'devnet', devnetA);
    const stopped = throwawayLedgerFile(dir, 'devnet', devnetB);
    expect(running).toBe(join(dir, 'devnet-42220-aaaaaaaa.sqlite'));
    openLedger(running, { chain: devnetA });
    openLedger(stopped, { chain: devnetB });
    open.pop()?.close();
    expect(removeStaleThrowawayLedgers(dir, 'devnet')).toEqual([stopped]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.sqlite'))).toEqual(['devnet-42220-aaaaaaaa.sqlite']);
    expect(defaultLedgerFile(dir)).toBe(running);
  });
});

describe('the last scheduled slot of a strategy', () => {
  it('is the newest slot on its schedule, not a once-run', async () => {
    const { lastScheduledSlot } = await import('../../src/engine/daemon.ts');
    const ledger = openLedger(freshFile());
    expect(lastScheduledSlot(ledger, 'dca')).toBeUndefined();
    ledger.claim(intent('2026-11-20T10:00:00.000Z#buy'), 1_000);
    ledger.claim(intent('once-2026-11-20T10:07:00.000Z#buy'), 2_000);
    expect(lastScheduledSlot(ledger, 'dca')).toBe(Date.parse('2026-11-20T10:00:00.000Z'));
    ledger.claim(intent('2026-11-20T10:30:00.000Z#buy'), 3_000);
    expect(lastScheduledSlot(ledger, 'dca')).toBe(Date.parse('2026-11-20T10:30:00.000Z'));
  });
});
