/**
 * Wallet leases on the database's clock, with a fencing epoch: one holder at a time, the epoch rising at every
 * change of holder, and a holder that lost its lease able to record nothing (signed bytes, a broadcast) under its
 * old epoch; two daemons taking a free wallet at the same instant: one gets it.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WalletLeases } from '../../src/engine/leases.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { idleInTransactionMs } from '../../src/ledger/database.ts';
import { LeaseLostError } from '../../src/ledger/leases.ts';
import type { Trade } from '../../src/model/trade.ts';
import { backends, freshLedger } from '../helpers/ledgers.ts';

const wallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as const;
const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
const call = { target: token, spender: token, data: '0x9acc65a9' as const, expectedOut: 100n, minOut: 99n };
const trade = (slot: string): Trade => ({
  id: `dca:${slot}`,
  strategyId: 'dca',
  slot,
  kind: 'swap',
  wallet,
  chainId: 42220,
  tokenIn: token,
  tokenOut: token,
  amountIn: 1n,
  slippageBps: 30,
});
const attempt = (intentId: string, nonce: number) => ({
  intentId,
  purpose: 'trade' as const,
  wallet,
  chainId: 42220,
  nonce,
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
  gasLimit: 21_000n,
  rawTx: '0x02' as const,
  hash: `0x${nonce.toString(16).padStart(64, '0')}` as const,
});

const opened: Ledger[] = [];
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
});

describe.each(backends)('wallet leases on %s', (backend) => {
  /** Two daemons' views of one ledger: on PostgreSQL two connections; a SQLite file has one owner, so one ledger. */
  async function twoDaemons() {
    const location = freshLedger(backend);
    const first = await Ledger.open(location, { owner: 'a' });
    opened.push(first);
    if (backend === 'sqlite') return [first, first] as const;
    const second = await Ledger.open(location, { owner: 'a' });
    opened.push(second);
    return [first, second] as const;
  }

  it('has one holder at a time; the epoch rises only when the holder changes', async () => {
    const [a, b] = await twoDaemons();
    const taken = await a.leases.take(42220, wallet, 'daemon-a', 60_000);
    expect(taken).toMatchObject({ holder: 'daemon-a', epoch: 1 });
    expect(await b.leases.take(42220, wallet, 'daemon-b', 60_000)).toBeUndefined();
    // Renewed: same epoch, later end.
    const renewed = await a.leases.take(42220, wallet, 'daemon-a', 120_000);
    expect(renewed?.epoch).toBe(1);
    expect(renewed?.expiresAt).toBeGreaterThan(taken?.expiresAt as number);
    // A lease that ran out (here: at once) is anyone's, under the next epoch.
    await a.leases.take(42220, wallet, 'daemon-a', 0);
    expect(await b.leases.take(42220, wallet, 'daemon-b', 60_000)).toMatchObject({ holder: 'daemon-b', epoch: 2 });
    expect(await a.leases.take(42220, wallet, 'daemon-a', 60_000)).toBeUndefined();
    // A clean stop hands it back at once.
    await b.leases.release({ chainId: 42220, wallet, holder: 'daemon-b', epoch: 2 });
    expect(await a.leases.take(42220, wallet, 'daemon-a', 60_000)).toMatchObject({ holder: 'daemon-a', epoch: 3 });
    expect((await a.leases.all()).map((lease) => [lease.wallet, lease.holder, lease.epoch])).toEqual([[wallet.toLowerCase(), 'daemon-a', 3]]);
  });

  it('lets a holder that lost its lease record no signed bytes and no broadcast under its old epoch', async () => {
    const [a, b] = await twoDaemons();
    for (const slot of ['1', '2']) {
      await a.trades.claimSlot(trade(slot));
      await a.trades.commitChecked(`dca:${slot}`, { call, status: 'checked' });
    }
    const old = (await a.leases.take(42220, wallet, 'daemon-a', 60_000)) as NonNullable<Awaited<ReturnType<Ledger['leases']['take']>>>;
    await a.trades.recordSigned([attempt('dca:1', 0)], { fence: old });
    // Frozen past its lease: daemon b takes the wallet.
    await a.leases.take(42220, wallet, 'daemon-a', 0);
    const current = (await b.leases.take(42220, wallet, 'daemon-b', 60_000)) as NonNullable<Awaited<ReturnType<Ledger['leases']['take']>>>;
    expect(current.epoch).toBe(2);

    // Daemon a, continuing, records nothing: not the bytes of its next trade, not the broadcast of its first.
    await expect(a.trades.recordSigned([attempt('dca:2', 1)], { fence: old })).rejects.toThrow(LeaseLostError);
    await expect(a.trades.markBroadcast('dca:1', { fence: old })).rejects.toThrow(/is not this daemon's any more: it is daemon-b's \(epoch 2\)/);
    expect(await a.attempts.ofTrade('dca:2')).toEqual([]);
    expect((await a.trades.get('dca:2'))?.status).toBe('checked');
    expect((await a.trades.get('dca:1'))?.status).toBe('signed');
    // The new holder does, on the next nonce.
    expect((await b.attempts.ofWallet(wallet, 42220, 0)).map((signed) => signed.nonce)).toEqual([0]);
    await b.trades.markBroadcast('dca:1', { fence: current });
    await b.trades.recordSigned([attempt('dca:2', 1)], { fence: current });
    expect((await b.trades.get('dca:2'))?.status).toBe('signed');
    // A lease that ran out lets nothing through, even to its own holder with its own epoch.
    await b.leases.take(42220, wallet, 'daemon-b', 0);
    await expect(b.trades.markBroadcast('dca:2', { fence: current })).rejects.toThrow(/it ran out/);
  });

  it('takes a wallet at once from a holder whose process died on this host, and never from a live one', async () => {
    const [a] = await twoDaemons();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid as number;
    await a.leases.take(42220, wallet, `${hostname()}:${dead}:1`, 60_000);
    const restarted = new WalletLeases(a, { chainId: 42220, holder: `${hostname()}:${process.pid}:2` });
    await restarted.takeAll([wallet]);
    expect(restarted.fenceFor(wallet)).toMatchObject({ holder: `${hostname()}:${process.pid}:2`, epoch: 2 });
    // A live holder (this very process, under another start) keeps it until its lease runs out.
    const rival = new WalletLeases(a, { chainId: 42220, holder: `${hostname()}:${process.pid}:3` });
    await expect(rival.takeAll([wallet])).rejects.toThrow(/is held by another routekeeper daemon/);
    await restarted.releaseAll();
    await rival.takeAll([wallet]);
    expect(rival.fenceFor(wallet).epoch).toBe(3);
    await rival.releaseAll();
  });

  it('gives a free wallet to one of two daemons taking it at the same instant', async () => {
    const [a, b] = await twoDaemons();
    for (let round = 0; round < 10; round++) {
      const free = `0x${(round + 1).toString(16).padStart(40, '0')}` as const;
      const [first, second] = await Promise.all([a.leases.take(42220, free, 'daemon-a', 60_000), b.leases.take(42220, free, 'daemon-b', 60_000)]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect((first ?? second)?.epoch).toBe(1);
    }
  });
});

describe('a daemon frozen in the middle of a transaction (PostgreSQL)', () => {
  it('holds its locks no longer than the server keeps an idle transaction: another daemon goes on, the frozen one records nothing', async () => {
    const location = freshLedger('postgres');
    const frozen = await Ledger.open(location, { owner: 'a' });
    const other = await Ledger.open(location, { owner: 'b' });
    opened.push(frozen, other);
    await frozen.trades.claimSlot(trade('frozen'));
    await other.trades.claimSlot(trade('other'));
    // The frozen daemon stops inside its commit, holding the wallet's budget lock, until the other one has gone on.
    let thaw: () => void = () => {};
    const thawed = new Promise<void>((resolve) => {
      thaw = resolve;
    });
    let holding: () => void = () => {};
    const locked = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const frozenCommit = frozen.trades
      .commitChecked('dca:frozen', {
        call,
        status: 'checked',
        verify: async () => {
          holding();
          await thawed;
        },
      })
      .then(
        () => 'committed',
        (error: unknown) => (error as Error).message,
      );
    await locked;
    const started = Date.now();
    // Without the server ending the frozen session, this would wait for the lock until its query timed out (15 s).
    await other.trades.commitChecked('dca:other', { call, status: 'checked', verify: async () => {} });
    const waitedMs = Date.now() - started;
    thaw();
    expect(await frozenCommit).toMatch(/terminat|Connection|connection/);
    expect(waitedMs).toBeGreaterThanOrEqual(idleInTransactionMs - 500);
    expect((await other.trades.get('dca:frozen'))?.status).toBe('claimed');
    expect((await other.trades.get('dca:other'))?.status).toBe('checked');
  });
});
