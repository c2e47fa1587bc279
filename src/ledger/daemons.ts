/**
 * The daemons sharing a ledger: each checks in at start and at every lease renewal, on the database's clock, and
 * leaves at a clean stop. A daemon not renewed for a lease's length is not live: the others share its wallets
 * out as its leases run out. Every daemon runs the same strategies, and the check that it does is made in the
 * transaction that registers it, so two daemons with different files starting together cannot both join.
 */
import type { LedgerDatabase, Queries } from './database.ts';

export type DaemonCheckIn = {
  /** `host:pid:start`, as its leases name it. */
  holder: string;
  host: string;
  pid: number;
  /** How many wallets it holds now. */
  wallets: number;
  /** It runs strategies (its start-up is over): only a ready daemon counts in the fair share. */
  ready: boolean;
  /** Where it read its strategies. */
  strategyFile: string;
  /** The version of its strategies: a digest of their definitions. */
  strategyDigest: string;
};

export type DaemonRecord = DaemonCheckIn & {
  startedAt: number;
  renewedAt: number /** ms since its last renewal, on the database's clock */;
  renewedAgoMs: number;
};

/** Rows of daemons not seen for this long are forgotten (the `daemons` command shows recent ones as gone). */
const forgetAfterMs = 24 * 60 * 60_000;

export class DaemonStore {
  readonly #ledger: LedgerDatabase;
  /** False on a ledger from before the daemons table, read without migrating: it has none. */
  readonly #present: boolean;

  constructor(ledger: LedgerDatabase, present = true) {
    this.#ledger = ledger;
    this.#present = present;
  }

  /**
   * Registers the daemon or renews its row. With `agreeWithin`, a live daemon (renewed less than that long ago)
   * whose strategies differ is returned instead, and nothing is written: every daemon of a group runs the same.
   * `ignore`: daemons known to be gone although their row is recent (a process that died on this host).
   */
  async checkIn(daemon: DaemonCheckIn, options: { agreeWithin?: number; ignore?: (other: DaemonRecord) => boolean } = {}): Promise<DaemonRecord | undefined> {
    const ledger = this.#ledger;
    return ledger.transaction(async (q) => {
      await ledger.serialize(q, 'daemons');
      if (options.agreeWithin !== undefined) {
        const disagreeing = (await this.#rows(q, options.agreeWithin)).find(
          (row) => row.holder !== daemon.holder && row.strategyDigest !== daemon.strategyDigest && !options.ignore?.(row),
        );
        if (disagreeing) return disagreeing;
      }
      const row = { wallets: daemon.wallets, ready: daemon.ready ? 1 : 0, strategy_file: daemon.strategyFile, strategy_digest: daemon.strategyDigest };
      await q
        .insertInto('daemons')
        .values({ holder: daemon.holder, host: daemon.host, pid: daemon.pid, started_at: ledger.nowMs, renewed_at: ledger.nowMs, ...row })
        .onConflict((conflict) => conflict.column('holder').doUpdateSet({ renewed_at: ledger.nowMs, ...row }))
        .execute();
      await q
        .deleteFrom('daemons')
        .where((eb) => eb(eb.ref('renewed_at'), '<', eb(ledger.nowMs, '-', forgetAfterMs)))
        .execute();
      return undefined;
    });
  }

  /** Daemons renewed less than `withinMs` ago, oldest first. */
  async live(withinMs: number): Promise<DaemonRecord[]> {
    if (!this.#present) return [];
    return this.#rows(this.#ledger.db, withinMs);
  }

  /** Every daemon the ledger remembers (those gone for a day are forgotten), oldest first. */
  async all(): Promise<DaemonRecord[]> {
    if (!this.#present) return [];
    return this.#rows(this.#ledger.db);
  }

  /** A clean stop: the daemon is gone at once. */
  async leave(holder: string): Promise<void> {
    await this.#ledger.db.deleteFrom('daemons').where('holder', '=', holder).execute();
  }

  async #rows(q: Queries, withinMs?: number): Promise<DaemonRecord[]> {
    let query = q
      .selectFrom('daemons')
      .selectAll()
      .select((eb) => eb(this.#ledger.nowMs, '-', eb.ref('renewed_at')).as('age'));
    if (withinMs !== undefined) query = query.where((eb) => eb(eb.ref('renewed_at'), '>', eb(this.#ledger.nowMs, '-', withinMs)));
    const rows = await query.orderBy('started_at').orderBy('holder').execute();
    return rows.map((row) => ({
      holder: row.holder,
      host: row.host,
      pid: Number(row.pid),
      wallets: Number(row.wallets),
      ready: Number(row.ready) === 1,
      strategyFile: row.strategy_file,
      strategyDigest: row.strategy_digest,
      startedAt: Number(row.started_at),
      renewedAt: Number(row.renewed_at),
      renewedAgoMs: Number(row.age),
    }));
  }
}
