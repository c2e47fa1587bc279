/**
 * PostgreSQL stopped while two daemons trade on it, then started again: meanwhile /healthz is 503 naming the
 * database and nothing is signed (no lease can be proven); afterwards every wallet trades again, and in the end
 * every swap on chain is exactly one confirmed trade, no slot traded twice, nothing left open. The suite stops it for
 * 15 s, more than twice the daemons' 6 s leases; OUTAGE_SECONDS=30 (or 60) runs the longer outage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger, type LedgerLocation, type LedgerView } from '../../src/ledger/ledger.ts';
import { type DaemonProcess, daemonHome, expectLedgerEqualsChain, settleWithDaemon, spawnDaemon } from '../helpers/daemon-process.ts';
import { countBy } from '../../support/chaos.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { expectEpochsInOrder, fundedWallets, groupYaml, until } from '../helpers/group.ts';
import { type PostgresServer, startPostgres } from '../../support/postgres-server.ts';

const fork = useDevnetFork({ routing: true });
const outageMs = Number(process.env.OUTAGE_SECONDS ?? 15) * 1000;
let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.remove();
});

async function health(daemon: DaemonProcess): Promise<{ status: number; reasons: string[] }> {
  // A daemon must live through the outage: one that ended says why.
  if (daemon.child.exitCode !== null || daemon.child.signalCode !== null)
    throw new Error(`a daemon ended (${daemon.child.exitCode ?? daemon.child.signalCode}): ${daemon.stderr()}`);
  const response = await fetch(`http://127.0.0.1:${await daemon.port()}/healthz`);
  const body = (await response.json()) as { reasons?: string[] };
  return { status: response.status, reasons: body.reasons ?? [] };
}

async function confirmedSince(ledger: LedgerView, since: number): Promise<Set<string>> {
  const trades = await ledger.trades.history({ limit: 100_000 });
  return new Set(trades.filter((trade) => trade.status === 'confirmed' && trade.updatedAt > since).map((trade) => trade.wallet.toLowerCase()));
}

describe('the database failing', () => {
  it(`PostgreSQL stopped for ${outageMs / 1000} s mid-run: health 503 naming the database, nothing signed meanwhile; then trading goes on, nothing twice, nothing lost`, {
    timeout: 240_000,
  }, async () => {
    const location: LedgerLocation = { kind: 'postgres', url: server.url, schema: 'routekeeper' };
    const wallets = await fundedWallets(fork, 4);
    const home = daemonHome(fork, 'outage');
    const config = home.config(groupYaml(wallets));
    const env = {
      DATABASE_URL: server.url,
      ROUTEKEEPER_LEASE_SECONDS: '6',
      ...Object.fromEntries(wallets.map((wallet) => [`KEY_${wallet.name.toUpperCase()}`, wallet.key])),
    };
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;
    const daemons = [spawnDaemon(home, config, env), spawnDaemon(home, config, env)];
    try {
      await until(location, 'a confirmed trade of every wallet', async (ledger) =>
        (await confirmedSince(ledger, 0)).size === wallets.length ? true : undefined,
      );
      // Healthy before the outage: on a busy machine a probe of the node or the service may time out now and then
      // (honestly reported as 503 until the next one answers), so the test waits for the answer, not for an instant.
      for (const daemon of daemons) await daemon.waitFor(async () => (await health(daemon)).status === 200, 'a healthy daemon before the outage', 30_000);

      await server.stop();
      const stoppedAt = Date.now();
      // Both daemons say the database is away, and why, within a renewal or a probe.
      for (const daemon of daemons) {
        await daemon.waitFor(
          async () => {
            const { status, reasons } = await health(daemon);
            return status === 503 && reasons.some((reason) => reason.startsWith('database:'));
          },
          '/healthz to name the database',
          20_000,
        );
      }
      const [first] = daemons as [DaemonProcess];
      expect((await health(first)).reasons.find((reason) => reason.startsWith('database:'))).toMatch(/^database: last reached \d+ s ago; last error: /);
      // On purpose: the outage lasts `outageMs`, whatever the daemons do meanwhile.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + outageMs - Date.now())));
      await server.start();
      const restartedAt = Date.now();

      // Both live through it, and every wallet trades again.
      for (const daemon of daemons) expect(daemon.child.exitCode).toBeNull();
      await until(
        location,
        'every wallet trading again',
        async (ledger) => ((await confirmedSince(ledger, restartedAt)).size === wallets.length ? true : undefined),
        90_000,
      );
      for (const daemon of daemons) {
        await daemon.waitFor(async () => (await health(daemon)).status === 200, '/healthz to be 200 again', 30_000);
      }

      for (const daemon of daemons) daemon.child.kill('SIGTERM');
      for (const daemon of daemons) expect(await daemon.exited).toBe(0);
      await settleWithDaemon(home, groupYaml(wallets, '2099-01-01T00:00:00Z'), env, 60_000, location);

      const ledger = await Ledger.openReadOnly(location);
      try {
        const trades = await ledger.trades.history({ limit: 100_000 });
        expect(new Set(trades.map((trade) => `${trade.strategyId}:${trade.slot}`)).size).toBe(trades.length);
        // Nothing was recorded while the database was away (nothing can be), and so nothing was signed then.
        const attempts = (await Promise.all(trades.map((trade) => ledger.attempts.ofTrade(trade.id)))).flat();
        expect(attempts.filter((attempt) => attempt.createdAt > stoppedAt && attempt.createdAt < restartedAt)).toEqual([]);
        console.log(JSON.stringify({ outageSeconds: outageMs / 1000, trades: trades.length, byStatus: countBy(trades.map((trade) => trade.status)) }));
      } finally {
        await ledger.close();
      }
      for (const wallet of wallets) await expectLedgerEqualsChain(fork, location, wallet.address, fromBlock);
      await expectEpochsInOrder(
        location,
        wallets.map((wallet) => wallet.address),
      );
    } finally {
      for (const daemon of daemons) daemon.child.kill('SIGKILL');
    }
  });
});
