/**
 * A daemon signs a wallet's trades only under its lease. One whose lease another daemon took (it was cut off, or
 * frozen past its lease) records nothing and sends nothing: the trade stays as it was for the new holder, and the
 * wallet's nonce and balances do not move.
 */
import { type Address, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { WalletLeases } from '../../src/engine/leases.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, swapTrade, testExecutor } from '../helpers/engine.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
});
const me = () => fork.addressBook.accounts[0]?.address as Address;

describe('a wallet under a lease', () => {
  it("trades while the lease is this daemon's; once another daemon holds it, signs, records and sends nothing", async () => {
    let leases: WalletLeases | undefined;
    const executor = await testExecutor(fork, {
      fence: (ledger) => {
        leases = new WalletLeases(ledger, { chainId: fork.addressBook.chainId, holder: 'daemon-a' });
        return () => (leases as WalletLeases).fenceFor(me());
      },
    });
    executors.push(executor);
    await leases?.takeAll([me()]);
    try {
      const held = await runTrade(executor, swapTrade(fork, 'leased', '2026-11-21T10:00:00.000Z', { amountIn: parseUnits('1', 18) }));
      expect(held.status, held.reason).toBe('confirmed');

      // Daemon b takes the wallet once a's lease has run out (here: made to run out at once).
      await executor.ledger.leases.take(fork.addressBook.chainId, me(), 'daemon-a', 0);
      expect(await executor.ledger.leases.take(fork.addressBook.chainId, me(), 'daemon-b', 60_000)).toMatchObject({ epoch: 2 });
      const [nonce, usd] = [await fork.publicClient.getTransactionCount({ address: me() }), await fork.balanceOf(fork.token('cUSD'), me())];

      // Daemon a goes on as if nothing happened: its own clock still says the lease holds, the database does not.
      const report = await runTrade(executor, swapTrade(fork, 'leased', '2026-11-21T10:01:00.000Z', { amountIn: parseUnits('1', 18) }));
      expect(report.status).toBe('checked');
      expect(report.errorClass).toBe('lease-lost');
      expect(report.reason).toMatch(
        /^interrupted at checked: the lease of wallet 0x[0-9a-fA-F]{40} \(epoch 1\) is not this daemon's any more: it is daemon-b's \(epoch 2\); nothing was recorded$/,
      );
      expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
      expect((await executor.ledger.trades.get(report.intentId))?.status).toBe('checked');
      expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonce);
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usd);
    } finally {
      await leases?.releaseAll();
    }
  });

  it('signs nothing without a lease it holds, before asking the database', async () => {
    const executor = await testExecutor(fork, {
      fence: (ledger) => {
        const leases = new WalletLeases(ledger, { chainId: fork.addressBook.chainId, holder: 'daemon-a' });
        return () => leases.fenceFor(me());
      },
    });
    executors.push(executor);
    const nonce = await fork.publicClient.getTransactionCount({ address: me() });
    const report = await runTrade(executor, swapTrade(fork, 'unleased', '2026-11-21T10:00:00.000Z', { amountIn: parseUnits('1', 18) }));
    expect([report.status, report.errorClass]).toEqual(['checked', 'lease-lost']);
    expect(report.reason).toMatch(/this daemon does not hold wallet 0x[0-9a-fA-F]{40}; nothing is signed for it/);
    expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonce);
  });
});
