/**
 * `routekeeper deploy-adapter mento-fpmm | v3-range-mover`: deploys routekeeper's own pair adapter for Mento v3's
 * fixed-price pools, or its V3 position mover (no one publishes either) from a wallet of the strategy file, checks that
 * the chain holds exactly this build's code at the new address, and writes the address into an address book
 * (`contracts.adapters.mentoFpmm`, `contracts.v3RangeMover`), creating a book that only adds to the chain's built-in
 * data if the file does not exist. Once only: a book that already names one with this build's code sends nothing.
 */
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { type Address, type Hex, createPublicClient, createWalletClient, formatEther, getContractAddress, http, isAddressEqual } from 'viem';
import { deployContract, getCode, getTransactionCount, waitForTransactionReceipt } from 'viem/actions';
import { chainFor } from '../chains.ts';
import { type AddressBook, loadAddressBook } from '../config/address-book.ts';
import { knownContractsFor } from '../config/chain-data.ts';
import { readEnv } from '../config/env.ts';
import { ConfigError } from '../errors.ts';
import { loadStrategyFile } from '../config/strategy-file.ts';
import { walletAccount } from '../config/wallet-keys.ts';
import { PairMentoFPMM, V3RangeMover } from '../contracts/solidity-code.ts';
import { defaultConfigFile } from '../engine/runtime.ts';
import { redactUrl } from '../ops/secrets.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';

/**
 * The contracts routekeeper builds itself for users to deploy, by the name the command takes: where the address book
 * names it (an adapter under `contracts.adapters`, or a contract of its own under `contracts`), its code, what it is
 * for, and what the chain data must know for it to be of use.
 */
const ownAdapters = {
  'mento-fpmm': { bookName: 'mentoFpmm', under: 'adapters', contract: PairMentoFPMM, what: "Mento v3's fixed-price pools", needs: 'mento-fpmm' },
  'v3-range-mover': {
    bookName: 'v3RangeMover',
    under: 'contracts',
    contract: V3RangeMover,
    what: 'moving Uniswap V3 positions in one transaction',
    needs: 'position-manager',
  },
} as const;
type OwnAdapterName = keyof typeof ownAdapters;
const isOwnAdapter = (name: string | undefined): name is OwnAdapterName => name !== undefined && Object.hasOwn(ownAdapters, name);

const sameCode = (code: Hex | undefined, expected: Hex) => code !== undefined && code.toLowerCase() === expected.toLowerCase();

/** `routekeeper deploy-adapter`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'deploy-adapter',
    argv,
    { config: { type: 'string', short: 'c' }, 'address-book': { type: 'string' }, wallet: { type: 'string' } },
    true,
  );
  const [name, ...extra] = positionals;
  if (!isOwnAdapter(name) || extra.length > 0) {
    throw new UsageError(
      `deploy-adapter: name the contract to deploy: ${Object.keys(ownAdapters).join(' or ')} (got ${positionals.length === 0 ? 'none' : positionals.join(' ')}). See 'routekeeper deploy-adapter --help'.`,
    );
  }
  const adapter = ownAdapters[name];
  const bookFile = values['address-book'];
  if (!bookFile)
    throw new UsageError(
      "deploy-adapter: --address-book <file> is required: the book the adapter's address is written into. See 'routekeeper deploy-adapter --help'.",
    );
  const env = readEnv();
  const existing: AddressBook | undefined = existsSync(bookFile) ? loadAddressBook(bookFile) : undefined;
  const rpcUrl = env.RPC_URL?.[0] ?? existing?.rpcUrl;
  if (!rpcUrl) throw new ConfigError('RPC_URL is not set: it names the chain to deploy on');

  // The wallet that pays: one of the strategy file's, its key read as the daemon reads it.
  const configFile = values.config ?? env.ROUTEKEEPER_CONFIG ?? defaultConfigFile;
  const strategyFile = loadStrategyFile(configFile);
  const names = Object.keys(strategyFile.wallets);
  const walletName = values.wallet ?? (names.length === 1 ? names[0] : undefined);
  if (walletName === undefined)
    throw new UsageError(`deploy-adapter: --wallet is required: ${configFile} names ${names.length} wallets (${names.join(', ')}); say which one pays`);
  const source = strategyFile.wallets[walletName];
  if (!source) throw new UsageError(`deploy-adapter: --wallet ${walletName}: ${configFile} names no such wallet (it names ${names.join(', ')})`);
  const account = await walletAccount(walletName, source, { env: process.env, configFile });

  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  if (existing && existing.chainId !== chainId)
    throw new ConfigError(`${bookFile} is of chain ${existing.chainId}; the node at ${redactUrl(rpcUrl)} is chain ${chainId}`);
  const known = knownContractsFor(chainId, existing);
  if (adapter.needs === 'mento-fpmm' && known.mentoFpmmFactories.length === 0)
    throw new ConfigError(`no Mento v3 pool factory is known on chain ${chainId}: the adapter would have no pool to route through`);
  if (adapter.needs === 'position-manager' && known.positionManagers.length === 0)
    throw new ConfigError(`no Uniswap V3 position manager is known on chain ${chainId}: the mover would have no position to move`);
  const chain = chainFor(chainId, rpcUrl);
  const client = createPublicClient({ chain, transport: http(rpcUrl) });

  const named = adapter.under === 'adapters' ? existing?.contracts.adapters[adapter.bookName] : existing?.contracts[adapter.bookName];
  if (named && sameCode(await getCode(client, { address: named }), adapter.contract.runtimeCode)) {
    console.log(`${bookFile} already names ${adapter.bookName} ${named}, whose code is this build's: nothing sent`);
    return 0;
  }

  const wallet = createWalletClient({ chain, transport: http(rpcUrl), account });
  console.error(`deploying routekeeper's contract for ${adapter.what} from wallet ${walletName} (${account.address}) on chain ${chainId}…`);
  // The address is the wallet's and the nonce it signs at, not what a node's receipt names: a node could name any
  // contract holding the same code.
  const nonce = await getTransactionCount(client, { address: account.address, blockTag: 'pending' });
  const address = getContractAddress({ from: account.address, nonce: BigInt(nonce) });
  const hash = await deployContract(wallet, { abi: adapter.contract.abi, bytecode: adapter.contract.bytecode as Hex, account, chain, nonce });
  const receipt = await waitForTransactionReceipt(client, { hash });
  if (receipt.status !== 'success') throw new Error(`the deployment ${hash} reverted: nothing is written to ${bookFile}`);
  if (!receipt.contractAddress || !isAddressEqual(receipt.contractAddress, address))
    throw new Error(
      `the receipt of ${hash} names ${receipt.contractAddress ?? 'no contract'}, not ${address} (the wallet's at nonce ${nonce}): nothing is written to ${bookFile}`,
    );
  // What the chain holds is what doctor will hold it to: this build's code, exactly.
  if (!sameCode(await getCode(client, { address, blockNumber: receipt.blockNumber }), adapter.contract.runtimeCode)) {
    throw new Error(`the code at ${address} (transaction ${hash}) is not this build's: nothing is written to ${bookFile}`);
  }
  writeAdapter(bookFile, chainId, adapter, address);
  const paid = receipt.gasUsed * receipt.effectiveGasPrice;
  const where = adapter.under === 'adapters' ? `contracts.adapters.${adapter.bookName}` : `contracts.${adapter.bookName}`;
  console.log(
    `deployed ${adapter.bookName} at ${address} (transaction ${hash}, gas ${receipt.gasUsed}, ${formatEther(paid)} native) and wrote it to ${bookFile} as ${where}`,
  );
  return 0;
}

/**
 * The address written into the book, everything else in it kept as it was, its file mode too (a book may hold a node's
 * URL with its key); a new book names only its chain and the adapter (the chain's built-in data does the rest).
 * Written beside and renamed over, so a crash leaves one or the other.
 */
function writeAdapter(file: string, chainId: number, adapter: (typeof ownAdapters)[OwnAdapterName], address: Address): void {
  type Written = { chainId?: number; contracts?: { adapters?: Record<string, string> } & Record<string, unknown> };
  const book: Written = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Written) : { chainId };
  const contracts = (book.contracts ??= {});
  if (adapter.under === 'adapters') contracts.adapters = { ...contracts.adapters, [adapter.bookName]: address };
  else contracts[adapter.bookName] = address;
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${JSON.stringify(book, null, 2)}\n`, { mode });
  chmodSync(draft, mode);
  renameSync(draft, file);
}
