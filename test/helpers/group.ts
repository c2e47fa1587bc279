/**
 * For tests of several daemons on one PostgreSQL ledger: funded wallets, their strategy file, and what the shared
 * ledger says (who holds which wallet, under which leases each wallet's attempts were signed).
 */
import { type Address, type Hex, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { Ledger, type LedgerLocation, type LedgerView } from '../../src/ledger/ledger.ts';
import type { DaemonProcess } from './daemon-process.ts';
import type { DevnetFork } from './devnet.ts';
import { waitFor } from './wait.ts';

/** `count` new wallets, each with gas and 1,000 cUSD to sell. */
export async function fundedWallets(fork: DevnetFork, count: number): Promise<{ name: string; key: Hex; address: Address }[]> {
  const funder = fork.wallet(fork.addressBook.accounts[0]?.privateKey as Hex);
  const wallets = [];
  for (let i = 0; i < count; i++) {
    const key = generatePrivateKey();
    const { address } = privateKeyToAccount(key);
    await fork.testClient.setBalance({ address, value: parseUnits('100', 18) });
    await fork.confirm(
      await funder.writeContract({ address: fork.token('cUSD'), abi: artifacts.TestToken.abi, functionName: 'mint', args: [address, parseUnits('1000', 18)] }),
    );
    wallets.push({ name: `w${i}`, key, address });
  }
  return wallets;
}

/** One DCA per wallet, 1 cUSD for CELO every second; `start` in the future makes them only settle. */
export function groupYaml(wallets: { name: string }[], start?: string): string {
  return `
defaults: { confirmations: 1, firstRun: now }
wallets:
${wallets.map((wallet) => `  ${wallet.name}: { privateKeyEnv: KEY_${wallet.name.toUpperCase()} }`).join('\n')}
strategies:
${wallets.map((wallet) => `  - { id: dca-${wallet.name}, kind: dca, wallet: ${wallet.name}, every: 1s, sell: { token: cUSD, amount: "1" }, buy: CELO${start ? `, start: "${start}"` : ''} }`).join('\n')}
`;
}

/** Polls the shared ledger (opened once) until `predicate` holds; on timeout, `explain` says what the ledger held. */
export async function until<T>(
  location: LedgerLocation,
  what: string,
  predicate: (ledger: LedgerView) => Promise<T | undefined>,
  timeoutMs = 60_000,
  explain?: (ledger: LedgerView) => Promise<string>,
): Promise<T> {
  let ledger: LedgerView | undefined;
  try {
    const probe = async () => {
      ledger ??= await Ledger.openReadOnly(location).catch(() => undefined);
      // Until the first daemon has migrated the schema, its tables are not there yet.
      const found = ledger && (await predicate(ledger).catch(() => undefined));
      return found !== undefined && found !== false ? { found } : undefined;
    };
    const held = async () =>
      (ledger && explain ? await explain(ledger).catch((error: unknown) => `(the ledger could not be read: ${error})`) : undefined) ?? 'nothing to say';
    return (await waitFor(probe, what, timeoutMs, { explain: held, pollMs: 100 })).found as T;
  } finally {
    await ledger?.close();
  }
}

/** Who holds each wallet now (live leases only). */
export async function holders(ledger: LedgerView): Promise<Map<string, string>> {
  return new Map((await ledger.leases.all()).filter((lease) => lease.live).map((lease) => [lease.wallet as string, lease.holder]));
}

/** The holder a daemon process names itself by (host:pid:start). */
export const holderOf = (held: Map<string, string>, daemon: DaemonProcess) =>
  [...held.values()].find((holder) => holder.split(':')[1] === String(daemon.child.pid));

/**
 * Each wallet's attempts, in nonce order, were signed under leases that never come back: once a later epoch has
 * signed, no attempt of an earlier one follows.
 */
export async function expectEpochsInOrder(location: LedgerLocation, wallets: Address[]): Promise<void> {
  const ledger = await Ledger.openReadOnly(location);
  try {
    const trades = await ledger.trades.history({ limit: 100_000 });
    for (const wallet of wallets) {
      const attempts = (
        await Promise.all(trades.filter((trade) => trade.wallet.toLowerCase() === wallet.toLowerCase()).map((trade) => ledger.attempts.ofTrade(trade.id)))
      ).flat();
      const epochs = attempts.sort((a, b) => a.nonce - b.nonce || a.id - b.id).map((attempt) => attempt.lease?.epoch);
      expect(
        epochs.every((epoch) => epoch !== undefined),
        wallet,
      ).toBe(true);
      expect(epochs, wallet).toEqual([...epochs].sort((a, b) => (a as number) - (b as number)));
    }
  } finally {
    await ledger.close();
  }
}
