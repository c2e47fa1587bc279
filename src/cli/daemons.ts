/** `routekeeper daemons`: who shares the ledger, and which wallets each holds (its help is in catalog.ts). */
import { readEnv } from '../config/env.ts';
import { defaultLeaseMs } from '../engine/leases.ts';
import { toJson } from '../json.ts';
import type { DaemonRecord } from '../ledger/daemons.ts';
import { Ledger } from '../ledger/ledger.ts';
import type { Lease } from '../ledger/leases.ts';
import { parseCommandArgs } from './command.ts';
import { ledgerLocationFor, ledgerOptions } from './ledger-file.ts';

type HeldWallet = { wallet: string; epoch: number; expiresAt: number };
type DaemonRow = DaemonRecord & { live: boolean; held: HeldWallet[] };

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('daemons', argv, { json: { type: 'boolean' }, ...ledgerOptions });
  const ledger = await Ledger.openReadOnly(await ledgerLocationFor(values));
  try {
    const [daemons, leases] = await Promise.all([ledger.daemons.all(), ledger.leases.all()]);
    // Live: renewed within a lease (ROUTEKEEPER_LEASE_SECONDS, as the daemons were started with).
    const leaseMs = (readEnv().ROUTEKEEPER_LEASE_SECONDS ?? defaultLeaseMs / 1000) * 1000;
    const { rows, free } = daemonRows(daemons, leases, leaseMs);
    if (values.json) {
      console.log(toJson({ ledger: ledger.location, daemons: rows, freeWallets: free }));
      return 0;
    }
    console.log(`${ledger.location}: ${rows.filter((row) => row.live).length} live daemon(s), ${leases.length} wallet(s) leased`);
    for (const row of rows) {
      const state = row.live ? `renewed ${seconds(row.renewedAgoMs)} ago` : `gone (last renewed ${seconds(row.renewedAgoMs)} ago)`;
      console.log(
        `${row.holder}  host ${row.host}  pid ${row.pid}  started ${new Date(row.startedAt).toISOString()}  ${state}  strategies ${row.strategyDigest} (${row.strategyFile})`,
      );
      console.log(
        `  ${row.held.length} wallet(s)${row.held.length > 0 ? `: ${row.held.map((held) => `${held.wallet} (epoch ${held.epoch})`).join(', ')}` : ''}`,
      );
    }
    if (free.length > 0) console.log(`held by no daemon now: ${free.join(', ')}`);
    return 0;
  } finally {
    await ledger.close();
  }
}

/** Each daemon with the wallets whose lease it holds now, and the wallets nobody holds. */
function daemonRows(daemons: readonly DaemonRecord[], leases: readonly (Lease & { live: boolean })[], leaseMs: number): { rows: DaemonRow[]; free: string[] } {
  const rows = daemons.map((daemon) => ({
    ...daemon,
    live: daemon.renewedAgoMs < leaseMs,
    held: leases
      .filter((lease) => lease.live && lease.holder === daemon.holder)
      .map((lease) => ({ wallet: lease.wallet, epoch: lease.epoch, expiresAt: lease.expiresAt })),
  }));
  return { rows, free: leases.filter((lease) => !lease.live).map((lease) => lease.wallet) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
