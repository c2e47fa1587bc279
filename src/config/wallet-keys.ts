/**
 * Where each wallet's key comes from, read once at start: an environment variable the wallet names (or the file its
 * `<NAME>_FILE` twin names, as container secrets are mounted), or an encrypted keystore unlocked by a password file or,
 * at a terminal, a prompt. A variable that held a key is removed from `process.env` once read, so no child process and
 * no later code finds it there; the environment the process started with stays in `/proc/<pid>/environ` (the kernel's
 * copy), which is why docs/safety.md advises a file or a keystore. Errors name the wallet and the variable or file, never a value.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Hex, isHex } from 'viem';
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import { secretFromEnv } from './env.ts';
import { ConfigError } from '../errors.ts';
import { decryptKeystore } from './keystore.ts';

/** A wallet's key, as the strategy file says where it is. */
export type KeySource = { privateKeyEnv?: string; keystore?: string; passwordFile?: string };

export type KeyReading = {
  env: NodeJS.ProcessEnv;
  /** The strategy file: a keystore's and a password file's paths are relative to its directory. */
  configFile: string;
  /** Asks a person for a keystore's password (none: not at a terminal). */
  askPassword?: (question: string) => Promise<string>;
};

function accountFromKey(key: string, where: string, what: string): LocalAccount {
  const normalized = key.startsWith('0x') ? key : `0x${key}`;
  if (!isHex(normalized) || normalized.length !== 66) throw new ConfigError(`${where}: ${what} does not hold a 32-byte hex private key`);
  try {
    return privateKeyToAccount(normalized as Hex);
  } catch {
    throw new ConfigError(`${where}: ${what} does not hold a valid secp256k1 private key`);
  }
}

/** The account of wallet `name`; its key's variable is removed from `process.env` once read. */
export async function walletAccount(name: string, source: KeySource, reading: KeyReading): Promise<LocalAccount> {
  if (source.keystore !== undefined) return keystoreAccount(name, source.keystore, source.passwordFile, reading);
  const variable = source.privateKeyEnv as string;
  const where = `wallets.${name}.privateKeyEnv`;
  const key = secretFromEnv(reading.env, variable, where);
  if (!key) throw new ConfigError(`${where}: the environment variable ${variable} is not set (nor ${variable}_FILE)`);
  const account = accountFromKey(key, where, reading.env[variable] ? variable : `the file ${variable}_FILE names`);
  // Read once: from here the key lives in the account only.
  delete process.env[variable];
  if (reading.env !== process.env) delete reading.env[variable];
  return account;
}

async function keystoreAccount(name: string, keystore: string, passwordFile: string | undefined, reading: KeyReading): Promise<LocalAccount> {
  const where = `wallets.${name}.keystore`;
  const base = dirname(resolve(reading.configFile));
  const file = resolve(base, keystore);
  let json: string;
  try {
    json = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${where}: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  let password: string;
  if (passwordFile !== undefined) {
    const path = resolve(base, passwordFile);
    try {
      password = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new ConfigError(`wallets.${name}.passwordFile: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  } else if (reading.askPassword) {
    password = await reading.askPassword(`Password of the keystore of wallet ${name} (${file})`);
  } else {
    throw new ConfigError(`wallets.${name}: the keystore ${file} needs its password: set passwordFile, or start at a terminal to be asked`);
  }
  return accountFromKey(decryptKeystore(json, password, `${where} ${file}`), where, `the keystore ${file}`);
}
