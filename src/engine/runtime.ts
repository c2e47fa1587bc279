/**
 * Everything a command needs to act for the user, opened in one place: the chain (the embedded devnet,
 * a fork of RPC_URL for paper trading, or RPC_URL itself), the routing service, the strategy file resolved
 * against the chain, the ledger, and one sender and executor per wallet. `close()` undoes it in reverse.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPublicClient, createTestClient, http, parseGwei } from 'viem';
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import { getBlockNumber } from 'viem/actions';
import { type ChainClient, chainFor } from '../chains.ts';
import type { TxStage } from '../chain/journal.ts';
import { Wallet } from '../chain/wallet.ts';
import { strategyFit } from './strategy-fit.ts';
import { TradeRecorder } from '../trade/recorder.ts';
import { readTokenInfo } from '../chain/tokens.ts';
import type { TokenInfo } from '../units.ts';
import { type AddressBook, loadAddressBook } from '../config/address-book.ts';
import { type Env, databaseUrlOf, secretFromEnv } from '../config/env.ts';
import { ConfigError } from '../errors.ts';
import { type ResolvedConfig, resolveConfig } from '../strategy/resolve.ts';
import { walletAccount } from '../config/wallet-keys.ts';
import { TokenNames } from '../trade/describe.ts';
import { tokenDirectory } from '../config/chain-data.ts';
import { type StrategyFile, loadStrategyFile } from '../config/strategy-file.ts';
import { forkChain, mineEvery, startDevnet, startDevnetRoutingService } from '../devnet/devnet.ts';
import { reportEvery } from '../devnet/oracle.ts';
import { tradeInBusyPools } from '../devnet/busy-pools.ts';
import { devnetKeyVariable } from '../devnet/world-spec.ts';
import { toJson } from '../json.ts';
import { Ledger, type LedgerLocation } from '../ledger/ledger.ts';
import type { Attempt, ChainIdentity } from '../model/attempt.ts';
import { networkLedgerName, networkSchema, removeStaleThrowawayLedgers, throwawayLedgerFile, throwawaySchema } from '../ledger/files.ts';
import { commonChainOf, nodeTransport } from '../chain/transport.ts';
import { type RoutingClient, createRoutingClient } from '../routing-client/client.ts';
import { rateLimitFor } from '../routing-client/limiter.ts';
import { startRoutingService } from '../routing/server.ts';
import { routingSetupFor } from '../routing/setup.ts';
import type { Budget } from '../guard/guards.ts';
import type { PipelineDeps } from '../trade/pipeline.ts';
import { SharedQuotes } from '../trade/quote.ts';
import { defaultExecutionSettings } from '../trade/settings.ts';
import { chainChecks } from '../trade/check.ts';
import { afterGrace, stopGraceMs, throwIfAborted } from '../ops/abort.ts';
import { registerSecretUrl } from '../ops/secrets.ts';
import { DaemonGroup } from './group.ts';
import { SignedHistory } from '../trade/signed-history.ts';
import { decide } from './runner.ts';
import { stillAskedBy } from './still-asked.ts';
import { WalletLeases, defaultLeaseMs } from './leases.ts';

export const defaultConfigFile = 'config/strategies.yaml';
export const defaultDataDir = 'data';

export type RuntimeOptions = {
  env: Env;
  configFile?: string;
  addressBookFile?: string;
  /** Paper trading: run against a local anvil fork of RPC_URL. */
  fork?: boolean;
  /** Asked for the embedded devnet explicitly (`--devnet`): needed where ROUTEKEEPER_REQUIRE_RPC_URL is set. */
  devnet?: boolean;
  /** The ledger in this PostgreSQL database (`--database`); else DATABASE_URL, else a SQLite file. */
  database?: string;
  /** Only look (`check`): keep the previous devnet or fork ledger. */
  inspectOnly?: boolean;
  onStage?: (stage: TxStage, attempt: Attempt) => void;
  /** Start-up stops between its steps once this fires (AbortedError); what was started is closed. */
  signal?: AbortSignal;
  /** Asks for a keystore's password without a password file (default: at a terminal, the prompt; else none). */
  askPassword?: (question: string) => Promise<string>;
};

/** A keystore's password, asked at the terminal (nothing echoed); none when the process has no terminal to ask at. */
const terminalPassword = process.stdin.isTTY
  ? async (question: string) => {
      const { password } = await import('@inquirer/prompts');
      return password({ message: question, mask: false });
    }
  : undefined;

export type Runtime = {
  mode: 'embedded devnet' | 'fork' | 'network';
  chainId: number;
  /** The chain every RPC URL serves (checked at start): the ledger is bound to it. */
  chain: ChainIdentity;
  /** The node URLs, best first (one, unless RPC_URL names several). */
  rpcUrls: string[];
  serviceUrl: string;
  /** Whose routing service answers: the embedded devnet's, one in this process over the chain's node, or one named. */
  serviceKind: 'devnet' | 'embedded' | 'remote';
  configFile: string;
  /** How long a wallet's lease lasts (ROUTEKEEPER_LEASE_SECONDS). */
  leaseSeconds: number;
  /** The version of the strategies read from it (a digest of their definitions): daemons sharing a ledger agree on it. */
  strategyDigest: string;
  /** Where the ledger lives: a SQLite file in the data directory, or a schema of DATABASE_URL's database. */
  ledger: LedgerLocation;
  book?: AddressBook;
  client: ChainClient;
  routing: RoutingClient;
  config: ResolvedConfig;
  nativeToken?: TokenInfo;
  /** The partner id of our routing API key (ROUTING_PARTNER_ID). */
  partnerId?: bigint;
  /** Adds a cleanup to run (in reverse order) at close. */
  onClose(cleanup: () => Promise<void> | void): void;
  close(): Promise<void>;
};

/**
 * The ledger, per wallet name what runs its trades, and the names of the tokens they trade (for people). `leases`:
 * the wallets this daemon holds; `group`: the daemons sharing its ledger, which shares the wallets out (neither where
 * a test wires executors by hand).
 */
export type Execution = { ledger: Ledger; executors: Map<string, PipelineDeps>; names: TokenNames; leases?: WalletLeases; group?: DaemonGroup };

/**
 * Opens the ledger and one sender and executor per wallet; closed with the runtime. `daemon`: a long-running daemon
 * (`run`), which shares the wallets with the other daemons of a PostgreSQL ledger; otherwise (`once`) every wallet's
 * lease is taken at once, or the command refused when another daemon holds one.
 */
export async function openExecution(
  runtime: Runtime,
  options: { dryRun?: boolean; onStage?: RuntimeOptions['onStage']; daemon?: boolean } = {},
): Promise<Execution> {
  const ledger = await Ledger.open(runtime.ledger, { chain: runtime.chain });
  runtime.onClose(() => ledger.close());
  // The wallets' leases: a daemon's fair share on a PostgreSQL ledger that other daemons share, else all of them.
  // A clean stop hands them back at once.
  const leases = new WalletLeases(ledger, { chainId: runtime.chainId, ttlMs: runtime.leaseSeconds * 1000 });
  const group = new DaemonGroup(ledger, leases, {
    wallets: [...runtime.config.wallets.values()].map((wallet) => wallet.account.address),
    share: options.daemon === true && runtime.ledger.kind === 'postgres',
    listed: options.daemon === true,
    strategyFile: runtime.configFile,
    strategyDigest: runtime.strategyDigest,
    shareRateLimit: (daemons) => runtime.routing.limiter.shareAmong(daemons),
  });
  await group.join();
  runtime.onClose(() => group.leave());
  await ledger.marks.nameTokens([...runtime.config.tokens, ...(runtime.nativeToken ? [runtime.nativeToken] : [])]);
  const { config, chainId, client, routing } = runtime;
  const feeCap = config.defaults.maxFeePerGasGwei === undefined ? undefined : parseGwei(config.defaults.maxFeePerGasGwei);
  const settings = {
    ...defaultExecutionSettings,
    dryRun: options.dryRun ?? false,
    approvals: config.defaults.approvals,
    feeCap,
    maxPriceDeviationBps: config.defaults.maxPriceDeviationBps,
  };
  const checks = chainChecks(client, chainId, runtime.book, runtime.partnerId);
  const tolerances = new Map(config.strategies.map((strategy) => [strategy.id, strategy.maxPriceDeviationBps]));
  const strategyBudgets = new Map<string, Budget[]>();
  for (const strategy of config.strategies) {
    if (strategy.kind === 'dca' && strategy.budget) {
      const { address, symbol, decimals } = strategy.sell;
      strategyBudgets.set(strategy.id, [{ token: address, symbol, decimals, perDay: strategy.budget.perDay, total: strategy.budget.total }]);
    }
  }
  const sharedQuotes = new SharedQuotes(() => getBlockNumber(client));
  const fits = strategyFit(config.strategies, (strategy) => config.wallets.get(strategy.wallet)?.account.address);
  const executors = new Map<string, PipelineDeps>();
  const recorder = new TradeRecorder(ledger);
  const tagScope = ledger.id().then((ledgerId) => ({ ledgerId, paper: runtime.mode === 'fork' }));
  for (const configured of config.wallets.values()) {
    // Paper trading never signs with the real key: the fork node sends as the wallet (impersonated at start-up).
    const wallet = new Wallet({
      client,
      account: configured.account,
      impersonate: runtime.mode === 'fork',
      chainId,
      journal: recorder.journal,
      settings: { feeCap, confirmations: confirmationsFor(runtime) },
      onStage: options.onStage,
      fence: () => leases.fenceFor(configured.account.address),
      tagScope,
    });
    const budgets = { strategy: (id: string) => strategyBudgets.get(id) ?? [], wallet: configured.budgets };
    const executor: PipelineDeps = {
      reads: ledger,
      recorder,
      routing,
      ...checks,
      wallet,
      settings,
      budgets,
      priceTolerance: (id) => tolerances.get(id),
      nativeToken: runtime.nativeToken?.address,
      sharedQuotes,
      fits,
      // A devnet's or a fork's ledger is this start's own: its wallets start where the chain is.
      history: new SignedHistory({ ledger, wallet, approvals: settings.approvals, startsAtTheChain: runtime.mode !== 'network' }),
    };
    const view = { client, prices: executor.prices, wallet: wallet.address, nativeToken: runtime.nativeToken, now: Date.now };
    executor.stillAsked = stillAskedBy(config.strategies, (strategy) => decide(strategy, { executor, view }));
    executors.set(configured.name, executor);
  }
  await describeForStatus(runtime, ledger, executors);
  return { ledger, executors, names: new TokenNames(await ledger.marks.tokenNames()), leases, group };
}

/**
 * What `status` needs besides the trades, written at every start: the strategies as resolved (with their
 * wallets' addresses), the chain's native coin, and the block explorer of a real network (a fork's or a devnet's
 * transactions are on no explorer).
 */
async function describeForStatus(runtime: Runtime, ledger: Ledger, executors: ReadonlyMap<string, PipelineDeps>): Promise<void> {
  await ledger.strategies.describe(
    runtime.config.strategies.map((strategy) => ({
      id: strategy.id,
      kind: strategy.kind,
      walletName: strategy.wallet,
      wallet: (executors.get(strategy.wallet) as PipelineDeps).wallet.address,
      definition: toJson(strategy),
    })),
  );
  if (runtime.nativeToken) await ledger.strategies.setMeta('native-token', toJson(runtime.nativeToken));
  // An address book describes its own deployment (a devnet may share Celo's chain id): only its explorer counts.
  const explorer = runtime.mode !== 'network' ? undefined : runtime.book ? runtime.book.explorer : runtime.client.chain.blockExplorers?.default.url;
  await ledger.strategies.setMeta('explorer', explorer ?? '');
}

/** Blocks before a trade counts as mined on a real network when neither the strategy file nor the address book says. */
export const networkConfirmations = 3;

/** The strategy file's `confirmations`, else the address book's, else 1 on a devnet or fork and 3 on a network. */
export function confirmationsFor(runtime: Pick<Runtime, 'config' | 'book' | 'mode'>): number {
  return runtime.config.defaults.confirmations ?? runtime.book?.confirmations ?? (runtime.mode === 'network' ? networkConfirmations : 1);
}

/** What to undo at close, in the reverse order of what was started. */
type Cleanups = (() => Promise<void> | void)[];

export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { env, signal } = options;
  const cleanups: Cleanups = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  // URLs given by the user may carry keys: from here on they are redacted wherever text is written.
  for (const url of env.RPC_URL ?? []) registerSecretUrl(url);
  const databaseUrl = databaseUrlOf(options.database, env);
  registerSecretUrl(databaseUrl);
  registerSecretUrl(env.ROUTING_SERVICE_URL);
  try {
    // Everything the user wrote is read and checked before any chain is started.
    const configFile = options.configFile ?? env.ROUTEKEEPER_CONFIG ?? defaultConfigFile;
    const strategyFile = loadStrategyFile(configFile);
    const namedBook = options.addressBookFile ? loadAddressBook(options.addressBookFile) : undefined;
    const namedUrls = env.RPC_URL ?? (namedBook?.rpcUrl ? [namedBook.rpcUrl] : []);
    const embedded = namedUrls.length === 0;
    refuseChainOptions(options, embedded);
    // The secret the routing service this process starts knows its daemon by (routing/server.ts: ownClientToken).
    const ownClientToken = randomBytes(32).toString('hex');
    const keys = await readWalletKeys(strategyFile, configFile, embedded, options);
    const started = await startChain(options, { book: namedBook, rpcUrls: namedUrls, ownClientToken }, cleanups);
    const { mode, rpcUrls, book } = started;
    const accounts = withDevnetAccounts(keys, book);

    const chain = await commonChainOf(rpcUrls);
    const { chainId } = chain;
    const dataDir = resolve(env.ROUTEKEEPER_DATA_DIR ?? defaultDataDir);
    const ledger = ledgerLocationOf({ mode, chain, forkBlock: started.forkBlock, databaseUrl, dataDir, inspectOnly: options.inspectOnly });
    // A stop also ends requests in flight (a node may hold eth_sendRawTransactionSync for seconds), once the
    // grace that trades already sent get to settle is over.
    const requestsEnd = afterGrace(signal, stopGraceMs + 500);
    const rpcUrl = rpcUrls[0] as string;
    const client = createPublicClient({
      chain: chainFor(chainId, rpcUrl),
      transport: nodeTransport(rpcUrls, { batch: true, signal: requestsEnd }),
      pollingInterval: 1_000,
    });
    const service = await routingOf({ env, mode, chainId, rpcUrl, book, dataDir, ownClientToken, defaults: strategyFile.defaults.routing }, cleanups);
    throwIfAborted(signal);
    // The demo trades within seconds of `npm start`; a real chain (or its paper-trading fork) waits for the slot.
    const config = await resolveConfig(strategyFile, { client, chainId, book, accounts, firstRun: mode === 'embedded devnet' ? 'now' : 'slot' });
    throwIfAborted(signal);
    if (mode === 'fork') {
      const testClient = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
      for (const wallet of config.wallets.values()) await testClient.impersonateAccount({ address: wallet.account.address });
    }
    // The strategies' version, as the daemons sharing a ledger compare them: their definitions, not the file's layout.
    const strategyDigest = createHash('sha256').update(toJson(strategyFile)).digest('hex').slice(0, 12);
    return {
      mode,
      chainId,
      chain,
      rpcUrls,
      ...service,
      configFile,
      strategyDigest,
      leaseSeconds: env.ROUTEKEEPER_LEASE_SECONDS ?? defaultLeaseMs / 1000,
      ledger,
      book,
      client,
      config,
      nativeToken: await nativeTokenOf(client, chainId, book),
      partnerId: env.ROUTING_PARTNER_ID,
      onClose: (cleanup) => cleanups.push(cleanup),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The chain options that contradict each other or the environment, refused before anything starts. */
function refuseChainOptions(options: RuntimeOptions, embedded: boolean): void {
  if (options.devnet && !embedded) throw new ConfigError('--devnet starts the embedded devnet: unset RPC_URL (and leave out --address-book) to use it');
  if (embedded && options.fork) throw new ConfigError('--fork needs RPC_URL: the chain to fork');
  if (embedded && options.env.ROUTEKEEPER_REQUIRE_RPC_URL && !options.devnet) {
    throw new ConfigError('RPC_URL is not set, and ROUTEKEEPER_REQUIRE_RPC_URL=true: give the chain to trade on, or pass --devnet to try the embedded devnet');
  }
}

/**
 * Wallet keys, read once, before any chain starts. On the embedded devnet a wallet of the devnet's key variable that is
 * not set gets the devnet's test key (`devnetWallets`), once the devnet is up.
 */
async function readWalletKeys(strategyFile: StrategyFile, configFile: string, embedded: boolean, options: RuntimeOptions) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const accounts = new Map<string, LocalAccount>();
  const devnetWallets: string[] = [];
  const readKeys = new Map<string, LocalAccount>();
  for (const [name, wallet] of Object.entries(strategyFile.wallets)) {
    const devnetSupplies = embedded && wallet.privateKeyEnv === devnetKeyVariable && !secretFromEnv(env, devnetKeyVariable, `wallets.${name}.privateKeyEnv`);
    if (devnetSupplies) devnetWallets.push(name);
    else {
      // Two wallets of one key share its reading: the variable is gone from the environment once read.
      const source = JSON.stringify([wallet.privateKeyEnv, wallet.keystore, wallet.passwordFile]);
      const account = readKeys.get(source) ?? (await walletAccount(name, wallet, { env, configFile, askPassword: options.askPassword ?? terminalPassword }));
      readKeys.set(source, account);
      accounts.set(name, account);
    }
  }
  return { accounts, devnetWallets };
}

/** The wallets' accounts, the devnet's test key for those it supplies. */
function withDevnetAccounts(keys: { accounts: Map<string, LocalAccount>; devnetWallets: readonly string[] }, book: AddressBook | undefined) {
  const testKey = book?.accounts[0]?.privateKey;
  for (const name of keys.devnetWallets) if (testKey) keys.accounts.set(name, privateKeyToAccount(testKey));
  return keys.accounts;
}

/**
 * The chain to trade on: the one named; else the embedded devnet, with its routing service and a funded test account;
 * or, for --fork, a fork of the one named.
 */
async function startChain(
  options: RuntimeOptions,
  named: { book: AddressBook | undefined; rpcUrls: string[]; ownClientToken: string },
  cleanups: Cleanups,
): Promise<{ mode: Runtime['mode']; rpcUrls: string[]; book: AddressBook | undefined; forkBlock?: bigint }> {
  const { signal } = options;
  if (named.rpcUrls.length === 0) {
    const devnet = await startDevnet({ signal, uniswapV3: true, mento: true });
    cleanups.push(() => devnet.stop());
    throwIfAborted(signal);
    cleanups.push(mineEvery(devnet.node.rpcUrl, 5_000));
    // The oracle reports the world's prices again every minute, as real feeds do on a heartbeat.
    cleanups.push(reportEvery(devnet.node.rpcUrl, devnet.addressBook, 60_000));
    // Its one-observation pools see swap volume every few blocks, as Celo's busy pools do.
    cleanups.push(tradeInBusyPools(devnet.node.rpcUrl, devnet.addressBook));
    const routing = await startDevnetRoutingService(devnet.addressBook, { ownClientToken: named.ownClientToken });
    cleanups.push(() => routing.service.close());
    return { mode: 'embedded devnet', rpcUrls: [routing.addressBook.rpcUrl], book: routing.addressBook };
  }
  if (!options.fork) return { mode: 'network', rpcUrls: named.rpcUrls, book: named.book };
  // The chain forked must answer first: anvil's own failure would say less.
  await commonChainOf(named.rpcUrls);
  const node = await forkChain(named.rpcUrls[0] as string);
  cleanups.push(() => node.stop());
  throwIfAborted(signal);
  const forkBlock = await createPublicClient({ transport: http(node.rpcUrl) }).getBlockNumber();
  return { mode: 'fork', rpcUrls: [node.rpcUrl], book: named.book, forkBlock };
}

/**
 * The ledger belongs to one chain. A devnet or a fork is a new chain at every start: a ledger of its own, named after
 * it; earlier files are removed unless a live process holds them (`check` only looks).
 */
function ledgerLocationOf(at: {
  mode: Runtime['mode'];
  chain: Awaited<ReturnType<typeof commonChainOf>>;
  forkBlock?: bigint;
  databaseUrl?: string;
  dataDir: string;
  inspectOnly?: boolean;
}): LedgerLocation {
  const kind = at.mode === 'network' ? undefined : at.mode === 'fork' ? 'fork' : 'devnet';
  if (kind && !at.databaseUrl && !at.inspectOnly) removeStaleThrowawayLedgers(at.dataDir, kind);
  return at.databaseUrl
    ? { kind: 'postgres', url: at.databaseUrl, schema: kind ? throwawaySchema(kind, at.chain, at.forkBlock) : networkSchema }
    : { kind: 'sqlite', file: kind ? throwawayLedgerFile(at.dataDir, kind, at.chain, at.forkBlock) : join(at.dataDir, networkLedgerName) };
}

/**
 * The routing service: the one named, else one of our own in this process over the chain's node (the hosted service
 * the API was written for has been offline since 2023). A fork's index is its own, never kept.
 */
async function routingOf(
  at: {
    env: RuntimeOptions['env'];
    mode: Runtime['mode'];
    chainId: number;
    rpcUrl: string;
    book: AddressBook | undefined;
    dataDir: string;
    ownClientToken: string;
    defaults: StrategyFile['defaults']['routing'];
  },
  cleanups: Cleanups,
): Promise<Pick<Runtime, 'serviceUrl' | 'serviceKind' | 'routing'>> {
  const { env, mode, chainId, dataDir } = at;
  const namedService = env.ROUTING_SERVICE_URL ?? at.book?.routingServiceUrl;
  let serviceUrl = namedService;
  if (!serviceUrl) {
    const cacheFile = mode === 'network' ? join(dataDir, `routing-index-${chainId}.json`) : undefined;
    if (cacheFile) mkdirSync(dataDir, { recursive: true });
    const service = await startRoutingService({ ...routingSetupFor(chainId, at.rpcUrl, at.book), cacheFile, ownClientToken: at.ownClientToken });
    cleanups.push(() => service.close());
    serviceUrl = service.url;
  }
  const serviceKind: Runtime['serviceKind'] = mode === 'embedded devnet' ? 'devnet' : namedService ? 'remote' : 'embedded';
  const rateLimit = rateLimitFor(serviceUrl, { requestsPerSecond: env.ROUTING_REQUESTS_PER_SECOND, maxConcurrent: env.ROUTING_MAX_CONCURRENT }, at.defaults);
  // A service this process started (the embedded devnet's, or its own) counts its requests apart from any other client's.
  const clientToken = serviceKind === 'remote' ? undefined : at.ownClientToken;
  const routing = createRoutingClient({ baseUrl: serviceUrl, apiKey: env.ROUTING_API_KEY, clientToken, chainId, rateLimit });
  return { serviceUrl, serviceKind, routing };
}

/** The chain's native coin as an ERC20 (CELO on Celo): strategies value gas in it, so one listed that cannot be read is an error, not "free gas". */
async function nativeTokenOf(client: ChainClient, chainId: number, book: AddressBook | undefined) {
  const native = tokenDirectory(chainId, book).tokens.CELO;
  if (!native) return undefined;
  return readTokenInfo(client, native.address).catch((error: unknown) => {
    throw new ConfigError(`cannot read the native token ${native.address} on chain ${chainId}: ${(error as Error).message.split('\n')[0]}`);
  });
}
