import { type Hex, toHex } from 'viem';
import { type HDAccount, mnemonicToAccount } from 'viem/accounts';
import { devnetMnemonic } from './world-spec.ts';

export type DevnetAccount = { account: HDAccount; address: HDAccount['address']; privateKey: Hex };

/** The devnet account at a mnemonic index, with its private key (anvil's public test keys). */
export function devnetAccount(index: number): DevnetAccount {
  const account = mnemonicToAccount(devnetMnemonic, { addressIndex: index });
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error(`no private key derived for devnet account ${index}`);
  return { account, address: account.address, privateKey: toHex(key) };
}
