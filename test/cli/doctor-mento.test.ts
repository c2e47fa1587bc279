/**
 * `routekeeper doctor` against the devnet with Mento: the Broker lists the providers the address book names, their
 * exchanges are found, and Swappa's PairMentoV2 prices them as their state says; each Mento v3 pool is named with its
 * oracle adapter and market-hours breaker, as the chain has them; a provider the Broker does not list is named on its
 * own line, with exit 1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { onAWeekend } from '../helpers/fx-clock.ts';

const fork = useDevnetFork({ mento: true });

function files(book: object) {
  const dir = mkdtempSync(join(tmpdir(), 'routekeeper-doctor-mento-'));
  const bookFile = join(dir, 'book.json');
  writeFileSync(bookFile, JSON.stringify(book));
  const config = join(dir, 'strategies.yaml');
  writeFileSync(
    config,
    'wallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "5" }, buy: USDC }\n',
  );
  const env = {
    RPC_URL: '',
    ROUTING_SERVICE_URL: '',
    ROUTEKEEPER_CONFIG: '',
    ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
    ROUTEKEEPER_DATA_DIR: join(dir, 'data'),
  };
  return { args: ['doctor', '--config', config, '--address-book', bookFile, '--hosted-service', 'http://127.0.0.1:9'], env };
}

describe('routekeeper doctor with Mento', () => {
  it("finds the Broker's exchanges, holds Swappa's PairMentoV2 to their state, and names each Mento v3 pool's adapter and breaker (on a Saturday: the collateral pool open, the FX pool closed)", async () => {
    await onAWeekend(fork);
    const { args, env } = files(fork.addressBook);
    const { code, stdout, stderr } = await runCli(args, env);
    expect(code, stdout + stderr).toBe(0);
    const world = fork.addressBook.mento;
    const pool = (name: string) => world?.fixedPricePools.find((entry) => entry.name === name)?.address;
    const factory = world?.fpmmFactory;
    expect(stdout).toContain(
      `ok   Mento v3 pool ${pool('cUSD/USDC')} of factory ${factory}: oracle adapter ${world?.oracleAdapterCollateral}, market-hours breaker ${world?.marketHoursBreakerToggleable} has its checks off (open at any hour); open now`,
    );
    expect(stdout).toContain(
      `ok   Mento v3 pool ${pool('cUSD/cEUR')} of factory ${factory}: oracle adapter ${world?.oracleAdapter}, market-hours breaker ${world?.marketHoursBreaker} keeps the FX market's hours (closed at weekends and on holidays); takes no swap in the next block (market-closed)`,
    );
    const broker = fork.addressBook.contracts.mento?.broker;
    expect(stdout).toContain(`ok   Mento Broker ${broker}: 3 exchanges of 1 provider found`);
    expect(stdout).toMatch(
      new RegExp(
        `^ok {3}adapter ${fork.addressBook.contracts.adapters.mentoV2} \\(Mento v2, extras: broker \\(20\\), exchange provider \\(20\\), exchange id \\(32\\)\\) for mento: quotes 3 pools \\(0\\.05%, 0\\.15%, 0\\.25%\\) as their state says, both ways at (1\\d|2[0-4]) sizes`,
        'm',
      ),
    );
  });

  it('names an exchange provider the Broker does not list, and exits 1', async () => {
    const book = structuredClone(fork.addressBook);
    const stranger = book.contracts.router;
    book.contracts.mento = { broker: book.contracts.mento?.broker as `0x${string}`, exchangeProviders: [stranger] };
    const { args, env } = files(book);
    const { code, stdout } = await runCli(args, env);
    expect(code).toBe(1);
    expect(stdout).toContain(`FAIL Mento Broker ${book.contracts.mento.broker}: does not list the exchange provider ${stranger} the chain data names`);
  });
});
