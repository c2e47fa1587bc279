/**
 * Keys at rest: `init --keystore` writes the wallet's key encrypted (never to the .env), and a daemon whose wallet
 * names a keystore unlocks it with its password file and signs (`routekeeper once`, a DCA on a devnet fork); a wrong
 * password is one line, exit 2, nothing started. The key's variable may also be a file (`<NAME>_FILE`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, parseUnits } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { decryptKeystore, encryptKeystore } from '../../src/config/keystore.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ routing: true });
const key = () => fork.addressBook.accounts[1]?.privateKey as `0x${string}`;
const me = () => privateKeyToAddress(key()) as Address;

const dcaFile = (wallet: string) => `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: ${wallet}
strategies:
  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "3" }, buy: CELO }
`;

const baseEnv = (home: ReturnType<typeof daemonHome>) => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTEKEEPER_CONFIG: '',
  ROUTEKEEPER_DATA_DIR: home.dataDir,
  ROUTEKEEPER_PRIVATE_KEY: '',
});

describe('keys at rest', () => {
  it('init --keystore writes the key encrypted beside the strategy file, never to the .env', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-init-keystore-'));
    writeFileSync(join(dir, 'password'), 'a good long password\n');
    const result = await runCli(
      [
        'init',
        '--chain',
        'celo',
        '--rpc-url',
        'https://forno.celo.org',
        '--key-env',
        'MY_KEY',
        '--strategies',
        'dca',
        '--yes',
        '--config',
        join(dir, 'strategies.yaml'),
        '--dotenv',
        join(dir, '.env'),
        '--keystore',
        join(dir, 'wallet.json'),
        '--password-file',
        join(dir, 'password'),
      ],
      { MY_KEY: key() },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(decryptKeystore(readFileSync(join(dir, 'wallet.json'), 'utf8'), 'a good long password', 'wallet.json')).toBe(key());
    expect(readFileSync(join(dir, 'strategies.yaml'), 'utf8')).toContain('  main: { keystore: "wallet.json", passwordFile: "password" }');
    const dotenv = readFileSync(join(dir, '.env'), 'utf8');
    expect(dotenv).not.toContain(key().slice(2));
    expect(dotenv).toContain("# The wallet's key is in the encrypted keystore wallet.json, not here.");
    expect(result.stdout + result.stderr).not.toContain(key().slice(2));
  });

  it('a wallet named by its keystore is unlocked by its password file and signs; a wrong password is one line, exit 2', async () => {
    const home = daemonHome(fork, 'keystore');
    writeFileSync(join(home.dir, 'wallet.json'), encryptKeystore(key(), 'the password', { light: true }));
    writeFileSync(join(home.dir, 'password'), 'the password\n');
    writeFileSync(join(home.dir, 'wrong'), 'another password\n');
    const config = join(home.dir, 'strategies.yaml');

    writeFileSync(config, dcaFile('{ keystore: wallet.json, passwordFile: wrong }'));
    const refused = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], baseEnv(home));
    expect(refused.code).toBe(2);
    const said = refused.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('{'));
    expect(said).toEqual([`routekeeper: wallets.main.keystore ${join(home.dir, 'wallet.json')}: wrong password (the keystore's MAC does not match)`]);

    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    writeFileSync(config, dcaFile('{ keystore: wallet.json, passwordFile: password }'));
    const traded = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], baseEnv(home));
    expect(traded.code, traded.stderr).toBe(0);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('3', 18));
  });

  it("a key's variable may be a file (<NAME>_FILE), as container secrets are mounted", async () => {
    const home = daemonHome(fork, 'key-file');
    writeFileSync(join(home.dir, 'key'), `${key()}\n`, { mode: 0o600 });
    const config = join(home.dir, 'strategies.yaml');
    writeFileSync(config, dcaFile('{ privateKeyEnv: WALLET_KEY }'));
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    const traded = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], { ...baseEnv(home), WALLET_KEY_FILE: join(home.dir, 'key') });
    expect(traded.code, traded.stderr).toBe(0);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('3', 18));
  });

  it('two wallets of one key read it once (the variable leaves the environment when read)', async () => {
    const home = daemonHome(fork, 'shared-key');
    const config = join(home.dir, 'strategies.yaml');
    writeFileSync(config, dcaFile('{ privateKeyEnv: SHARED_KEY }\n  spare: { privateKeyEnv: SHARED_KEY }'));
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    const traded = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], { ...baseEnv(home), SHARED_KEY: key() });
    expect(traded.code, traded.stderr).toBe(0);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('3', 18));
  });
});
