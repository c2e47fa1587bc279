/**
 * Encrypted keys at rest: the Web3 Secret Storage Definition, version 3 (the JSON keystore geth, `cast wallet` and
 * most wallets write). The key is AES-128-CTR encrypted under the first 16 bytes of a key derived from the password
 * (scrypt or PBKDF2-HMAC-SHA256); the MAC, keccak-256 of the derived key's second 16 bytes and the ciphertext, tells
 * a wrong password from a right one before anything is decrypted.
 */
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { scrypt } from '@noble/hashes/scrypt';
import { type Hex, bytesToHex, hexToBytes, keccak256 } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

const hexBytes = z
  .string()
  .regex(/^(0x)?([0-9a-fA-F]{2})+$/, { message: 'must be hex' })
  .transform((hex) => Buffer.from(hex.replace(/^0x/, ''), 'hex'));

const keystoreSchema = z.object({
  version: z.literal(3),
  address: z.string().optional(),
  crypto: z.object({
    cipher: z.literal('aes-128-ctr'),
    cipherparams: z.object({ iv: hexBytes }),
    ciphertext: hexBytes,
    kdf: z.enum(['scrypt', 'pbkdf2']),
    kdfparams: z.union([
      z.object({
        n: z.number().int().positive(),
        r: z.number().int().positive(),
        p: z.number().int().positive(),
        dklen: z.number().int().min(32),
        salt: hexBytes,
      }),
      z.object({ c: z.number().int().positive(), prf: z.literal('hmac-sha256'), dklen: z.number().int().min(32), salt: hexBytes }),
    ]),
    mac: hexBytes,
  }),
});

/** A keystore that cannot be read, or not with this password: a configuration problem (exit 2), named. */
export class KeystoreError extends ConfigError {
  override name = 'KeystoreError';
}

type KdfParams = z.infer<typeof keystoreSchema>['crypto']['kdfparams'];

function derivedKey(password: string, params: KdfParams): Buffer {
  if ('n' in params) {
    const secret = password.normalize('NFKC');
    // OpenSSL's scrypt where it takes the parameters (as geth's and cast's keystores have them): twice as fast as
    // noble's. It refuses N ≥ 2^(16·r), which valid keystores may use (the specification's own test vector has
    // N = 2^18 with r = 1): noble's then.
    if (params.n < 2 ** Math.min(16 * params.r, 52)) {
      return scryptSync(secret, params.salt, params.dklen, {
        N: params.n,
        r: params.r,
        p: params.p,
        maxmem: 129 * params.n * params.r * Math.max(1, params.p) + 16 * 1024 * 1024,
      });
    }
    return Buffer.from(scrypt(secret, params.salt, { N: params.n, r: params.r, p: params.p, dkLen: params.dklen, maxmem: 2 ** 32 }));
  }
  return pbkdf2Sync(password.normalize('NFKC'), params.salt, params.c, params.dklen, 'sha256');
}

const macOf = (key: Buffer, ciphertext: Buffer) => Buffer.from(hexToBytes(keccak256(Buffer.concat([key.subarray(16, 32), ciphertext]))));

/** The private key a keystore holds; KeystoreError naming `where` for a file that is not one, or a wrong password. */
export function decryptKeystore(json: string, password: string, where: string): Hex {
  let parsed: z.infer<typeof keystoreSchema>;
  try {
    const result = keystoreSchema.safeParse(JSON.parse(json));
    if (!result.success)
      throw new KeystoreError(
        `${where} is not a Web3 Secret Storage (v3, aes-128-ctr, scrypt or pbkdf2) keystore: ${result.error.issues[0]?.path.join('.')} ${result.error.issues[0]?.message}`,
      );
    parsed = result.data;
  } catch (error) {
    if (error instanceof KeystoreError) throw error;
    throw new KeystoreError(`${where} is not JSON`);
  }
  const { crypto } = parsed;
  const key = derivedKey(password, crypto.kdfparams);
  const mac = macOf(key, crypto.ciphertext);
  if (mac.length !== crypto.mac.length || !timingSafeEqual(mac, crypto.mac))
    throw new KeystoreError(`${where}: wrong password (the keystore's MAC does not match)`);
  const decipher = createDecipheriv('aes-128-ctr', key.subarray(0, 16), crypto.cipherparams.iv);
  const secret = Buffer.concat([decipher.update(crypto.ciphertext), decipher.final()]);
  if (secret.length !== 32) throw new KeystoreError(`${where} holds ${secret.length} bytes, not a 32-byte private key`);
  return bytesToHex(secret);
}

/**
 * The keystore of `privateKey` under `password`, as geth writes it: scrypt with N = 2^18, r = 8, p = 1 (`light`
 * lowers N to 2^12, for tests: seconds less to unlock, and far weaker).
 */
export function encryptKeystore(privateKey: Hex, password: string, options: { light?: boolean } = {}): string {
  const kdfparams = { n: options.light ? 4096 : 262_144, r: 8, p: 1, dklen: 32, salt: randomBytes(32) };
  const key = derivedKey(password, kdfparams);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-ctr', key.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(hexToBytes(privateKey))), cipher.final()]);
  const keystore = {
    version: 3,
    id: randomUUID(),
    address: privateKeyToAddress(privateKey).slice(2).toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'scrypt',
      kdfparams: { ...kdfparams, salt: kdfparams.salt.toString('hex') },
      mac: macOf(key, ciphertext).toString('hex'),
    },
  };
  return `${JSON.stringify(keystore, null, 2)}\n`;
}
