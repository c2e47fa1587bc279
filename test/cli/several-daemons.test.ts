/**
 * Several `routekeeper run` processes on one PostgreSQL ledger and one chain, each wallet DCA-ing every second:
 * the daemons share the wallets (each held by one at a time), a daemon killed with SIGKILL has its wallets trading
 * on the others within 20 s, a daemon frozen past its lease records and sends nothing under its old epoch, and in
 * the end every swap on chain is exactly one confirmed trade, no slot traded twice, and the attempts of each wallet
 * are signed under one lease after another (no two epochs interleave).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger, type LedgerLocation } from '../../src/ledger/ledger.ts';
import { type DaemonProcess, daemonHome, expectLedgerEqualsChain, settleWithDaemon, spawnDaemon } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { expectEpochsInOrder, fundedWallets, groupYaml, holderOf, holders, until } from '../helpers/group.ts';
import { runCli } from '../helpers/cli.ts';
import { freshDatabase } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });
const running: DaemonProcess[] = [];

afterEach(async () => {
  for (const daemon of running.splice(0)) {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  }
});

describe('several daemons on one PostgreSQL', () => {
  it('share six wallets two each; one killed (SIGKILL): its wallets trade on the others within 20 s, nothing twice', { timeout: 240_000 }, async () => {
    const database = await freshDatabase();
    const location: LedgerLocation = { kind: 'postgres', url: database, schema: 'routekeeper' };
    const wallets = await fundedWallets(fork, 6);
    const home = daemonHome(fork, 'group');
    const config = home.config(groupYaml(wallets));
    const env = {
      DATABASE_URL: database,
      ROUTEKEEPER_LEASE_SECONDS: '6',
      ...Object.fromEntries(wallets.map((wallet) => [`KEY_${wallet.name.toUpperCase()}`, wallet.key])),
    };
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;
    const daemons = [spawnDaemon(home, config, env), spawnDaemon(home, config, env), spawnDaemon(home, config, env)];
    running.push(...daemons);

    // Shared out two each (a third joining takes from the others within a renewal or two).
    const shared = await until(location, 'two wallets per daemon', async (ledger) => {
      const held = await holders(ledger);
      const counts = daemons.map((daemon) => [...held.values()].filter((holder) => holder === holderOf(held, daemon)).length);
      return held.size === 6 && counts.every((count) => count === 2) ? held : undefined;
    });
    // `daemons` lists the three, live, with the wallets each holds (and its pid), and no free wallet.
    const listed = await runCli(['daemons', '--json', '--database', database], { DATABASE_URL: '' });
    expect(listed.code, `daemons --json said: ${listed.stdout}${listed.stderr}`).toBe(0);
    const { daemons: rows, freeWallets } = JSON.parse(listed.stdout) as {
      daemons: { pid: number; live: boolean; held: { wallet: string }[] }[];
      freeWallets: string[];
    };
    expect(
      rows
        .filter((row) => row.live)
        .map((row) => [row.pid, row.held.length])
        .sort(),
    ).toEqual(daemons.map((daemon) => [daemon.child.pid, 2]).sort());
    expect(freeWallets).toEqual([]);
    const text = await runCli(['daemons', '--database', database], { DATABASE_URL: '' });
    expect(text.stdout).toContain('3 live daemon(s), 6 wallet(s) leased');
    expect(text.stdout).not.toContain(new URL(database).password);
    // Every wallet trades. Sized to the work: three daemons making six wallets' first trades (approvals included) on one
    // PostgreSQL, beside a second run of the suite; 60 s was once not enough there.
    await until(
      location,
      'a confirmed trade of every wallet',
      async (ledger) => {
        const confirmed = (await ledger.trades.history({ limit: 100_000 })).filter((trade) => trade.status === 'confirmed');
        return wallets.every((wallet) => confirmed.some((trade) => trade.wallet.toLowerCase() === wallet.address.toLowerCase())) || undefined;
      },
      120_000,
      // Which wallets have not traded yet, what their trades say and who holds them: a stuck wallet shows why.
      async (ledger) => {
        const [trades, leases] = [await ledger.trades.history({ limit: 100_000 }), await ledger.leases.all()];
        const stuck = wallets.filter(
          (wallet) => !trades.some((trade) => trade.status === 'confirmed' && trade.wallet.toLowerCase() === wallet.address.toLowerCase()),
        );
        return stuck
          .map((wallet) => {
            const mine = trades.filter((trade) => trade.wallet.toLowerCase() === wallet.address.toLowerCase()).slice(0, 3);
            const lease = leases.find((entry) => entry.wallet === wallet.address.toLowerCase());
            return `${wallet.name} (held by ${lease?.holder ?? 'nobody'}${lease?.live ? '' : ', lapsed'}): ${mine.map((trade) => `${trade.slot} ${trade.status}`).join(', ') || 'no trade'}`;
          })
          .concat(
            // What each holder of a stuck wallet last logged: a trade left signed shows where it waits.
            [...new Set(stuck.map((wallet) => leases.find((entry) => entry.wallet === wallet.address.toLowerCase())?.holder))].flatMap((holder) => {
              const daemon = daemons.find((candidate) => holder?.split(':')[1] === String(candidate.child.pid));
              const recent = daemon?.lines.slice(-12).map((line) => [line.msg, line.error, line.reason].filter(Boolean).join(': '));
              return recent ? [`${holder} last logged: ${recent.join(' | ')}`] : [];
            }),
          )
          .join('; ');
      },
    );

    const [victim, ...survivors] = daemons as [DaemonProcess, DaemonProcess, DaemonProcess];
    const victimHolder = holderOf(shared, victim) as string;
    const orphaned = [...shared].filter(([, holder]) => holder === victimHolder).map(([wallet]) => wallet);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    // Each of its wallets: a trade confirmed under another daemon's lease, signed after the kill.
    const failoverMs = await until(location, "the killed daemon's wallets trading again", async (ledger) => {
      const trades = await ledger.trades.history({ limit: 100_000 });
      const times = [];
      for (const wallet of orphaned) {
        const mine = trades.filter((trade) => trade.wallet.toLowerCase() === wallet && trade.status === 'confirmed');
        const attempts = (await Promise.all(mine.map((trade) => ledger.attempts.ofTrade(trade.id)))).flat();
        const after = attempts.filter(
          (attempt) => attempt.status === 'mined' && attempt.createdAt > killedAt && attempt.lease && attempt.lease.holder !== victimHolder,
        );
        if (after.length === 0) return undefined;
        times.push(Math.min(...after.map((attempt) => attempt.updatedAt)) - killedAt);
      }
      return Math.max(...times);
    });
    expect(failoverMs).toBeLessThan(20_000);

    for (const daemon of survivors) daemon.child.kill('SIGTERM');
    for (const daemon of survivors) expect(await daemon.exited).toBe(0);
    running.splice(0);
    await settleWithDaemon(home, groupYaml(wallets, '2099-01-01T00:00:00Z'), env, 60_000, location);

    let swaps = 0;
    for (const wallet of wallets) swaps += await expectLedgerEqualsChain(fork, location, wallet.address, fromBlock);
    await expectEpochsInOrder(
      location,
      wallets.map((wallet) => wallet.address),
    );
    const ledger = await Ledger.openReadOnly(location);
    try {
      const trades = await ledger.trades.history({ limit: 100_000 });
      expect(new Set(trades.map((trade) => `${trade.strategyId}:${trade.slot}`)).size).toBe(trades.length);
      // Clean stops left the group at once: no daemon is listed as live but the killed one, whose last renewal may be
      // younger than a lease when the rest went fast (it never left; its row ages out).
      expect((await ledger.daemons.live(6_000)).filter((daemon) => daemon.holder !== victimHolder)).toEqual([]);
      console.log(JSON.stringify({ daemons: 3, wallets: wallets.length, swaps, failoverMs }));
    } finally {
      await ledger.close();
    }
  });

  it('a daemon frozen past its lease (SIGSTOP) and then continued records and sends nothing under its old epoch', { timeout: 180_000 }, async () => {
    const database = await freshDatabase();
    const location: LedgerLocation = { kind: 'postgres', url: database, schema: 'routekeeper' };
    const wallets = await fundedWallets(fork, 2);
    const home = daemonHome(fork, 'frozen');
    const config = home.config(groupYaml(wallets));
    const env = {
      DATABASE_URL: database,
      ROUTEKEEPER_LEASE_SECONDS: '3',
      ...Object.fromEntries(wallets.map((wallet) => [`KEY_${wallet.name.toUpperCase()}`, wallet.key])),
    };
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;
    const frozen = spawnDaemon(home, config, env);
    running.push(frozen);
    const alone = await until(location, 'the first daemon holding both wallets and trading', async (ledger) => {
      const held = await holders(ledger);
      const traded = (await ledger.trades.history({ limit: 100 })).some((trade) => trade.status === 'confirmed');
      return held.size === 2 && traded ? held : undefined;
    });
    const frozenHolder = holderOf(alone, frozen) as string;
    const other = spawnDaemon(home, config, env);
    running.push(other);
    await until(location, 'one wallet each', async (ledger) => {
      const held = await holders(ledger);
      return [...held.values()].filter((holder) => holder === frozenHolder).length === 1 && held.size === 2 ? true : undefined;
    });
    const frozenWallet = [...(await until(location, 'the frozen wallet', async (ledger) => holders(ledger)))].find(
      ([, holder]) => holder === frozenHolder,
    )?.[0] as string;

    const oldEpoch = (await until(location, 'the frozen lease', async (ledger) => (await ledger.leases.all()).find((lease) => lease.wallet === frozenWallet)))
      ?.epoch;
    frozen.child.kill('SIGSTOP');
    const frozenAt = Date.now();
    // The other daemon takes the frozen one's wallet once its lease ran out, and trades it.
    await until(location, 'the frozen wallet taken by the other daemon', async (ledger) => {
      const lease = (await ledger.leases.all()).find((candidate) => candidate.wallet === frozenWallet);
      return lease && lease.holder !== frozenHolder ? true : undefined;
    });
    const takenAt = await until(location, 'the frozen wallet traded by the other daemon', async (ledger) => {
      const lease = (await ledger.leases.all()).find((candidate) => candidate.wallet === frozenWallet);
      if (!lease || lease.holder === frozenHolder) return undefined;
      const trades = (await ledger.trades.history({ limit: 100_000 })).filter(
        (trade) => trade.wallet.toLowerCase() === frozenWallet && trade.status === 'confirmed',
      );
      const attempts = (await Promise.all(trades.map((trade) => ledger.attempts.ofTrade(trade.id)))).flat();
      return attempts.some((attempt) => attempt.lease?.holder === lease.holder) ? Date.now() : undefined;
    });
    frozen.child.kill('SIGCONT');
    // Continued: it finds its lease gone before it signs or sends anything for that wallet.
    await frozen.waitFor(
      () =>
        frozen.lines.some(
          (line) => String(line.msg).toLowerCase().includes(`wallet ${frozenWallet}`) && String(line.msg).includes('nothing more is signed for it'),
        ),
      'the frozen daemon to notice',
      30_000,
    );
    await until(location, 'a few more trades after the frozen daemon went on', async (ledger) => {
      const trades = (await ledger.trades.history({ limit: 100_000 })).filter((trade) => trade.status === 'confirmed' && trade.updatedAt > takenAt + 3_000);
      return trades.length >= 2 || undefined;
    });
    frozen.child.kill('SIGTERM');
    other.child.kill('SIGTERM');
    expect(await frozen.exited).toBe(0);
    expect(await other.exited).toBe(0);
    running.splice(0);
    await settleWithDaemon(home, groupYaml(wallets, '2099-01-01T00:00:00Z'), env, 60_000, location);

    const ledger = await Ledger.openReadOnly(location);
    try {
      const trades = (await ledger.trades.history({ limit: 100_000 })).filter((trade) => trade.wallet.toLowerCase() === frozenWallet);
      const attempts = (await Promise.all(trades.map((trade) => ledger.attempts.ofTrade(trade.id)))).flat();
      // Nothing the frozen daemon recorded for that wallet under its old epoch is later than its freeze.
      const underOldEpoch = attempts.filter((attempt) => attempt.lease?.holder === frozenHolder && attempt.lease.epoch === oldEpoch);
      expect(underOldEpoch.length).toBeGreaterThan(0);
      expect(underOldEpoch.filter((attempt) => attempt.createdAt > frozenAt)).toEqual([]);
      expect(attempts.some((attempt) => attempt.lease && attempt.lease.holder !== frozenHolder)).toBe(true);
    } finally {
      await ledger.close();
    }
    for (const wallet of wallets) await expectLedgerEqualsChain(fork, location, wallet.address, fromBlock);
    await expectEpochsInOrder(
      location,
      wallets.map((wallet) => wallet.address),
    );
  });
});
