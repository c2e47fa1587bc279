/**
 * The wallets this daemon holds: their leases taken (at start, or as the group shares wallets out; see group.ts),
 * renewed every third of their length on the database's clock, and handed back at a clean stop. A wallet is signed for only while its lease is known to hold
 * on this process's own monotonic clock (renewed less than a lease minus a margin ago), so a daemon cut off from
 * the database, or frozen, stops signing before its lease can lapse; the database checks the epoch again when the
 * signed bytes are recorded (`requireLease`).
 */
import { hostname } from 'node:os';
import type { Address } from 'viem';
import { ConfigError } from '../errors.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { holderGone } from '../ledger/holders.ts';
import { LeaseLostError } from '../ledger/leases.ts';
import type { Fence } from '../model/attempt.ts';

export const defaultLeaseMs = 15_000;

/** This process, as leases name their holder: host, pid and start. */
export const holderId = `${hostname()}:${process.pid}:${Date.now()}`;

type Held = { fence: Fence; validUntil: number };

export class WalletLeases {
  readonly #ledger: Ledger;
  readonly #chainId: number;
  readonly #ttlMs: number;
  readonly #holder: string;
  readonly #held = new Map<string, Held>();
  /** Wallets being handed back: no new work starts; runs in progress may still sign until they end. */
  readonly #leaving = new Set<string>();
  /** Told when a wallet's lease could not be renewed: its work stops. */
  onLost?: (wallet: Address, why: string) => void;
  /** Wallets taken from a holder whose process was gone (at start, before anyone could be told), and from whom. */
  readonly takenOver: { wallet: Address; from: string }[] = [];
  /** Told of every wallet taken from a holder whose process was gone, once the daemon listens. */
  onTakenOver?: (wallet: Address, from: string) => void;

  constructor(ledger: Ledger, options: { chainId: number; ttlMs?: number; holder?: string }) {
    this.#ledger = ledger;
    this.#chainId = options.chainId;
    this.#ttlMs = options.ttlMs ?? defaultLeaseMs;
    this.#holder = options.holder ?? holderId;
  }

  /** Takes every wallet's lease; a wallet another live daemon holds is a ConfigError naming it (nothing is kept). */
  async takeAll(wallets: readonly Address[]): Promise<void> {
    for (const wallet of wallets) {
      if (!(await this.take(wallet))) {
        const holder = (await this.#ledger.leases.all()).find((lease) => lease.wallet === wallet.toLowerCase())?.holder;
        await this.releaseAll();
        throw new ConfigError(
          `wallet ${wallet} is held by another routekeeper daemon (${holder ?? 'unknown'}); its lease runs out ${this.#ttlMs / 1000} s after that daemon stops renewing it`,
        );
      }
    }
  }

  /** How long a lease runs; renewals come every third of it. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** This daemon, as leases name it. */
  get holder(): string {
    return this.#holder;
  }

  /** Takes (or renews) one wallet's lease; false when another daemon holds it and its process is not known to be gone. */
  async take(wallet: Address): Promise<boolean> {
    const askedAt = performance.now();
    let lease = await this.#ledger.leases.take(this.#chainId, wallet, this.#holder, this.#ttlMs);
    if (!lease) {
      // A holder killed on this host (a crash, SIGKILL) renews nothing any more: its lease is taken at once.
      const current = (await this.#ledger.leases.all()).find((held) => held.chainId === this.#chainId && held.wallet === wallet.toLowerCase());
      if (current && holderGone(current.holder)) {
        lease = await this.#ledger.leases.takeOver(current, this.#holder, this.#ttlMs);
        if (lease && this.onTakenOver) this.onTakenOver(wallet, current.holder);
        else if (lease) this.takenOver.push({ wallet, from: current.holder });
      }
    }
    if (!lease) return false;
    // Counted from when we asked, not when the answer came: the database's lease may have started at any instant between.
    this.#held.set(wallet.toLowerCase(), { fence: lease, validUntil: askedAt + (this.#ttlMs * 2) / 3 });
    return true;
  }

  /**
   * Renews every lease held. A renewal the database refuses (another daemon holds the wallet now) loses the wallet at
   * once; one that cannot reach the database keeps it until its lease may lapse on our clock, and no longer.
   */
  async renewAll(): Promise<void> {
    for (const [key, held] of this.#held) {
      const renewed = await this.take(held.fence.wallet).catch((error: unknown) => {
        if (performance.now() >= held.validUntil) this.#lose(key, held, `its lease could not be renewed: ${(error as Error).message.split('\n')[0]}`);
        return true;
      });
      if (!renewed) this.#lose(key, held, 'another daemon holds it now');
    }
  }

  /**
   * Starts handing a wallet back to the group: from now on no new work starts for it here, while runs in progress
   * finish under the lease. `releaseLeaving` hands it back once it is idle.
   */
  leave(wallet: Address): void {
    if (this.#held.has(wallet.toLowerCase())) this.#leaving.add(wallet.toLowerCase());
  }

  /** Hands back the leaving wallets that are idle now: another daemon may take them at once. Resolves to them. */
  async releaseLeaving(isBusy: (wallet: Address) => boolean): Promise<Address[]> {
    const released: Address[] = [];
    for (const key of this.#leaving) {
      const held = this.#held.get(key);
      if (held && isBusy(held.fence.wallet)) continue;
      this.#leaving.delete(key);
      if (!held) continue;
      this.#held.delete(key);
      await this.#ledger.leases.release(held.fence);
      released.push(held.fence.wallet);
    }
    return released;
  }

  /** The wallets held and not being handed back. */
  staying(): Address[] {
    return this.wallets().filter((wallet) => !this.#leaving.has(wallet.toLowerCase()));
  }

  #lose(key: string, held: Held, why: string): void {
    this.#held.delete(key);
    this.#leaving.delete(key);
    this.onLost?.(held.fence.wallet, why);
  }

  /** How many wallets this daemon holds now. */
  get held(): number {
    return this.#held.size;
  }

  /** The wallets this daemon holds now. */
  wallets(): Address[] {
    return [...this.#held.values()].map((held) => held.fence.wallet);
  }

  /** Whether this daemon holds `wallet`, may sign for it now, and keeps it: new work for it may start. */
  holds(wallet: Address): boolean {
    const held = this.#held.get(wallet.toLowerCase());
    return held !== undefined && performance.now() < held.validUntil && !this.#leaving.has(wallet.toLowerCase());
  }

  /** The fence to sign `wallet`'s transactions under; LeaseLostError when its lease is not known to hold now. */
  fenceFor(wallet: Address): Fence {
    const held = this.#held.get(wallet.toLowerCase());
    if (!held) throw new LeaseLostError(`this daemon does not hold wallet ${wallet}; nothing is signed for it`);
    if (performance.now() >= held.validUntil)
      throw new LeaseLostError(`the lease of wallet ${wallet} was not renewed in time; nothing is signed for it until it is`);
    return held.fence;
  }

  /** Hands every lease back at once (a clean stop): another daemon may take the wallets without waiting. */
  async releaseAll(): Promise<void> {
    for (const held of this.#held.values()) await this.#ledger.leases.release(held.fence).catch(() => {});
    this.#held.clear();
    this.#leaving.clear();
  }
}
