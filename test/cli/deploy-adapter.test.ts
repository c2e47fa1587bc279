/**
 * `routekeeper deploy-adapter mento-fpmm` on the devnet with Mento: deploys routekeeper's adapter for Mento v3's pools
 * from the strategy file's wallet, writes it into the address book (keeping the rest of the book), sends nothing a
 * second time, and `doctor` then holds it to the pool; an adapter of other code named in its place fails doctor, and
 * bad arguments get one line and exit 2. The chain's clock is on a weekday (the FX market open).
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createPublicClient, createTestClient, getContractAddress, http, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { loadAddressBook } from '../../src/config/address-book.ts';
import { PairMentoFPMM } from '../../src/contracts/solidity-code.ts';
import { forkChain } from '../../src/devnet/devnet.ts';
import { isFXMarketOpen } from '../../src/pools/mento-fpmm/math.ts';
import { bookFiles, runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { onAWeekday } from '../helpers/fx-clock.ts';

const fork = useDevnetFork({ mento: true });

/** The devnet's address book without its Mento v3 adapter (or with `adapter` in its place), a strategy file and the environment. */
function files(adapter?: Address) {
  const book = structuredClone(fork.addressBook);
  const { mentoFpmm: _ours, ...others } = book.contracts.adapters;
  book.contracts.adapters = adapter ? { ...others, mentoFpmm: adapter } : others;
  return { ...bookFiles(book, fork.addressBook.accounts[0]?.privateKey as string, 'deploy-adapter'), book };
}

const adapterLine = (address: string) =>
  new RegExp(`^(ok {3}|warn |FAIL )adapter ${address} \\(Mento v3 fixed-price pool, extras: the pool \\(20\\)\\) for mento: (.*)$`, 'm');

describe('routekeeper deploy-adapter mento-fpmm', () => {
  it('deploys the adapter from the wallet, writes it into the book, sends nothing twice, and doctor holds it to the pool', async () => {
    await onAWeekday(fork);
    const { bookFile, config, env, doctor, book } = files();
    const payer = fork.addressBook.accounts[0]?.address as Address;
    const nonce = await fork.publicClient.getTransactionCount({ address: payer });
    // A book that may hold a node's URL with its key is kept private by its owner: rewritten, it stays so.
    chmodSync(bookFile, 0o600);

    const first = await runCli(['deploy-adapter', 'mento-fpmm', '--address-book', bookFile, '--config', config], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(statSync(bookFile).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(bookFile, 'utf8'));
    const deployed = written.contracts.adapters.mentoFpmm as Address;
    // The wallet's address at the nonce it signed the deployment with, not whatever a receipt names.
    expect(deployed).toBe(getContractAddress({ from: payer, nonce: BigInt(nonce) }));
    expect(first.stdout).toContain(`deployed mentoFpmm at ${deployed}`);
    expect((await fork.publicClient.getCode({ address: deployed }))?.toLowerCase()).toBe(PairMentoFPMM.runtimeCode.toLowerCase());
    expect(await fork.publicClient.getTransactionCount({ address: payer })).toBe(nonce + 1);
    // Everything else in the book as it was.
    expect({ ...written, contracts: { ...written.contracts, adapters: { ...written.contracts.adapters, mentoFpmm: undefined } } }).toEqual(
      JSON.parse(JSON.stringify({ ...book, contracts: { ...book.contracts, adapters: { ...book.contracts.adapters, mentoFpmm: undefined } } })),
    );

    const again = await runCli(['deploy-adapter', 'mento-fpmm', '--address-book', bookFile, '--config', config], env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`already names mentoFpmm ${deployed}, whose code is this build's: nothing sent`);
    expect(await fork.publicClient.getTransactionCount({ address: payer })).toBe(nonce + 1);

    const checked = await runCli(doctor, env);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(adapterLine(deployed));
    expect(checked.stdout.match(adapterLine(deployed))?.[0]).toMatch(/^ok {3}.*quotes 2 pools \(0\.08%, 0\.3%\) as their state says/);
  });

  it("creates a book that only adds the adapter to the chain's built-in data when the file does not exist", async () => {
    const { config, env } = files();
    const bookFile = join(mkdtempSync(join(tmpdir(), 'routekeeper-deploy-adapter-new-')), 'celo-additions.json');
    const { code, stdout, stderr } = await runCli(['deploy-adapter', 'mento-fpmm', '--address-book', bookFile, '--config', config], {
      ...env,
      RPC_URL: fork.addressBook.rpcUrl,
    });
    expect(code, stdout + stderr).toBe(0);
    const book = loadAddressBook(bookFile);
    expect(JSON.parse(readFileSync(bookFile, 'utf8'))).toEqual({ chainId: 42220, contracts: { adapters: { mentoFpmm: book.contracts.adapters.mentoFpmm } } });
    expect((await fork.publicClient.getCode({ address: book.contracts.adapters.mentoFpmm as Address }))?.toLowerCase()).toBe(
      PairMentoFPMM.runtimeCode.toLowerCase(),
    );
    expect(book.contracts.router).toBeUndefined();
  });

  it('fails doctor for an adapter of other code named in its place', async () => {
    await onAWeekday(fork);
    const other = fork.addressBook.contracts.adapters.mentoV2 as Address;
    const { env, doctor } = files(other);
    const { code, stdout } = await runCli(doctor, env);
    expect(code).toBe(1);
    expect(stdout).toMatch(adapterLine(other));
    expect(stdout.match(adapterLine(other))?.[0]).toContain('FAIL adapter');
    expect(stdout).toContain("its code is not routekeeper's own adapter build; deploy that one with 'routekeeper deploy-adapter mento-fpmm'");
  });

  it('says what is wrong with its arguments in one line, exit 2, nothing sent', async () => {
    const { bookFile, config, env } = files();
    const payer = fork.addressBook.accounts[0]?.address as Address;
    const nonce = await fork.publicClient.getTransactionCount({ address: payer });
    for (const [args, says] of [
      [['deploy-adapter', '--address-book', bookFile, '--config', config], 'name the contract to deploy: mento-fpmm or v3-range-mover (got none)'],
      [
        ['deploy-adapter', 'uniswap-v3', '--address-book', bookFile, '--config', config],
        'name the contract to deploy: mento-fpmm or v3-range-mover (got uniswap-v3)',
      ],
      [['deploy-adapter', 'mento-fpmm', '--config', config], '--address-book <file> is required'],
      [['deploy-adapter', 'mento-fpmm', '--address-book', bookFile, '--config', config, '--wallet', 'other'], '--wallet other: '],
    ] as const) {
      const { code, stderr } = await runCli([...args], env);
      expect(code, stderr).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(says);
    }
    expect(await fork.publicClient.getTransactionCount({ address: payer })).toBe(nonce);
  });
});

// Celo itself, when a node is given: our adapter beside Mento's deployed pools, held by doctor to their own code's
// answers (and to our model of them) on a fork.
describe.skipIf(!process.env.CELO_RPC_URL)('routekeeper deploy-adapter mento-fpmm on a fork of Celo (CELO_RPC_URL)', () => {
  it("deploys the adapter from a wallet beside Celo's Mento v3 pools, and doctor holds it and the model to their deployed code", {
    timeout: 600_000,
  }, async () => {
    const celo = await forkChain(process.env.CELO_RPC_URL as string);
    try {
      const key = generatePrivateKey();
      await createTestClient({ mode: 'anvil', transport: http(celo.rpcUrl) }).setBalance({
        address: privateKeyToAccount(key).address,
        value: parseUnits('10', 18),
      });
      const dir = mkdtempSync(join(tmpdir(), 'routekeeper-deploy-adapter-celo-'));
      const bookFile = join(dir, 'celo-additions.json');
      const config = join(dir, 'strategies.yaml');
      writeFileSync(
        config,
        'wallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: USDm, amount: "5" }, buy: USDC }\n',
      );
      // A named service that does not answer, so doctor does not index all of Celo's pools through the fork.
      const env = {
        RPC_URL: celo.rpcUrl,
        ROUTING_SERVICE_URL: 'http://127.0.0.1:9',
        ROUTEKEEPER_CONFIG: '',
        ROUTEKEEPER_PRIVATE_KEY: key,
        ROUTEKEEPER_DATA_DIR: join(dir, 'data'),
      };
      const deployed = await runCli(['deploy-adapter', 'mento-fpmm', '--address-book', bookFile, '--config', config], env);
      expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
      const adapter = loadAddressBook(bookFile).contracts.adapters.mentoFpmm as Address;
      const { stdout } = await runCli(['doctor', '--config', config, '--address-book', bookFile, '--hosted-service', 'http://127.0.0.1:9'], env);
      const line = stdout.match(adapterLine(adapter))?.[0];
      // While the FX market is closed the pools quote nothing, and doctor says it could not check.
      const open = isFXMarketOpen((await createPublicClient({ transport: http(celo.rpcUrl) }).getBlock()).timestamp + 1n);
      expect(line, stdout).toMatch(open ? /^ok {3}.*as their state says/ : /^warn .*no size of \d+ pools could be quoted/);
    } finally {
      await celo.stop();
    }
  });
});
