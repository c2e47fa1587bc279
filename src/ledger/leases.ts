/**
 * Which daemon holds each wallet: a lease row on the database's clock, with an epoch that rises at every change of
 * holder (a fencing token). A holder renews well before its lease runs out; a lease that ran out is anyone's. Every
 * write that lets a transaction leave (signed bytes) checks, in its own database transaction, that the lease is
 * still the writer's and still has the epoch the writer was given: a daemon that lost its wallet (stopped, cut off,
 * frozen past its lease) can record nothing new for it. Rows, not session advisory locks: a dropped or pooled
 * connection cannot silently let go of a wallet.
 */
import type { Address } from 'viem';
import { RoutekeeperError } from '../errors.ts';
import type { LedgerDatabase, Queries } from './database.ts';
import { stored } from './rows.ts';
import type { Fence } from '../model/attempt.ts';

export type Lease = Fence & { expiresAt: number };

/** The lease is not the writer's any more (or never was): nothing was written. */
export class LeaseLostError extends RoutekeeperError {
  override name = 'LeaseLostError';
}

export class LeaseStore {
  readonly #ledger: LedgerDatabase;
  /** False on a ledger from before leases, read without migrating: it has none. */
  readonly #present: boolean;

  constructor(ledger: LedgerDatabase, present = true) {
    this.#ledger = ledger;
    this.#present = present;
  }

  /**
   * Takes the wallet's lease for `holder`, or renews it, for `ttlMs` from the database's now. Undefined when another
   * holder's lease has not run out. The epoch rises when the holder changes, and only then.
   */
  async take(chainId: number, wallet: Address, holder: string, ttlMs: number): Promise<Lease | undefined> {
    const now = this.#ledger.nowMs;
    const row = await this.#ledger.db
      .insertInto('wallet_leases')
      .values((eb) => ({ chain_id: chainId, wallet: stored(wallet), holder, epoch: 1, expires_at: eb(now, '+', ttlMs) }))
      .onConflict((conflict) =>
        conflict
          .columns(['chain_id', 'wallet'])
          .doUpdateSet((eb) => ({
            holder: eb.ref('excluded.holder'),
            epoch: eb
              .case()
              .when('wallet_leases.holder', '=', eb.ref('excluded.holder'))
              .then(eb.ref('wallet_leases.epoch'))
              .else(eb(eb.ref('wallet_leases.epoch'), '+', 1))
              .end(),
            expires_at: eb.ref('excluded.expires_at'),
          }))
          .where((eb) => eb.or([eb('wallet_leases.holder', '=', eb.ref('excluded.holder')), eb('wallet_leases.expires_at', '<=', now)])),
      )
      .returning(['epoch', 'expires_at'])
      .executeTakeFirst();
    return row && { chainId, wallet, holder, epoch: Number(row.epoch), expiresAt: Number(row.expires_at) };
  }

  /**
   * Takes a wallet whose holder is known to be gone (its process has died on this host) without waiting for its
   * lease to run out: only from that holder at that epoch, and under the next epoch.
   */
  async takeOver(gone: Lease, holder: string, ttlMs: number): Promise<Lease | undefined> {
    const row = await this.#ledger.db
      .updateTable('wallet_leases')
      .set((eb) => ({ holder, epoch: eb(eb.ref('epoch'), '+', 1), expires_at: eb(this.#ledger.nowMs, '+', ttlMs) }))
      .where('chain_id', '=', gone.chainId)
      .where('wallet', '=', stored(gone.wallet))
      .where('holder', '=', gone.holder)
      .where('epoch', '=', gone.epoch)
      .returning(['epoch', 'expires_at'])
      .executeTakeFirst();
    return row && { chainId: gone.chainId, wallet: gone.wallet, holder, epoch: Number(row.epoch), expiresAt: Number(row.expires_at) };
  }

  /** Hands the wallet back at once (a clean stop): its lease runs out now, and the next holder's epoch rises. */
  async release(fence: Fence): Promise<void> {
    await this.#ledger.db
      .updateTable('wallet_leases')
      .set({ expires_at: 0 })
      .where('chain_id', '=', fence.chainId)
      .where('wallet', '=', stored(fence.wallet))
      .where('holder', '=', fence.holder)
      .where('epoch', '=', fence.epoch)
      .execute();
  }

  /**
   * Every wallet's lease, as the database has it now (expired ones included, with their last holder): `live` while it
   * runs, and how long it still runs (ms, on the database's clock; 0 once out).
   */
  async all(): Promise<(Lease & { live: boolean; remainingMs: number })[]> {
    if (!this.#present) return [];
    const rows = await this.#ledger.db
      .selectFrom('wallet_leases')
      .selectAll()
      .select((eb) => [eb(this.#ledger.nowMs, '<', eb.ref('expires_at')).as('live'), eb(eb.ref('expires_at'), '-', this.#ledger.nowMs).as('remaining')])
      .orderBy('wallet')
      .execute();
    return rows.map((row) => ({
      chainId: row.chain_id,
      wallet: row.wallet,
      holder: row.holder,
      epoch: Number(row.epoch),
      expiresAt: Number(row.expires_at),
      live: Boolean(row.live),
      remainingMs: Math.max(0, Number(row.remaining)),
    }));
  }
}

/**
 * Inside a transaction: throws LeaseLostError unless the wallet's lease is still the fence's holder's, with its epoch,
 * and has not run out on the database's clock. On PostgreSQL the row is locked until the transaction ends, so a
 * new holder cannot take it in between.
 */
export async function requireLease(ledger: LedgerDatabase, q: Queries, fence: Fence): Promise<void> {
  let query = q
    .selectFrom('wallet_leases')
    .select(['holder', 'epoch', 'expires_at'])
    .select((eb) => eb(ledger.nowMs, '<', eb.ref('expires_at')).as('live'))
    .where('chain_id', '=', fence.chainId)
    .where('wallet', '=', stored(fence.wallet));
  if (ledger.dialect === 'postgres') query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row || row.holder !== fence.holder || Number(row.epoch) !== fence.epoch || !row.live) {
    const now = row
      ? row.holder === fence.holder && Number(row.epoch) === fence.epoch
        ? 'it ran out'
        : `it is ${row.holder}'s (epoch ${row.epoch})`
      : 'nobody holds it';
    throw new LeaseLostError(`the lease of wallet ${fence.wallet} (epoch ${fence.epoch}) is not this daemon's any more: ${now}; nothing was recorded`);
  }
}
