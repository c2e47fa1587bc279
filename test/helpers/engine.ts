/** An executor wired to a devnet fork, as the daemon wires it, with a fresh ledger per call. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type SenderSettings, WalletSender } from '../../src/chain/sender.ts';
import { allowlistFor } from '../../src/config/allowlist.ts';
import { type ExecutionSettings, type ExecutorDeps, defaultExecutionSettings } from '../../src/engine/executor.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { createRoutingClient } from '../../src/service/client.ts';
import type { DevnetFork } from './devnet.ts';

export type TestExecutor = ExecutorDeps & { close(): void; ledgerFile: string };

export function testExecutor(
  fork: DevnetFork,
  options: { account?: number; serviceUrl?: string; settings?: Partial<ExecutionSettings>; sender?: Partial<SenderSettings>; ledgerFile?: string } = {},
): TestExecutor {
  const book = fork.addressBook;
  const key = book.accounts[options.account ?? 0]?.privateKey;
  if (!key) throw new Error('no funded account');
  const ledgerFile = options.ledgerFile ?? join(mkdtempSync(join(tmpdir(), 'routekeeper-exec-')), 'ledger.sqlite');
  const ledger = Ledger.open(ledgerFile);
  const client = createPublicClient({ chain: fork.chain, transport: http(book.rpcUrl, { batch: true }), pollingInterval: 50, cacheTime: 0 });
  const sender = new WalletSender({
    client,
    account: privateKeyToAccount(key),
    chainId: book.chainId,
    ledger,
    settings: { pollMs: 50, stuckAfterMs: 60_000, giveUpAfterMs: 30_000, ...options.sender },
  });
  const routing = createRoutingClient({
    baseUrl: options.serviceUrl ?? book.routingServiceUrl,
    chainId: book.chainId,
    rateLimit: { requestsPerSecond: 1000, maxConcurrent: 8 },
    retry: { maxRetries: 1, maxTotalMs: 2_000, baseDelayMs: 10, maxDelayMs: 10 },
  });
  return {
    chainId: book.chainId,
    client,
    ledger,
    routing,
    allowlist: allowlistFor(book.chainId, book),
    sender,
    settings: { ...defaultExecutionSettings, ...options.settings },
    ledgerFile,
    close: () => ledger.close(),
  };
}
