/**
 * `routekeeper adopt --wallet <name>`: starts this ledger's record of a wallet that was used before the ledger knew it.
 *
 * The record of what a wallet signed starts at a nonce the wallet tags (trade/signed-history.ts). A ledger never
 * takes that start from a missing row: a wallet without one whose nonce on the chain is above 0 signs nothing until
 * a person says here, having seen the chain's count, that the record starts now. Trades signed before are then not
 * this ledger's to know: one-shot orders, budgets and positions start afresh. So the command shows the count first,
 * and writes only when given it back (`--nonce N`): a count that moved meanwhile is refused.
 */
import { existsSync } from 'node:fs';
import { type Hex, createPublicClient, http } from 'viem';
import { getBlock, getTransactionCount } from 'viem/actions';
import { chainFor } from '../chains.ts';
import { loadAddressBook } from '../config/address-book.ts';
import { readEnv } from '../config/env.ts';
import { loadStrategyFile } from '../config/strategy-file.ts';
import { walletAccount } from '../config/wallet-keys.ts';
import { defaultConfigFile } from '../engine/runtime.ts';
import { ConfigError } from '../errors.ts';
import { Ledger } from '../ledger/ledger.ts';
import { RecordTags } from '../model/record-tags.ts';
import { redactUrl } from '../ops/secrets.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { ledgerLocationFor, ledgerOptions } from './ledger-file.ts';

/** `routekeeper adopt`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('adopt', argv, {
    config: { type: 'string', short: 'c' },
    wallet: { type: 'string' },
    nonce: { type: 'string' },
    paper: { type: 'boolean' },
    'address-book': { type: 'string' },
    ...ledgerOptions,
  });
  if (values.nonce !== undefined && !/^\d+$/.test(values.nonce))
    throw new UsageError(`adopt: --nonce must be the chain's count of the wallet's transactions, got '${values.nonce}'`);
  const env = readEnv();
  const bookFile = values['address-book'];
  const rpcUrl = env.RPC_URL?.[0] ?? (bookFile === undefined ? undefined : loadAddressBook(bookFile).rpcUrl);
  if (!rpcUrl) throw new ConfigError('RPC_URL is not set (nor an --address-book naming a node): it names the chain whose count of the wallet is shown');
  const configFile = values.config ?? env.ROUTEKEEPER_CONFIG ?? defaultConfigFile;
  const strategyFile = loadStrategyFile(configFile);
  const names = Object.keys(strategyFile.wallets);
  const walletName = values.wallet ?? (names.length === 1 ? names[0] : undefined);
  if (walletName === undefined) throw new UsageError(`adopt: --wallet is required: ${configFile} names ${names.length} wallets (${names.join(', ')})`);
  const source = strategyFile.wallets[walletName];
  if (!source) throw new UsageError(`adopt: --wallet ${walletName}: ${configFile} names no such wallet (it names ${names.join(', ')})`);
  const account = await walletAccount(walletName, source, { env: process.env, configFile });

  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  const client = createPublicClient({ chain: chainFor(chainId, rpcUrl), transport: http(rpcUrl) });
  const [count, genesis] = await Promise.all([
    getTransactionCount(client, { address: account.address, blockTag: 'pending' }),
    getBlock(client, { blockNumber: 0n }),
  ]);
  const location = await ledgerLocationFor(values);
  // A ledger that does not exist yet (a new install on a used wallet) is made, bound to this chain; one that exists is
  // opened beside a daemon that may hold it (its one write is serialized by the database).
  const ledger =
    location.kind === 'sqlite' && !existsSync(location.file)
      ? await Ledger.open(location, { chain: { chainId, genesisHash: genesis.hash as Hex } })
      : await Ledger.openForPauses(location);
  try {
    const bound = await ledger.chain();
    if (bound && (bound.chainId !== chainId || bound.genesisHash.toLowerCase() !== genesis.hash?.toLowerCase()))
      throw new ConfigError(`the ledger ${ledger.location} was written on chain ${bound.chainId}; the node at ${redactUrl(rpcUrl)} is another chain`);
    const who = `wallet ${walletName} (${account.address}) on chain ${chainId}`;
    const start = await ledger.attempts.signedFrom(account.address, chainId);
    if (start) {
      console.log(`${who}: this ledger's record of it starts at nonce ${start.nonce} already; nothing to adopt`);
      return 0;
    }
    console.log(`${who}: the chain counts ${count} transactions from it`);
    if (values.nonce === undefined) {
      console.log(
        `adopting starts this ledger's record of it at nonce ${count}: what it signed before is not known here (one-shot orders, budgets and positions start afresh). Run again with --nonce ${count} to adopt it`,
      );
      return 1;
    }
    if (Number(values.nonce) !== count) {
      console.log(`--nonce ${values.nonce} is not the chain's count (${count}): nothing written; look again`);
      return 1;
    }
    const tags = new RecordTags(
      account,
      ledger.id().then((ledgerId) => ({ ledgerId, paper: values.paper === true })),
    );
    const written = await ledger.attempts.startSignedFrom(account.address, chainId, {
      nonce: count,
      tag: await tags.signedFrom(account.address, chainId, count),
    });
    console.log(`adopted: this ledger's record of ${account.address} starts at nonce ${written.nonce}; lift its pause with 'routekeeper resume ${walletName}'`);
    return 0;
  } finally {
    await ledger.close();
  }
}
