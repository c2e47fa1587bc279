/**
 * Keystores as standard tools write them: the Web3 Secret Storage Definition's own test vectors (scrypt and PBKDF2,
 * password "testpassword"), a keystore of ours read back, and a wrong password named. Keys read once leave the
 * environment.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { KeystoreError, decryptKeystore, encryptKeystore } from '../../src/config/keystore.ts';
import { walletAccount } from '../../src/config/wallet-keys.ts';

/** The specification's vectors (ethereum.org, "Web3 secret storage definition"; go-ethereum accounts/keystore/testdata/v3_test_vector.json). */
const specKey = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';
const scryptVector = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: { dklen: 32, n: 262144, r: 1, p: 8, salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19' },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};
const pbkdf2Vector = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};

describe('keystores (Web3 Secret Storage v3)', () => {
  it("unlocks the specification's scrypt and PBKDF2 vectors with their password", () => {
    expect(decryptKeystore(JSON.stringify(scryptVector), 'testpassword', 'scrypt vector')).toBe(specKey);
    expect(decryptKeystore(JSON.stringify(pbkdf2Vector), 'testpassword', 'pbkdf2 vector')).toBe(specKey);
  }, 30_000);

  it('names a wrong password and a file that is no keystore', () => {
    expect(() => decryptKeystore(JSON.stringify(pbkdf2Vector), 'not the password', 'k.json')).toThrow(
      new KeystoreError("k.json: wrong password (the keystore's MAC does not match)"),
    );
    expect(() => decryptKeystore('{"version":3}', 'x', 'k.json')).toThrow(
      /^k\.json is not a Web3 Secret Storage \(v3, aes-128-ctr, scrypt or pbkdf2\) keystore: crypto /,
    );
    expect(() => decryptKeystore('not json', 'x', 'k.json')).toThrow('k.json is not JSON');
  });

  it("writes keystores it (and the vectors' readers) read back, with the address", () => {
    const written = encryptKeystore(specKey, 'a password', { light: true });
    expect(JSON.parse(written)).toMatchObject({
      version: 3,
      address: privateKeyToAddress(specKey).slice(2).toLowerCase(),
      crypto: { cipher: 'aes-128-ctr', kdf: 'scrypt', kdfparams: { n: 4096, r: 8, p: 1, dklen: 32 } },
    });
    expect(decryptKeystore(written, 'a password', 'written')).toBe(specKey);
    expect(() => decryptKeystore(written, 'another', 'written')).toThrow(KeystoreError);
  });
});

describe("a wallet's key, read once", () => {
  it('from its variable, or the file its _FILE twin names; the variable leaves the environment once read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-keys-'));
    process.env.ROUTEKEEPER_TEST_KEY = specKey;
    const fromVariable = await walletAccount('main', { privateKeyEnv: 'ROUTEKEEPER_TEST_KEY' }, { env: process.env, configFile: join(dir, 's.yaml') });
    expect(fromVariable.address).toBe(privateKeyToAddress(specKey));
    expect(process.env.ROUTEKEEPER_TEST_KEY).toBeUndefined();
    writeFileSync(join(dir, 'key'), `${specKey}\n`);
    const fromFile = await walletAccount(
      'main',
      { privateKeyEnv: 'OTHER_KEY' },
      { env: { OTHER_KEY_FILE: join(dir, 'key') }, configFile: join(dir, 's.yaml') },
    );
    expect(fromFile.address).toBe(privateKeyToAddress(specKey));
    await expect(walletAccount('main', { privateKeyEnv: 'NONE_KEY' }, { env: {}, configFile: join(dir, 's.yaml') })).rejects.toThrow(
      'wallets.main.privateKeyEnv: the environment variable NONE_KEY is not set (nor NONE_KEY_FILE)',
    );
  });

  it('from a keystore beside the strategy file, by its password file, or at a prompt; none without either', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-keys-'));
    writeFileSync(join(dir, 'wallet.json'), JSON.stringify(pbkdf2Vector));
    writeFileSync(join(dir, 'password'), 'testpassword\n');
    const reading = { env: {}, configFile: join(dir, 'strategies.yaml') };
    expect((await walletAccount('main', { keystore: 'wallet.json', passwordFile: 'password' }, reading)).address).toBe(privateKeyToAddress(specKey));
    const asked: string[] = [];
    const prompted = await walletAccount(
      'main',
      { keystore: 'wallet.json' },
      { ...reading, askPassword: async (question) => (asked.push(question), 'testpassword') },
    );
    expect(prompted.address).toBe(privateKeyToAddress(specKey));
    expect(asked).toEqual([`Password of the keystore of wallet main (${join(dir, 'wallet.json')})`]);
    await expect(walletAccount('main', { keystore: 'wallet.json' }, reading)).rejects.toThrow(
      `wallets.main: the keystore ${join(dir, 'wallet.json')} needs its password: set passwordFile, or start at a terminal to be asked`,
    );
  });
});
