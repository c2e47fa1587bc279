/** The pipeline's dependencies wired to a devnet fork, as the daemon wires them, with a fresh ledger per call. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, type Hex, createPublicClient, http, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { SignedHistory } from '../../src/trade/signed-history.ts';
import { Wallet, type WalletDeps, type WalletSettings } from '../../src/chain/wallet.ts';
import { chainChecks } from '../../src/trade/check.ts';
import { Ledger, type LedgerLocation } from '../../src/ledger/ledger.ts';
import { TradeRecorder } from '../../src/trade/recorder.ts';
import { createRoutingClient } from '../../src/routing-client/client.ts';
import { type PipelineDeps, runTrade } from '../../src/trade/pipeline.ts';
import { type ExecutionSettings, type TradeBudgets, defaultExecutionSettings } from '../../src/trade/settings.ts';
import type { SwapTrade, TradeReport } from '../../src/model/trade.ts';
import type { DcaStrategy, LimitStrategy } from '../../src/strategy/types.ts';
import type { DevnetFork } from './devnet.ts';
import type { QuoteProxy, Rewrite } from './quote-proxy.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';

/** An executor as the runtime builds one, with the whole ledger beside it for the test to read and write. */
export type TestExecutor = PipelineDeps & { ledger: Ledger; close(): Promise<void>; ledgerFile: string };

/** A DCA strategy of the fork's first account (wallet `main`): 100 cUSD into CELO every hour, 0.5% slippage. */
export function dcaStrategy(fork: DevnetFork, overrides: Partial<DcaStrategy> = {}): DcaStrategy {
  return {
    id: 'dca',
    kind: 'dca',
    wallet: 'main',
    schedule: { everyMs: 3_600_000, jitterMs: 0, catchUp: 'once', firstRun: 'now' },
    slippageBps: 50,
    sell: { address: fork.token('cUSD'), symbol: 'cUSD', decimals: 18 },
    amount: parseUnits('100', 18),
    buy: { address: fork.token('CELO'), symbol: 'CELO', decimals: 18 },
    ...overrides,
  };
}

/** A one-shot limit order of the fork's first account selling 100 CELO for cUSD, checked every minute; give it its trigger. */
export function limitStrategy(fork: DevnetFork, overrides: Partial<LimitStrategy> = {}): LimitStrategy {
  return {
    id: 'limit',
    wallet: 'main',
    kind: 'limit',
    schedule: { everyMs: 60_000, jitterMs: 0, catchUp: 'skip', firstRun: 'now' },
    slippageBps: 50,
    sell: { address: fork.token('CELO'), symbol: 'CELO', decimals: 18 },
    amount: parseUnits('100', 18),
    buy: { address: fork.token('cUSD'), symbol: 'cUSD', decimals: 18 },
    repeat: false,
    ...overrides,
  };
}

/** What a hostile test compares before and after: the account's nonce, cUSD and CELO. */
export async function walletState(fork: DevnetFork, address: Address) {
  return {
    nonce: await fork.publicClient.getTransactionCount({ address }),
    usd: await fork.balanceOf(fork.token('cUSD'), address),
    celo: await fork.balanceOf(fork.token('CELO'), address),
  };
}

/** A swap of 100 cUSD for CELO from the fork's first account, named `<strategyId>:<slot>`; tests override what they need. */
export function swapTrade(fork: DevnetFork, strategyId: string, slot: string, overrides: Partial<SwapTrade> = {}): SwapTrade {
  return {
    id: `${strategyId}:${slot}`,
    strategyId,
    slot,
    wallet: fork.addressBook.accounts[0]?.address as Address,
    chainId: fork.addressBook.chainId,
    kind: 'swap',
    tokenIn: fork.token('cUSD'),
    tokenOut: fork.token('CELO'),
    amountIn: parseUnits('100', 18),
    slippageBps: 50,
    ...overrides,
  };
}

export async function testExecutor(
  fork: DevnetFork,
  options: {
    account?: number;
    serviceUrl?: string;
    settings?: Partial<ExecutionSettings>;
    wallet?: Partial<WalletSettings>;
    budgets?: TradeBudgets;
    ledgerFile?: string;
    onStage?: WalletDeps['onStage'];
    /** The wallet's lease fence (engine/leases.ts); none: no lease kept. */
    fence?: (ledger: Ledger) => WalletDeps['fence'];
    rpcUrl?: string;
    /** Another address book for the same chain (a test's own tokens and price sources). */
    addressBook?: DevnetFork['addressBook'];
    /** A ledger of another backend (a PostgreSQL schema) instead of a SQLite file. */
    location?: LedgerLocation;
    /** Whether a trade read back from the ledger fits a strategy (none: not checked). */
    fits?: PipelineDeps['fits'];
    /**
     * false: a wallet the chain shows used is not started where the chain is at the ledger's first proof, as a real
     * network's ledger does not (test worlds use their wallets before a ledger knows them: approvals, positions).
     */
    adoptsWallet?: boolean;
  } = {},
): Promise<TestExecutor> {
  const book = options.addressBook ?? fork.addressBook;
  const key = book.accounts[options.account ?? 0]?.privateKey;
  if (!key) throw new Error('no funded account');
  const ledgerFile = options.ledgerFile ?? join(mkdtempSync(join(tmpdir(), 'routekeeper-exec-')), 'ledger.sqlite');
  const ledger = await Ledger.open(options.location ?? ledgerFile);
  const recorder = new TradeRecorder(ledger);
  const client = createPublicClient({ chain: fork.chain, transport: http(options.rpcUrl ?? book.rpcUrl, { batch: true }), pollingInterval: 50, cacheTime: 0 });
  const wallet = new Wallet({
    client,
    account: privateKeyToAccount(key),
    chainId: book.chainId,
    journal: recorder.journal,
    settings: { pollMs: 50, stuckAfterMs: 60_000, giveUpAfterMs: 30_000, syncWaitMs: 200, ...options.wallet },
    onStage: options.onStage,
    fence: options.fence?.(ledger),
    tagScope: ledger.id().then((ledgerId) => ({ ledgerId, paper: false })),
  });
  const routing = createRoutingClient({
    baseUrl: options.serviceUrl ?? book.routingServiceUrl,
    chainId: book.chainId,
    rateLimit: { requestsPerSecond: 1000, maxConcurrent: 8 },
    retry: { maxRetries: 1, maxTotalMs: 2_000, baseDelayMs: 10, maxDelayMs: 10 },
  });
  return {
    ledger,
    reads: ledger,
    recorder,
    routing,
    ...chainChecks(client, book.chainId, book),
    wallet,
    settings: { ...defaultExecutionSettings, ...options.settings },
    budgets: options.budgets,
    fits: options.fits,
    history: new SignedHistory({
      ledger,
      wallet,
      approvals: options.settings?.approvals ?? defaultExecutionSettings.approvals,
      startsAtTheChain: options.adoptsWallet !== false,
    }),
    ledgerFile,
    close: () => ledger.close(),
  };
}

/**
 * The node requests of a trade by a warm executor (each an HTTP request of batched calls, through a counting proxy):
 * `warm` runs first (an approval, facts read once per process), then `trade`, whose report and requests are returned.
 */
export async function warmTradeRequests(
  fork: DevnetFork,
  serviceUrl: string,
  warm: () => SwapTrade,
  trade: () => SwapTrade,
): Promise<{ report: TradeReport; requests: string[][] }> {
  const node = await startRpcProxy(fork.addressBook.rpcUrl);
  const executor = await testExecutor(fork, { serviceUrl, rpcUrl: node.url, settings: { approvals: 'unlimited' } });
  try {
    const warmed = await runTrade(executor, warm());
    expect(warmed.status, warmed.reason).toBe('confirmed');
    const before = node.requests();
    const report = await runTrade(executor, trade());
    return { report, requests: node.log().slice(before) };
  } finally {
    await executor.close();
    await node.close();
  }
}

/**
 * A trade's requests to the node as the pipeline makes them: one batch of the checks (the block, the simulation, the
 * Mento states' deployless call among them), the send, and the read after it.
 */
export function expectThreeTradeRequests(requests: readonly string[][]): void {
  expect(requests, requests.map((calls) => calls.join(', ')).join('\n')).toHaveLength(3);
  const [checks, sends] = requests as [string[], string[]];
  expect(checks).toEqual(expect.arrayContaining(['eth_simulateV1', 'eth_call deployless', 'eth_getBlockByNumber']));
  expect(sends).toEqual(['eth_sendRawTransactionSync']);
}

/**
 * Runs a trade with the service's answers coming through `proxy`, rewritten by `rewrite` when given (a lying service):
 * the report, and the route the daemon was given.
 */
export async function runThroughQuoteProxy(
  fork: DevnetFork,
  proxy: QuoteProxy,
  swap: SwapTrade,
  rewrite?: Rewrite,
): Promise<{ report: TradeReport; route?: { pairs: string[]; extras: Hex[] } }> {
  let route: { pairs: string[]; extras: Hex[] } | undefined;
  proxy.setRewrite((body, path) => {
    const changed = rewrite ? rewrite(body, path) : body;
    route ??= changed.details;
    return changed;
  });
  const executor = await testExecutor(fork, { serviceUrl: proxy.url });
  try {
    return { report: await runTrade(executor, swap), route };
  } finally {
    await executor.close();
    proxy.setRewrite(undefined);
  }
}

/** A test file's executor over its fork: opened before the file's tests, closed after them. */
export function useTestExecutor(
  fork: DevnetFork,
  options: Parameters<typeof testExecutor>[1] & {
    eachTest?: boolean;
    /** The address book of the chain as the test sees it, once the fork has started (default: the fork's). */
    book?: () => DevnetFork['addressBook'];
  } = {},
): () => TestExecutor {
  let executor: TestExecutor | undefined;
  // One per file, unless its tests sign: the chain is reverted between tests, and a wallet's nonces and a ledger's
  // trades must go back with it, so each test then gets its own.
  const [open, close] = options.eachTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  open(async () => {
    executor = await testExecutor(fork, { ...options, ...(options.book && { addressBook: options.book() }) });
  });
  close(() => executor?.close());
  return () => {
    if (!executor) throw new Error('useTestExecutor: the executor is opened before the tests run');
    return executor;
  };
}
