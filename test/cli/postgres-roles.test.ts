/**
 * PostgreSQL as a shared ledger is set up by its owner and used by roles that can only read and write rows:
 * `routekeeper migrate` (the owner) creates the schema and grants a daemons' role its rows; a daemon with that role
 * trades; the role can change no table; a schema behind this version is refused by name, not half-migrated. A
 * database beyond this machine without TLS is refused unless said on purpose.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, dcaYaml } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { freshDatabase } from '../helpers/ledgers.ts';

const fork = useDevnetFork({ routing: true });

async function asAdmin(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A login role of its own, and the database URL that connects as it. */
async function loginRole(adminUrl: string): Promise<{ role: string; url: string }> {
  const role = `rk_daemon_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await asAdmin(adminUrl, [`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`]);
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return { role, url: url.toString() };
}

describe('PostgreSQL roles', () => {
  // Sized to its work: five routekeeper processes one after another (each a Node start, 13 s beside a second suite).
  it("migrate as the owner, grant a daemons' role its rows; a daemon with that role trades, and can change no table", { timeout: 180_000 }, async () => {
    const adminUrl = await freshDatabase();
    const { role, url } = await loginRole(adminUrl);
    const migrated = await runCli(['migrate', '--database', adminUrl, '--grant', role], { DATABASE_URL: '' });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/^migrate: ledger schema routekeeper in postgres:\/\/127\.0\.0\.1:\d+\/\*\*\* at version \d+ \(was 0\)$/m);
    expect(migrated.stdout).toContain(`migrate: role ${role} may read and write the rows of routekeeper (its migrations only read), and change nothing else`);
    const again = await runCli(['migrate', '--database', adminUrl], { DATABASE_URL: '' });
    expect(again.stdout).toMatch(/at version \d+ \(it was current\)$/m);

    // The daemons' role reads and writes rows only.
    await expect(asAdmin(url, ['CREATE TABLE routekeeper.evil (x INTEGER)'])).rejects.toMatchObject({ code: '42501' });
    await expect(asAdmin(url, ['ALTER TABLE routekeeper.intents DROP CONSTRAINT intents_status_known'])).rejects.toMatchObject({ code: '42501' });
    // Nor the record of which migrations ran (a later migrate would skip one, or run one again); it may read it.
    await expect(asAdmin(url, ['DELETE FROM routekeeper.ledger_migrations'])).rejects.toMatchObject({ code: '42501' });
    await expect(asAdmin(url, ['INSERT INTO routekeeper.ledger_migrations (version, applied_at) VALUES (999, 0)'])).rejects.toMatchObject({ code: '42501' });
    await asAdmin(url, ['SELECT MAX(version) FROM routekeeper.ledger_migrations']);

    const home = daemonHome(fork, 'dml-role');
    const me = fork.addressBook.accounts[0]?.address as Address;
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me);
    const once = await runCli(
      ['once', 'dca', '--config', home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '2', every: '1h' }])), '--address-book', home.book],
      {
        RPC_URL: '',
        ROUTING_SERVICE_URL: '',
        ROUTEKEEPER_CONFIG: '',
        ROUTEKEEPER_DATA_DIR: home.dataDir,
        DATABASE_URL: url,
        ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
      },
    );
    expect(once.code, once.stderr).toBe(0);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(usdBefore - parseUnits('2', 18));

    // The ledger's id and where the wallet's record starts are written once: the daemons' role can neither change nor
    // delete them, nor lift the rule (the trigger is the owner's).
    for (const statement of [
      "UPDATE routekeeper.ledger_meta SET value = 'another-ledger' WHERE key = 'ledger-id'",
      "DELETE FROM routekeeper.ledger_meta WHERE key LIKE 'signed-from:%'",
    ])
      await expect(asAdmin(url, [statement])).rejects.toThrow(/^written once: /);
    for (const statement of [
      'ALTER TABLE routekeeper.ledger_meta DISABLE TRIGGER ledger_meta_written_once',
      'DROP TRIGGER ledger_meta_written_once ON routekeeper.ledger_meta',
    ])
      await expect(asAdmin(url, [statement])).rejects.toMatchObject({ code: '42501' });

    // A schema behind this version: the role cannot bring it up to date, and says who can.
    await asAdmin(adminUrl, ['DELETE FROM routekeeper.ledger_migrations WHERE version = (SELECT MAX(version) FROM routekeeper.ledger_migrations)']);
    const pause = await runCli(['pause', 'dca', '--reason', 'look', '--database', url], { DATABASE_URL: '' });
    expect(pause.code).toBe(2);
    expect(pause.stderr.trim()).toMatch(
      /^routekeeper: the ledger's schema is at version \d+ of \d+, and this database role may not change it: run `routekeeper migrate` with the schema's owner role$/,
    );
    // Reading needs no change to the schema.
    const history = await runCli(['history', '--database', url], { DATABASE_URL: '' });
    expect(history.code, history.stderr).toBe(0);
  });

  it('a database beyond this machine without TLS is refused, unless said on purpose', async () => {
    const refused = await runCli(['migrate', '--database', 'postgres://rk:secret@db.example.org:5432/routekeeper'], { DATABASE_URL: '' });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      "routekeeper: --database names db.example.org, beyond this machine, without TLS: add sslmode=verify-full (with sslrootcert=<the server's CA> if it is not a public one), or set ROUTEKEEPER_DATABASE_PLAINTEXT=true on a network you trust",
    );
    expect(refused.stderr).not.toContain('secret');
    // With TLS asked for, the URL passes this check (and then fails to connect: no such host here).
    const tls = await runCli(['migrate', '--database', 'postgres://rk:secret@db.example.org:5432/routekeeper?sslmode=verify-full'], { DATABASE_URL: '' });
    expect(tls.stderr).not.toContain('without TLS');
    const plaintext = await runCli(['migrate', '--database', 'postgres://rk:secret@db.example.org:5432/routekeeper'], {
      DATABASE_URL: '',
      ROUTEKEEPER_DATABASE_PLAINTEXT: 'true',
    });
    expect(plaintext.stderr).not.toContain('without TLS');
  });
});
