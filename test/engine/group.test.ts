/**
 * Daemons sharing one PostgreSQL ledger share its wallets: each holds about wallets / live daemons, no wallet is
 * ever held by two, a daemon that joins is given some, one that leaves (or stops renewing) has its wallets taken
 * by the others, and a daemon whose strategies differ from the group's is refused with both versions named.
 * Renewals are driven by hand (`tick`), so each step is an event, not a wait.
 */
import { hostname } from 'node:os';
import { privateKeyToAddress } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { DaemonGroup, wakeBeforeRenewal } from '../../src/engine/group.ts';
import { WalletLeases } from '../../src/engine/leases.ts';
import { Ledger, type LedgerLocation } from '../../src/ledger/ledger.ts';
import { AdaptiveLimiter } from '../../src/routing-client/limiter.ts';
import { freshLedger } from '../helpers/ledgers.ts';

const chainId = 42220;
const wallets = Array.from({ length: 30 }, (_, i) => privateKeyToAddress(`0x${(i + 1).toString(16).padStart(64, '0')}`));

type Member = { name: string; ledger: Ledger; leases: WalletLeases; group: DaemonGroup; gained: string[]; given: string[]; shares: number[] };
const members: Member[] = [];

afterEach(async () => {
  for (const member of members.splice(0)) {
    await member.group.leave().catch(() => {});
    await member.ledger.close();
  }
});

/**
 * One daemon of the group, in this process: its own connections to the ledger. `host` other than this one is a
 * daemon on another machine (whose process this one cannot see: only its lease running out frees its wallets).
 */
async function member(location: LedgerLocation, name: string, options: { digest?: string; ttlMs?: number; host?: string } = {}): Promise<Member> {
  const ledger = await Ledger.open(location);
  const holder = `${options.host ?? hostname()}:${process.pid}:${name}`;
  const leases = new WalletLeases(ledger, { chainId, ttlMs: options.ttlMs ?? 60_000, holder });
  const shares: number[] = [];
  const group = new DaemonGroup(ledger, leases, {
    wallets,
    share: true,
    listed: true,
    strategyFile: `/etc/routekeeper/${name}.yaml`,
    strategyDigest: options.digest ?? 'a1b2c3d4e5f6',
    shareRateLimit: (daemons) => shares.push(daemons),
    renewByItself: false,
  });
  const joined: Member = { name, ledger, leases, group, gained: [], given: [], shares };
  members.push(joined);
  return joined;
}

/** Joins and runs: takes its share at once, and from then on takes and hands back wallets at each tick (idle ones). */
async function join(joining: Member, isBusy: (wallet: string) => boolean = () => false): Promise<Member> {
  await joining.group.join();
  joining.group.onGivenBack = (wallet) => joining.given.push(wallet);
  await joining.group.run({ onGained: (wallet) => joining.gained.push(wallet), isBusy });
  return joining;
}

const tickAll = async (group: Member[]) => {
  for (const one of group) await one.group.tick();
};

/** Every wallet held by exactly one daemon, in memory and in the ledger; the holdings per daemon. */
async function expectEachWalletHeldOnce(group: Member[]): Promise<number[]> {
  const held = group.flatMap((one) => one.leases.wallets().map((wallet) => [wallet.toLowerCase(), one.leases.holder] as const));
  expect(new Set(held.map(([wallet]) => wallet)).size).toBe(held.length);
  const leases = (await group[0]?.ledger.leases.all()) ?? [];
  const live = new Map<string, string>(leases.filter((lease) => lease.live).map((lease) => [lease.wallet, lease.holder]));
  for (const [wallet, holder] of held) expect(live.get(wallet)).toBe(holder);
  return group.map((one) => one.leases.held);
}

describe('daemons sharing a PostgreSQL ledger', () => {
  it('share 30 wallets 10 / 10 / 10 as they join, and 15 / 15 when one leaves; never one wallet held twice', async () => {
    const location = freshLedger('postgres');
    const a = await join(await member(location, 'a'));
    expect(a.leases.held).toBe(30);
    const b = await join(await member(location, 'b'));
    // b found every wallet held: a hands 15 back at its next renewal, b takes them at its own.
    expect(b.leases.held).toBe(0);
    await tickAll([a, b]);
    expect(await expectEachWalletHeldOnce([a, b])).toEqual([15, 15]);
    expect(a.given).toHaveLength(15);
    expect(b.gained.sort()).toEqual(a.given.sort());
    const c = await join(await member(location, 'c'));
    await tickAll([a, b, c]);
    expect(await expectEachWalletHeldOnce([a, b, c])).toEqual([10, 10, 10]);
    expect(a.shares.at(-1)).toBe(3);
    expect((await a.ledger.daemons.live(60_000)).map((daemon) => [daemon.holder.split(':')[2], daemon.wallets])).toEqual([
      ['a', 15],
      ['b', 15],
      ['c', 0],
    ]);
    // A clean stop: b's wallets are free at once, and the two left take them at their next renewal.
    const [bLedger] = [b.ledger];
    await b.group.leave();
    members.splice(members.indexOf(b), 1);
    await bLedger.close();
    await tickAll([a, c]);
    expect(await expectEachWalletHeldOnce([a, c])).toEqual([15, 15]);
    expect(c.shares.at(-1)).toBe(2);
  });

  it('hands a busy wallet back only once its runs end, and starts no new work for it meanwhile', async () => {
    const location = freshLedger('postgres');
    const busy = new Set<string>(wallets);
    const a = await join(await member(location, 'a'), (wallet) => busy.has(wallet));
    const b = await join(await member(location, 'b'));
    await tickAll([a, b]);
    // a is above its share: 15 wallets are leaving (no new work: holds() says no) but still held while busy.
    expect([a.leases.held, a.leases.staying().length, b.leases.held]).toEqual([30, 15, 0]);
    const leaving = a.leases.wallets().filter((wallet) => !a.leases.staying().includes(wallet));
    expect(leaving.some((wallet) => a.leases.holds(wallet))).toBe(false);
    // Their runs in progress may still sign under the lease.
    for (const wallet of leaving) expect(a.leases.fenceFor(wallet).holder).toBe(a.leases.holder);
    busy.clear();
    await tickAll([a, b]);
    expect(await expectEachWalletHeldOnce([a, b])).toEqual([15, 15]);
    expect(a.given.sort()).toEqual([...leaving].sort());
  });

  it('takes the wallets of a daemon that stopped renewing once its leases run out, within one renewal', async () => {
    const location = freshLedger('postgres');
    const ttlMs = 1_500;
    const a = await join(await member(location, 'a', { ttlMs }));
    // The other daemon runs on another machine: nothing here can tell that its process died.
    const far = await join(await member(location, 'far', { ttlMs, host: 'other-host' }));
    await tickAll([a, far]);
    expect(await expectEachWalletHeldOnce([a, far])).toEqual([15, 15]);
    const lost = far.leases.wallets();
    const farEpochs = new Map<string, number>(lost.map((wallet) => [wallet.toLowerCase(), far.leases.fenceFor(wallet).epoch]));
    // far freezes: no more renewals. Until its leases run out, a cannot take its wallets.
    const frozeAt = Date.now();
    await a.group.tick();
    expect(a.leases.held).toBe(15);
    while (a.leases.held < 30) {
      expect(Date.now() - frozeAt, 'a lease and a renewal').toBeLessThan(ttlMs + 5_000);
      await a.group.tick();
    }
    const lostNames: string[] = lost;
    expect([...new Set(a.gained.filter((wallet) => lostNames.includes(wallet)))].sort()).toEqual([...lost].sort());
    expect(await expectEachWalletHeldOnce([a])).toEqual([30]);
    // Each wallet a took is a new holder's: its epoch rose, so far's old epoch can record nothing more.
    const taken = (await a.ledger.leases.all()).filter((lease) => farEpochs.has(lease.wallet));
    expect(taken.map((lease) => [lease.holder, lease.epoch - (farEpochs.get(lease.wallet) as number)])).toEqual(lost.map(() => [a.leases.holder, 1]));
  });

  it('lets two daemons started in the same instant share the wallets without a double claim', async () => {
    for (let round = 0; round < 5; round++) {
      const location = freshLedger('postgres');
      const [a, b] = await Promise.all([member(location, `a${round}`), member(location, `b${round}`)]);
      await Promise.all([join(a), join(b)]);
      expect((await expectEachWalletHeldOnce([a, b])).reduce((sum, n) => sum + n, 0)).toBe(30);
      await Promise.all([a.group.tick(), b.group.tick()]);
      await Promise.all([a.group.tick(), b.group.tick()]);
      expect(await expectEachWalletHeldOnce([a, b])).toEqual([15, 15]);
    }
  });

  it('refuses a daemon whose strategies differ, naming both versions, and lets it hold nothing', async () => {
    const location = freshLedger('postgres');
    const a = await join(await member(location, 'a', { digest: 'aaaaaaaaaaaa' }));
    const other = await member(location, 'other', { digest: 'bbbbbbbbbbbb' });
    const refused = await other.group.join().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toBe(
      `the strategies in /etc/routekeeper/other.yaml (version bbbbbbbbbbbb) differ from those the daemons on this ledger run (version aaaaaaaaaaaa, read from /etc/routekeeper/a.yaml by ${a.leases.holder}): every daemon sharing a ledger runs the same strategy file`,
    );
    expect(other.leases.held).toBe(0);
    expect((await a.ledger.daemons.all()).map((daemon) => daemon.holder)).toEqual([a.leases.holder]);
    expect(await expectEachWalletHeldOnce([a])).toEqual([30]);
  });
});

describe('a look before the next renewal', () => {
  it('comes just after the soonest lease of another daemon runs out, when that is before the next renewal', () => {
    const lease = (holder: string, remainingMs: number, live = true) => ({ holder, remainingMs, live });
    // Live holders renew every 5 s of a 15 s lease: their leases never come within 5 s of their end.
    expect(wakeBeforeRenewal([lease('b', 14_000), lease('c', 10_100)], 'a', 5_000)).toBeUndefined();
    // c missed its renewals: its lease runs out in 3.2 s, before a's next renewal; a looks again then.
    expect(wakeBeforeRenewal([lease('b', 14_000), lease('c', 3_200), lease('c', 4_000)], 'a', 5_000)).toBe(3_250);
    // Its own leases, and those already out (taken at this very renewal), are not waited for.
    expect(wakeBeforeRenewal([lease('a', 1_000), lease('c', 0, false)], 'a', 5_000)).toBeUndefined();
    expect(wakeBeforeRenewal([], 'a', 5_000)).toBeUndefined();
  });
});

describe('the routing rate limit of a group', () => {
  it('is one budget: each of three daemons takes a third of the rate and of the requests at once', () => {
    const limiter = new AdaptiveLimiter({ requestsPerSecond: 9, maxConcurrent: 6 });
    expect(limiter.rate).toBe(9);
    limiter.shareAmong(3);
    expect(limiter.rate).toBe(3);
    // A 429 halves this daemon's part; when a daemon leaves, the part grows in proportion.
    limiter.rateLimited(0);
    expect(limiter.rate).toBe(1.5);
    limiter.shareAmong(2);
    expect(limiter.rate).toBe(2.25);
  });
});
