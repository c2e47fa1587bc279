/** The devnet's funded accounts as traders, each with its wallet. */
import type { DevnetFork } from './fork-clients.ts';

/** The first funded devnet account, with its wallet. */
export function trader(fork: DevnetFork, index = 0) {
  const account = fork.addressBook.accounts[index];
  if (!account) throw new Error(`no funded account ${index}`);
  return { address: account.address, wallet: fork.wallet(account.privateKey) };
}
