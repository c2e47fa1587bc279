/**
 * The daemons that share one ledger, seen from one of them. Every third of a lease it checks in (`daemons`),
 * renews its wallets' leases, and, on a shared (PostgreSQL) ledger, takes its fair share of the wallets: about
 * wallets / live daemons. A daemon above its share hands idle wallets back (a daemon joined); one below it takes
 * free ones (a daemon stopped, or died and its leases ran out), so a dead daemon's wallets trade again within a
 * lease and one renewal. Each wallet is only ever held by one daemon (leases.ts); this only decides who asks.
 *
 * A SQLite ledger has one daemon: it holds every wallet from the start, as before.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Address } from 'viem';
import { ConfigError } from '../config/errors.ts';
import type { DaemonRecord } from '../ledger/daemons.ts';
import { holderGone } from '../ledger/holders.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { WalletLeases } from './leases.ts';

export type GroupOptions = {
  /** Every wallet of the strategy file. */
  wallets: readonly Address[];
  /** A ledger several daemons share (PostgreSQL): wallets are shared out; else this daemon holds them all. */
  shared: boolean;
  /** Where this daemon read its strategies, and their version: every daemon of a group runs the same. */
  strategyFile: string;
  strategyDigest: string;
  /** Told how many daemons share the routing service's rate limit (each takes its part). */
  shareRateLimit?: (daemons: number) => void;
  /** False: no renewals of its own; `tick()` is called by hand (tests drive each step). */
  renewByItself?: boolean;
};

/** The database answered (undefined) or not (why): /healthz shows it. */
export type DatabaseReport = (error: string | undefined) => void;

export class DaemonGroup {
  readonly #ledger: Ledger;
  readonly #leases: WalletLeases;
  readonly #options: GroupOptions;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #leaving = false;
  /** Told of each wallet this daemon took after start (its open trades and missed slots are this daemon's now). */
  onGained?: (wallet: Address) => void;
  /** Told of each wallet handed back to the group, and why. */
  onGivenBack?: (wallet: Address, why: string) => void;
  /** Whether a wallet has runs in progress: busy wallets are handed back last. */
  isBusy?: (wallet: Address) => boolean;
  onDatabase?: DatabaseReport;
  /** The live daemons at the last check-in (this one included). */
  live = 1;

  constructor(ledger: Ledger, leases: WalletLeases, options: GroupOptions) {
    this.#ledger = ledger;
    this.#leases = leases;
    this.#options = options;
  }

  /**
   * Checks in (a ConfigError when live daemons run other strategies, both versions named), takes this daemon's
   * wallets (all of them on SQLite: a ConfigError when one is held elsewhere; its fair share on PostgreSQL), and
   * renews from then on.
   */
  async join(): Promise<void> {
    // Alone on a SQLite ledger (its lock says so), a daemon has nobody to agree with.
    const disagreeing = await this.#checkIn({ agree: this.#options.shared });
    if (disagreeing) {
      throw new ConfigError(
        `the strategies in ${this.#options.strategyFile} (version ${this.#options.strategyDigest}) differ from those the daemons on this ledger run ` +
          `(version ${disagreeing.strategyDigest}, read from ${disagreeing.strategyFile} by ${disagreeing.holder}): every daemon sharing a ledger runs the same strategy file`,
      );
    }
    try {
      if (this.#options.shared) await this.#balance();
      else await this.#leases.takeAll(this.#options.wallets);
    } catch (error) {
      await this.#ledger.daemons.leave(this.#leases.holder).catch(() => {});
      throw error;
    }
    if (this.#options.renewByItself === false) return;
    this.#timer = setInterval(() => {
      this.#ticking ??= this.tick().finally(() => {
        this.#ticking = undefined;
      });
    }, Math.floor(this.#leases.ttlMs / 3));
    this.#timer.unref();
  }

  /** One renewal: check in, renew the leases, and move toward the fair share (once the daemon runs: `onGained`). */
  async tick(): Promise<void> {
    if (this.#leaving) return;
    const reached = await this.#checkIn({ agree: false }).then(
      () => true,
      () => false,
    );
    await this.#leases.renewAll();
    if (reached && this.onGained) await this.#balance().catch((error: unknown) => this.onDatabase?.((error as Error).message.split('\n')[0]));
  }

  /** A clean stop: no more renewals, every lease handed back, and this daemon gone from the group at once. */
  async leave(): Promise<void> {
    this.#leaving = true;
    clearInterval(this.#timer);
    await this.#ticking;
    await this.#leases.releaseAll();
    await this.#ledger.daemons.leave(this.#leases.holder).catch(() => {});
  }

  async #checkIn(options: { agree: boolean }): Promise<DaemonRecord | undefined> {
    try {
      const disagreeing = await this.#ledger.daemons.checkIn(
        {
          holder: this.#leases.holder,
          host: hostname(),
          pid: process.pid,
          wallets: this.#leases.held,
          strategyFile: this.#options.strategyFile,
          strategyDigest: this.#options.strategyDigest,
        },
        options.agree ? { agreeWithin: this.#leases.ttlMs, ignore: (other) => holderGone(other.holder) } : {},
      );
      this.onDatabase?.(undefined);
      return disagreeing;
    } catch (error) {
      this.onDatabase?.((error as Error).message.split('\n')[0]);
      throw error;
    }
  }

  /** Hands back wallets above the fair share (idle ones first), or takes free ones below it. */
  async #balance(): Promise<void> {
    // A daemon whose process is gone from this host is not waited for: its wallets are free at once.
    const live = (await this.#ledger.daemons.live(this.#leases.ttlMs)).filter((daemon) => !holderGone(daemon.holder));
    this.live = Math.max(live.length, 1);
    this.#options.shareRateLimit?.(this.live);
    // Alone on its ledger (SQLite), a daemon holds every wallet, and takes back any it lost while the database was away.
    const share = this.#options.shared ? Math.ceil(this.#options.wallets.length / this.live) : this.#options.wallets.length;
    const held = this.#leases.wallets();
    if (held.length > share) {
      const idleFirst = [...held].sort((a, b) => Number(this.isBusy?.(a) ?? false) - Number(this.isBusy?.(b) ?? false));
      for (const wallet of idleFirst.slice(0, held.length - share)) {
        // A wallet whose run is still going is handed back at a later renewal, once it is idle.
        if (this.isBusy?.(wallet)) break;
        await this.#leases.giveBack(wallet);
        this.onGivenBack?.(wallet, `${this.live} daemons share ${this.#options.wallets.length} wallets: this one keeps ${share}`);
      }
      return;
    }
    if (held.length === share) return;
    const liveHolders = new Set(live.map((daemon) => daemon.holder));
    const leases = new Map((await this.#ledger.leases.all()).map((lease) => [lease.wallet.toLowerCase(), lease]));
    const mine = new Set(held.map((wallet) => wallet.toLowerCase()));
    // Free wallets: never leased, handed back, or their holder no longer checks in or is gone from this host. Each daemon tries
    // them in its own order, so daemons joining together mostly ask for different ones.
    const free = this.#options.wallets
      .filter((wallet) => !mine.has(wallet.toLowerCase()))
      .filter((wallet) => {
        const lease = leases.get(wallet.toLowerCase());
        return !lease || !lease.live || !liveHolders.has(lease.holder) || holderGone(lease.holder);
      })
      .sort((a, b) => this.#order(a).localeCompare(this.#order(b)));
    let holding = held.length;
    for (const wallet of free) {
      if (holding >= share || this.#leaving) break;
      if (!(await this.#leases.take(wallet))) continue;
      holding += 1;
      this.onGained?.(wallet);
    }
  }

  #order(wallet: Address): string {
    return createHash('sha256').update(`${this.#leases.holder}|${wallet.toLowerCase()}`).digest('hex');
  }
}
