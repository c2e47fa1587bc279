import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger, LedgerLockedError, lockStaleAfterMs } from '../../src/ledger/ledger.ts';

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
const intent = (slot: string, amountIn = 10n ** 18n) => ({
  id: `dca:${slot}`,
  strategyId: 'dca',
  slot,
  kind: 'swap' as const,
  wallet,
  chainId: 42220,
  tokenIn: celo,
  amountIn,
  request: { amountIn, slippageBps: 30 },
});

describe('ledger', () => {
  it('records one intent per slot: a second run of the slot gets nothing to do', () => {
    const ledger = openLedger(freshFile());
    const created = ledger.createIntent(intent('2026-11-20T10:00'), 1_000);
    expect(created).toMatchObject({ id: 'dca:2026-11-20T10:00', status: 'pending', amountIn: 10n ** 18n, request: { amountIn: '1000000000000000000', slippageBps: 30 } });
    expect(ledger.createIntent(intent('2026-11-20T10:00'), 2_000)).toBeUndefined();
    expect(ledger.unfinishedIntents().map((i) => i.id)).toEqual(['dca:2026-11-20T10:00']);
    ledger.updateIntent('dca:2026-11-20T10:00', { status: 'confirmed', outcome: { amountOut: 5n } });
    expect(ledger.getIntent('dca:2026-11-20T10:00')).toMatchObject({ status: 'confirmed', outcome: { amountOut: '5' }, reason: null });
    expect(ledger.unfinishedIntents()).toEqual([]);
  });

  it('stores signed attempts with their bytes and follows their status', () => {
    const ledger = openLedger(freshFile());
    ledger.createIntent(intent('s1'));
    const attempt = ledger.addAttempt({
      intentId: 'dca:s1',
      purpose: 'trade',
      wallet,
      chainId: 42220,
      nonce: 7,
      maxFeePerGas: 30_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      gasLimit: 400_000n,
      rawTx: '0x02f8aa',
      hash: '0xabc1',
    });
    expect(attempt).toMatchObject({ status: 'signed', nonce: 7, maxFeePerGas: 30_000_000_000n, rawTx: '0x02f8aa', blockNumber: null });
    ledger.updateAttempt(attempt.id, { status: 'broadcast' });
    ledger.updateAttempt(attempt.id, { status: 'mined', blockNumber: 123n, gasUsed: 210_000n, effectiveGasPrice: 25n });
    expect(ledger.attemptsOf('dca:s1')).toEqual([expect.objectContaining({ status: 'mined', blockNumber: 123n, gasUsed: 210_000n, effectiveGasPrice: 25n })]);
    expect(ledger.highestNonce(wallet, 42220)).toBe(7);
    expect(ledger.highestNonce(wallet, 1)).toBeUndefined();
  });

  it('sums what a strategy and a wallet committed of a token since a time, ignoring refused and failed runs', () => {
    const ledger = openLedger(freshFile());
    ledger.createIntent(intent('a', 100n), 1_000);
    ledger.createIntent(intent('b', 200n), 2_000);
    ledger.createIntent(intent('c', 400n), 3_000);
    ledger.createIntent(intent('d', 800n), 4_000);
    ledger.updateIntent('dca:b', { status: 'confirmed' });
    ledger.updateIntent('dca:c', { status: 'refused', reason: 'price limit' });
    ledger.updateIntent('dca:d', { status: 'failed', reason: 'reverted' });
    expect(ledger.spentSince({ strategyId: 'dca', tokenIn: celo, since: 0 })).toBe(300n);
    expect(ledger.spentSince({ wallet, tokenIn: celo, since: 1_500 })).toBe(200n);
    expect(ledger.spentSince({ strategyId: 'other', tokenIn: celo, since: 0 })).toBe(0n);
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

describe('the last scheduled slot of a strategy', () => {
  it('is the newest slot on its schedule, not a once-run', async () => {
    const { lastScheduledSlot } = await import('../../src/engine/daemon.ts');
    const ledger = openLedger(freshFile());
    expect(lastScheduledSlot(ledger, 'dca')).toBeUndefined();
    ledger.createIntent(intent('2026-11-20T10:00:00.000Z#buy'), 1_000);
    ledger.createIntent(intent('once-2026-11-20T10:07:00.000Z#buy'), 2_000);
    expect(lastScheduledSlot(ledger, 'dca')).toBe(Date.parse('2026-11-20T10:00:00.000Z'));
    ledger.createIntent(intent('2026-11-20T10:30:00.000Z#buy'), 3_000);
    expect(lastScheduledSlot(ledger, 'dca')).toBe(Date.parse('2026-11-20T10:30:00.000Z'));
  });
});
