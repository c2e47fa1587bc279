/**
 * The ledger in PostgreSQL (`--database`, DATABASE_URL): `once` trades into it, and `status`, `history`, `pause` and
 * `resume` read and change it, all by URL; the ledger equals the chain, and the URL's password is never printed.
 */
import { join } from 'node:path';
import { type Address, parseAbiItem } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, dcaYaml } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { freshDatabase } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });
const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);

describe('the ledger in PostgreSQL', () => {
  // Seven CLI processes one after another, each its own start-up: sized to that (one passed 60 s beside a second suite).
  it('takes the trades of once, and status, history, pause and resume read and change it by URL; nothing prints the password', {
    timeout: 180_000,
  }, async () => {
    const url = await freshDatabase();
    const password = new URL(url).password;
    const home = daemonHome(fork, 'postgres');
    const me = fork.addressBook.accounts[0]?.address as Address;
    const config = home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '2', every: '1h' }]));
    const env = {
      RPC_URL: '',
      ROUTING_SERVICE_URL: '',
      ROUTEKEEPER_CONFIG: '',
      ROUTEKEEPER_DATA_DIR: home.dataDir,
      ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
      DATABASE_URL: '',
    };
    const cli = (...args: string[]) => runCli(args, env);
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;

    const once = await cli('once', 'dca', '--config', config, '--address-book', home.book, '--database', url, '--json');
    expect(once.code, once.stderr).toBe(0);
    const [swap] = await fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: me }, fromBlock });
    expect(swap).toBeDefined();

    // The ledger is in the database's `routekeeper` schema, not in the data directory.
    const ledger = await Ledger.openReadOnly({ kind: 'postgres', url, schema: 'routekeeper' });
    try {
      const [trade] = await ledger.trades.history();
      expect(trade).toMatchObject({
        strategyId: 'dca',
        status: 'confirmed',
        settlement: { txHash: swap?.transactionHash, amountOut: swap?.args.outputAmount },
      });
      expect(await ledger.chain()).toMatchObject({ chainId: fork.addressBook.chainId });
      // It traded under the wallet's lease, and handed it back when it stopped.
      expect((await ledger.leases.all()).map((lease) => [lease.wallet, lease.epoch, lease.expiresAt])).toEqual([[me.toLowerCase(), 1, 0]]);
    } finally {
      await ledger.close();
    }

    const status = await cli('status', '--json', '--database', url);
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as { strategies: { id: string; trades: { confirmed: number }; dca: { received: { raw: string } } }[] };
    expect(report.strategies.map((s) => [s.id, s.trades.confirmed, s.dca.received.raw])).toEqual([['dca', 1, String(swap?.args.outputAmount)]]);
    // The wallet's lease: held by the process that ran once (host:pid:start), handed back when it stopped.
    const { wallets } = JSON.parse(status.stdout) as { wallets: { lease: { holder: string; epoch: number; held: boolean } | null }[] };
    expect(wallets[0]?.lease).toMatchObject({ holder: expect.stringMatching(/^[^:]+:\d+:\d+$/), epoch: 1, held: false });

    const history = await cli('history', '--json', '--database', url);
    expect(history.code, history.stderr).toBe(0);
    expect(
      (JSON.parse(history.stdout) as { outcome: string; trades: { settlement: { txHash: string } }[] }[]).map((run) => [
        run.outcome,
        run.trades[0]?.settlement.txHash,
      ]),
    ).toEqual([['traded', swap?.transactionHash]]);

    // DATABASE_URL does what --database does.
    const paused = await runCli(['pause', 'dca', '--reason', 'looking'], { ...env, DATABASE_URL: url });
    expect(paused.code, paused.stderr).toBe(0);
    const again = await cli('once', 'dca', '--config', config, '--address-book', home.book, '--database', url, '--json');
    // A paused strategy does not run: once says so, exit 1.
    expect(again.code, again.stderr).toBe(1);
    expect(JSON.parse(again.stdout) as { note: string; trades: unknown[] }).toMatchObject({
      note: 'paused: the strategy dca is paused (looking)',
      trades: [],
      heldBy: 'pause',
    });
    expect(again.stderr.trim().split('\n').at(-1)).toBe(
      'routekeeper: once: dca did not run: paused: the strategy dca is paused (looking); lift it with `routekeeper resume` once a person has looked',
    );
    const resumed = await cli('resume', 'dca', '--database', url);
    expect([resumed.code, resumed.stdout]).toEqual([0, 'lifted the pause of the strategy dca\n']);

    // A SQLite ledger was never made, and the password appears nowhere.
    expect(await cli('history', '--ledger', join(home.dataDir, 'ledger.sqlite'))).toMatchObject({ code: 1 });
    for (const output of [once, status, history, paused, again, resumed]) expect(`${output.stdout}${output.stderr}`).not.toContain(password);
  });

  it('says in one line that a database holds no ledger yet, without its password', async () => {
    const url = await freshDatabase();
    const result = await runCli(['status', '--database', url], { DATABASE_URL: '' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^routekeeper: no ledger in the database postgres:\/\/127\.0\.0\.1:\d+\/\*\*\*: no daemon has written one there yet$/);
  });

  it('refuses a --database that is not a PostgreSQL URL, with exit 2 and one line', async () => {
    const result = await runCli(['status', '--database', 'mysql://nope'], { DATABASE_URL: '' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('routekeeper: --database must be a PostgreSQL URL, such as postgres://user:password@host:5432/routekeeper');
  });
});
