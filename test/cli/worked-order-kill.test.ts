/**
 * SIGKILL to `routekeeper run` while it works an order in slices: between two slices, and during one (its
 * transactions sent and mined, their answers and receipts withheld). Each start goes on with the remainder only,
 * the slice that was out settled from the chain: the whole order is sold exactly once, and the ledger equals the chain.
 */
import { type Address, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ledger } from '../../src/ledger/ledger.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import { arbitrageEachBlock } from '../../support/arbitrage.ts';
import { daemonHome, expectLedgerEqualsChain, homeEnv, spawnDaemon } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ routing: true });
const me = () => fork.addressBook.accounts[0]?.address as Address;
const order = parseUnits('15000', 18);

let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
beforeAll(async () => {
  proxy = await startRpcProxy(fork.addressBook.rpcUrl);
});
afterAll(() => proxy.close());

/** A DCA of 15,000 cUSD into CELO, worked in slices of at most 0.6% below the reference, 5 s apart. */
const yaml = `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "15000" }, buy: CELO, split: { maxImpactBps: 60, within: 30m, every: 5s } }
`;

describe('SIGKILL while an order is worked in slices', () => {
  it('between slices and during one: each start goes on with the remainder only; sold exactly once, the ledger equals the chain', async () => {
    const home = daemonHome(fork, 'worked-order-kill');
    const config = home.config(yaml);
    const env = homeEnv(home, fork.addressBook.accounts[0]?.privateKey as string);
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;
    const cusdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    // The ledger as the daemon has it: none yet while the daemon is still creating its file.
    const rows = async () => {
      const ledger = await Ledger.openReadOnly(home.ledgerFile).catch(() => undefined);
      if (!ledger) return [];
      try {
        return (await ledger.trades.history({ limit: 1_000 })).filter((row) => row.strategyId === 'dca');
      } catch (error) {
        if (String(error).includes('no such table')) return [];
        throw error;
      } finally {
        await ledger.close();
      }
    };
    const confirmedSold = async () => (await rows()).filter((row) => row.status === 'confirmed').reduce((sum, row) => sum + row.amountIn, 0n);
    const stopArbitrage = arbitrageEachBlock(fork);
    try {
      // 1. Killed between slices: the first confirmed, the daemon waiting its 5 s for the next.
      const first = spawnDaemon(home, config, env);
      await first.waitFor(async () => (await confirmedSold()) > 0n, 'the first slice confirmed');
      first.child.kill('SIGKILL');
      await first.exited;
      const afterFirst = await rows();
      expect(afterFirst.map((row) => [row.slot.split('#')[1], row.status])).toEqual([['buy.1', 'confirmed']]);

      // 2. Killed during a slice: its transactions reach the node and are mined, but the daemon hears nothing back.
      proxy.faults.refuse = ['eth_sendRawTransactionSync'];
      proxy.faults.afterForward = (calls) => (calls.some((call) => call.method === 'eth_sendRawTransaction') ? 'hang' : undefined);
      proxy.faults.rewrite = (call, got) => (call.method === 'eth_getTransactionReceipt' ? { ...got, result: null } : got);
      const withheldBook = join(home.dir, 'withholding-book.json');
      writeFileSync(withheldBook, JSON.stringify({ ...fork.addressBook, rpcUrl: proxy.url }));
      const second = spawnDaemon({ ...home, book: withheldBook }, config, env);
      await second.waitFor(() => proxy.count('eth_sendRawTransaction') > 0, 'a slice sent');
      second.child.kill('SIGKILL');
      await second.exited;
      const out = (await rows()).find((row) => row.slot.endsWith('#buy.2'));
      expect(['signed', 'broadcast']).toContain(out?.status);

      // 3. Started again on the node itself: the slice that was out is settled from the chain, then the rest is sold.
      const third = spawnDaemon(home, config, env);
      await third.waitFor(async () => (await confirmedSold()) === order, 'the whole order sold', 60_000);
      third.child.kill('SIGTERM');
      expect(await third.exited).toBe(0);
    } finally {
      await stopArbitrage();
    }
    const all = await rows();
    const slices = all.map((row) => row.slot.split('#')[1]).sort((a, b) => Number(a?.split('.')[1]) - Number(b?.split('.')[1]));
    // Every slice once, numbered on from where the last start stopped.
    expect(slices).toEqual(slices.map((_, i) => `buy.${i + 1}`));
    expect(all.every((row) => row.status === 'confirmed')).toBe(true);
    expect(cusdBefore - (await fork.balanceOf(fork.token('cUSD'), me()))).toBe(order);
    expect(await expectLedgerEqualsChain(fork, home.ledgerFile, me(), fromBlock)).toBe(all.length);
  }, 120_000);
});
