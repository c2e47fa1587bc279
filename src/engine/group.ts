/**
 * The daemons that share one ledger, seen from one of them. Every third of a lease it checks in (`daemons`) and
 * renews its wallets' leases; on a shared (PostgreSQL) ledger it also takes its fair share of the wallets: about
 * wallets / ready daemons. A daemon counts once it is ready (its start-up over, its strategies scheduled), so the
 * wallets of a daemon that died go to those already running, within a renewal, rather than waiting for the start-up
 * of its replacement. A daemon above its share hands wallets back (a daemon joined): no new work starts for them, and
 * each is released once its runs in progress end. One below its share takes free wallets (a daemon stopped, or died
 * and its leases ran out, or is gone from this host). Each wallet is only ever held by one daemon (leases.ts); this
 * only decides who asks. A daemon that dies on this host is noticed within a second by its neighbours there; on
 * another host, when its leases run out.
 *
 * A daemon alone on a SQLite ledger, and `once`, hold every wallet they trade from the start, as before.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Address } from 'viem';
import { ConfigError } from '../errors.ts';
import type { DaemonRecord } from '../ledger/daemons.ts';
import { holderGone } from '../ledger/holders.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { WalletLeases } from './leases.ts';

/** How often the daemons on this host are looked at (a process check, no database query). */
const neighbourWatchMs = 1_000;

/**
 * When to look again before the next renewal (ms from now), or undefined: just after the soonest of the other
 * daemons' leases runs out, if that is before the next renewal. A live holder renews every third of a lease, so its
 * lease never gets that close to its end; one that does has missed its renewals (dead, frozen or cut off on another
 * host), and its wallets are free the moment it runs out, not up to a renewal later.
 */
export function wakeBeforeRenewal(
  leases: readonly { holder: string; live: boolean; remainingMs: number }[],
  self: string,
  renewEveryMs: number,
): number | undefined {
  const soonest = Math.min(...leases.filter((lease) => lease.live && lease.holder !== self).map((lease) => lease.remainingMs));
  return soonest < renewEveryMs ? soonest + 50 : undefined;
}

export type GroupOptions = {
  /** Every wallet of the strategy file. */
  wallets: readonly Address[];
  /** Share the wallets with the other daemons of the ledger (`run` on PostgreSQL); else hold them all from the start. */
  share: boolean;
  /** Appear in the `daemons` table (a daemon does; `once` does not). */
  listed: boolean;
  /** Where this daemon read its strategies, and their version: every daemon sharing a ledger runs the same. */
  strategyFile: string;
  strategyDigest: string;
  /** Told how many daemons share the routing service's rate limit (each takes its part). */
  shareRateLimit?: (daemons: number) => void;
  /** False: no renewals of its own; `tick()` is called by hand (tests drive each step). */
  renewByItself?: boolean;
};

/** What the group asks of the daemon once it runs. */
export type GroupHooks = {
  /** A wallet this daemon took: its open trades and missed slots are this daemon's now. */
  onGained(wallet: Address): void;
  /** Whether a wallet has runs in progress: it is handed back once it has none. */
  isBusy(wallet: Address): boolean;
};

export class DaemonGroup {
  readonly #ledger: Ledger;
  readonly #leases: WalletLeases;
  readonly #options: GroupOptions;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopping = false;
  #hooks: GroupHooks | undefined;
  /** The other live daemons on this host, watched every second: one that dies is replaced at once, not at the next renewal. */
  #neighbours: string[] = [];
  #watch: NodeJS.Timeout | undefined;
  /** A look due before the next renewal (a lease of a daemon that stopped renewing runs out then). */
  #wake: NodeJS.Timeout | undefined;
  /** Told of each wallet handed back to the group, and why. */
  onGivenBack?: (wallet: Address, why: string) => void;
  /** The database answered (undefined) or not (why): /healthz shows it. */
  onDatabase?: (error: string | undefined) => void;
  /** The ready daemons at the last renewal (this one included). */
  live = 1;

  /** Whether the wallets are shared out (a daemon on PostgreSQL): a strategy runs only where its wallet is held. */
  get shares(): boolean {
    return this.#options.share;
  }

  constructor(ledger: Ledger, leases: WalletLeases, options: GroupOptions) {
    this.#ledger = ledger;
    this.#leases = leases;
    this.#options = options;
  }

  /**
   * Checks in (sharing: a ConfigError when live daemons run other strategies, both versions named) and, unless
   * sharing, takes every wallet (a ConfigError when one is held elsewhere); renews from then on. A sharing daemon
   * takes wallets once it runs (`run`).
   */
  async join(): Promise<void> {
    const disagreeing = this.#options.listed ? await this.#checkIn({ agree: this.#options.share }) : undefined;
    if (disagreeing) {
      throw new ConfigError(
        `the strategies in ${this.#options.strategyFile} (version ${this.#options.strategyDigest}) differ from those the daemons on this ledger run ` +
          `(version ${disagreeing.strategyDigest}, read from ${disagreeing.strategyFile} by ${disagreeing.holder}): every daemon sharing a ledger runs the same strategy file`,
      );
    }
    if (!this.#options.share) {
      await this.#leases.takeAll(this.#options.wallets).catch(async (error: unknown) => {
        if (this.#options.listed) await this.#ledger.daemons.leave(this.#leases.holder).catch(() => {});
        throw error;
      });
    }
    if (this.#options.renewByItself === false) return;
    this.#timer = setInterval(() => void this.#tickOnce(), Math.floor(this.#leases.ttlMs / 3));
    this.#timer.unref();
  }

  /** The daemon runs its strategies now: it takes its share at once, and keeps to it at every renewal. */
  async run(hooks: GroupHooks): Promise<void> {
    this.#hooks = hooks;
    if (this.#options.share && this.#options.renewByItself !== false) {
      this.#watch = setInterval(() => {
        if (this.#neighbours.some(holderGone)) void this.#tickOnce();
      }, neighbourWatchMs);
      this.#watch.unref();
    }
    await this.#tickOnce();
  }

  /** One renewal: check in, renew the leases, and (once running) move toward the fair share. */
  async tick(): Promise<void> {
    if (this.#stopping) return;
    const reached =
      !this.#options.listed ||
      (await this.#checkIn({ agree: false }).then(
        () => true,
        () => false,
      ));
    await this.#leases.renewAll();
    if (reached && this.#hooks) await this.#balance(this.#hooks).catch((error: unknown) => this.onDatabase?.((error as Error).message.split('\n')[0]));
  }

  /** A clean stop: no more renewals, every lease handed back, and this daemon gone from the group at once. */
  async leave(): Promise<void> {
    this.#stopping = true;
    this.#hooks = undefined;
    clearInterval(this.#timer);
    clearInterval(this.#watch);
    clearTimeout(this.#wake);
    await this.#ticking;
    await this.#leases.releaseAll();
    if (this.#options.listed) await this.#ledger.daemons.leave(this.#leases.holder).catch(() => {});
  }

  /** One tick at a time: a renewal still going when the next is due is not doubled. */
  #tickOnce(): Promise<void> {
    this.#ticking ??= this.tick().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  async #checkIn(options: { agree: boolean }): Promise<DaemonRecord | undefined> {
    try {
      const disagreeing = await this.#ledger.daemons.checkIn(
        {
          holder: this.#leases.holder,
          host: hostname(),
          pid: process.pid,
          wallets: this.#leases.held,
          ready: this.#hooks !== undefined,
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

  /** Hands back wallets above the fair share (idle ones first, each once idle), or takes free ones below it. */
  async #balance(hooks: GroupHooks): Promise<void> {
    // A daemon whose process is gone from this host is not waited for: its wallets are free at once.
    const live = this.#options.share ? (await this.#ledger.daemons.live(this.#leases.ttlMs)).filter((daemon) => !holderGone(daemon.holder)) : [];
    const ready = live.filter((daemon) => daemon.ready || daemon.holder === this.#leases.holder);
    this.#neighbours = live.filter((daemon) => daemon.host === hostname() && daemon.holder !== this.#leases.holder).map((daemon) => daemon.holder);
    this.live = Math.max(ready.length, 1);
    // Every live daemon quotes (one starting up resumes trades): each takes its part of the routing limit.
    if (this.#options.share) this.#options.shareRateLimit?.(Math.max(live.length, 1));
    // Alone (SQLite), a daemon holds every wallet, and takes back any it lost while the database was away.
    const share = this.#options.share ? Math.ceil(this.#options.wallets.length / this.live) : this.#options.wallets.length;
    const why = `${this.live} daemons share ${this.#options.wallets.length} wallets: this one keeps ${share}`;
    const staying = this.#leases.staying();
    if (staying.length > share) {
      const idleFirst = [...staying].sort((a, b) => Number(hooks.isBusy(a)) - Number(hooks.isBusy(b)));
      for (const wallet of idleFirst.slice(0, staying.length - share)) this.#leases.leave(wallet);
    }
    for (const wallet of await this.#leases.releaseLeaving(hooks.isBusy)) this.onGivenBack?.(wallet, why);
    const all = await this.#ledger.leases.all();
    if (this.#options.share) this.#wakeAt(wakeBeforeRenewal(all, this.#leases.holder, this.#leases.ttlMs / 3));
    if (staying.length >= share) return;
    const liveHolders = new Set(live.map((daemon) => daemon.holder));
    const leases = new Map(all.map((lease) => [lease.wallet.toLowerCase(), lease]));
    const mine = new Set(this.#leases.wallets().map((wallet) => wallet.toLowerCase()));
    // Free wallets: never leased, handed back, or their holder no longer checks in or is gone from this host. Each
    // daemon tries them in its own order, so daemons asking together mostly ask for different ones.
    const free = this.#options.wallets
      .filter((wallet) => !mine.has(wallet.toLowerCase()))
      .filter((wallet) => {
        const lease = leases.get(wallet.toLowerCase());
        return !lease?.live || (this.#options.share && !liveHolders.has(lease.holder)) || holderGone(lease.holder);
      })
      .sort((a, b) => this.#order(a).localeCompare(this.#order(b)));
    let holding = staying.length;
    for (const wallet of free) {
      if (holding >= share || this.#stopping) break;
      if (!(await this.#leases.take(wallet))) continue;
      holding += 1;
      hooks.onGained(wallet);
    }
  }

  #wakeAt(delayMs: number | undefined): void {
    clearTimeout(this.#wake);
    if (delayMs === undefined || this.#options.renewByItself === false || this.#stopping) return;
    this.#wake = setTimeout(() => void this.#tickOnce(), delayMs);
    this.#wake.unref();
  }

  #order(wallet: Address): string {
    return createHash('sha256').update(`${this.#leases.holder}|${wallet.toLowerCase()}`).digest('hex');
  }
}
