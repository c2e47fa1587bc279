/**
 * A finished trade rolled back in the database reaches the wallet without any restart: through a run of `once`, and
 * through a wallet lease handed away for a moment, which makes a running daemon take the wallet back and resume its
 * open trades. Either way the rollback is refused by name and nothing is signed: the wallet's nonce and balances stay
 * as they were (the rewrites themselves, one by one and on both ledgers, are test/trade/rewritten-history.test.ts).
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, dcaYaml, spawnDaemon, takeProfitYaml } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { walletState as walletStateOf } from '../helpers/engine.ts';
import { runSql } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });
const me = () => fork.addressBook.accounts[0]?.address as Address;
const env = () => ({ ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string });

const walletState = () => walletStateOf(fork, me());

async function tradesOf(ledgerFile: string) {
  const ledger = await Ledger.openReadOnly(ledgerFile);
  try {
    return await ledger.trades.all();
  } finally {
    await ledger.close();
  }
}

/** The trade set back to `claimed` and its transactions deleted, as a database writer would erase that it happened. */
async function rollBack(ledgerFile: string, id: string) {
  const location = { kind: 'sqlite' as const, file: ledgerFile };
  await runSql(
    location,
    "UPDATE intents SET status = 'claimed', call_data = NULL, target = NULL, call_tag = NULL, tx_hash = NULL, amount_out = NULL WHERE id = ?",
    id,
  );
  await runSql(location, 'DELETE FROM attempts WHERE intent_id = ?', id);
}

describe('a finished trade rolled back, with no restart', () => {
  it('reached by a run of once: refused by name, the wallet paused, nothing signed', async () => {
    const home = daemonHome(fork, 'rollback-once');
    const config = home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '3', every: '1h' }]));
    const once = () =>
      runCli(['once', 'dca', '--config', config, '--address-book', home.book], {
        RPC_URL: '',
        ROUTING_SERVICE_URL: '',
        ROUTEKEEPER_CONFIG: '',
        ROUTEKEEPER_DATA_DIR: home.dataDir,
        ...env(),
      });
    for (let run = 0; run < 2; run++) {
      const traded = await once();
      expect(traded.code, traded.stderr).toBe(0);
    }
    const [first, second] = await tradesOf(home.ledgerFile);
    expect([first?.status, second?.status]).toEqual(['confirmed', 'confirmed']);
    await rollBack(home.ledgerFile, first?.id as string);
    const before = await walletState();

    const third = await once();
    expect(third.code, third.stderr).toBe(1);
    expect(third.stderr).toMatch(
      new RegExp(`the ledger holds no transaction of ${me()} at nonce \\d+, between nonces \\d+ and \\d+ it signed: its row was deleted`),
    );
    expect(third.stderr).not.toMatch(/^\s+at /m);
    expect(await walletState()).toEqual(before);
    const after = await tradesOf(home.ledgerFile);
    expect(after.find((trade) => trade.id === first?.id)?.status).toBe('anomaly');
    expect(after.filter((trade) => trade.status === 'confirmed')).toHaveLength(1);
  });

  it('reached by a lease handed away for a moment: the daemon takes the wallet back, refuses the rollback, signs nothing', async () => {
    const home = daemonHome(fork, 'rollback-lease');
    const strategies = ['a', 'b'].map((id) => ({ id: `dca-${id}`, sell: 'cUSD', buy: 'CELO', amount: '2', every: '1h' }));
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    const daemon = spawnDaemon(home, home.config(dcaYaml(strategies)), { ...env(), ROUTEKEEPER_LEASE_SECONDS: '3' });
    try {
      const confirmed = async () => (await tradesOf(home.ledgerFile).catch(() => [])).filter((trade) => trade.status === 'confirmed');
      await daemon.waitFor(async () => (await confirmed()).length === 2, 'both DCAs traded', 60_000, 200);
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('4', 18));
      const [older] = (await confirmed()).sort((a, b) => Number(a.settlement?.blockNumber ?? 0n) - Number(b.settlement?.blockNumber ?? 0n));
      await rollBack(home.ledgerFile, older?.id as string);
      const before = await walletState();
      // Another holder for two seconds: the daemon loses the wallet, then takes it back and resumes its open trades.
      await runSql(
        { kind: 'sqlite', file: home.ledgerFile },
        "UPDATE wallet_leases SET holder = 'elsewhere:1:1', epoch = epoch + 1, expires_at = ?",
        Date.now() + 2_000,
      );
      await daemon.waitFor(
        async () => (await tradesOf(home.ledgerFile)).some((trade) => trade.id === older?.id && trade.status === 'anomaly'),
        'the rollback refused',
        60_000,
        200,
      );
      expect(daemon.lines.some((line) => typeof line.msg === 'string' && line.msg.startsWith(`wallet ${me()} taken`))).toBe(true);
      expect(await walletState()).toEqual(before);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('reached by a running daemon: a filled one-shot order moved to another strategy is never sold again, its row named', async () => {
    const home = daemonHome(fork, 'moved-order');
    const config = home.config(takeProfitYaml('1s'));
    const daemon = spawnDaemon(home, config, env());
    try {
      const trades = () => tradesOf(home.ledgerFile).catch(() => []);
      await daemon.waitFor(async () => (await trades()).some((trade) => trade.status === 'confirmed'), 'the order filled', 60_000, 200);
      // Filled: the next looks say so. Then a writer moves the row out of the strategy's way, without a restart.
      await daemon.waitFor(() => daemon.lines.some((line) => String(line.msg).includes('already filled once')), 'a look after the fill', 30_000);
      const [filled] = await trades();
      await runSql({ kind: 'sqlite', file: home.ledgerFile }, "UPDATE intents SET strategy_id = 'x' WHERE strategy_id = 'take'");
      const before = await walletState();
      await daemon.waitFor(
        () => daemon.lines.some((line) => String(line.msg).includes(`anomaly: trade ${filled?.id}, a row of wallet ${me()}, carries no tag`)),
        'the moved row named',
        30_000,
      );
      const ledger = await Ledger.openReadOnly(home.ledgerFile);
      try {
        expect((await ledger.pauses.all()).map((pause) => pause.scope).sort()).toEqual(['strategy', 'wallet']);
        expect((await ledger.trades.all()).map((trade) => trade.id)).toEqual([filled?.id]);
      } finally {
        await ledger.close();
      }
      expect(await walletState()).toEqual(before);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });
});
