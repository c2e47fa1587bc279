/**
 * `routekeeper run` as a child process against a devnet fork (a test's own strategies and data directory), and
 * the one check every hostile-world test ends with: the ledger equals the chain.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, type Hex, parseAbiItem } from 'viem';
import { expect } from 'vitest';
import { Ledger, type LedgerLocation, type LedgerView } from '../../src/ledger/ledger.ts';
import { openStates } from '../../src/model/trade.ts';
import { RecordTags } from '../../src/model/record-tags.ts';
import { privateKeyToAccount } from 'viem/accounts';
import { spawnCli } from './cli.ts';
import type { DevnetFork } from './devnet.ts';
import { waitFor } from './wait.ts';

const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);

export type DaemonProcess = {
  child: ChildProcessWithoutNullStreams;
  /** The JSON log lines so far. */
  lines: Record<string, unknown>[];
  stderr(): string;
  exited: Promise<number | null>;
  waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs?: number, pollMs?: number): Promise<true>;
  /** The port of /healthz and /metrics, once it listens. */
  port(): Promise<number>;
};

/** A directory of its own for one daemon: its address book (RPC_URL may point elsewhere) and data. */
export function daemonHome(fork: DevnetFork, name: string) {
  const dir = mkdtempSync(join(tmpdir(), `routekeeper-${name}-`));
  const book = join(dir, 'address-book.json');
  writeFileSync(book, JSON.stringify(fork.addressBook));
  const config = (yaml: string) => {
    const file = join(dir, `strategies-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, yaml);
    return file;
  };
  return { dir, book, dataDir: join(dir, 'data'), ledgerFile: join(dir, 'data', 'ledger.sqlite'), config };
}

/** Strategies of one wallet, each a DCA of `amount` every `every`; `start` in the future makes them wait (settle only). */
export function dcaYaml(
  strategies: { id: string; sell: string; buy: string; amount: string; every: string }[],
  options: { start?: string; defaults?: string } = {},
) {
  const start = options.start ? `, start: "${options.start}"` : '';
  return `
defaults: { confirmations: 1, firstRun: now${options.defaults ? `, ${options.defaults}` : ''} }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
${strategies.map((s) => `  - { id: ${s.id}, kind: dca, wallet: main, every: ${s.every}, sell: { token: ${s.sell}, amount: "${s.amount}" }, buy: ${s.buy}${start} }`).join('\n')}
`;
}

/** A one-shot take-profit of one wallet selling 1 CELO for cUSD whatever the price, looked at every `every`. */
export function takeProfitYaml(every: string) {
  return `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: take, kind: limit, wallet: main, every: ${every}, sell: { token: CELO, amount: "1" }, buy: cUSD, takeProfit: "0.01", repeat: false }
`;
}

/** The environment of a command run in `home` on its address book alone, trading from the wallet of `privateKey`. */
export const homeEnv = (home: { dataDir: string }, privateKey: string) => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTEKEEPER_CONFIG: '',
  ROUTEKEEPER_DATA_DIR: home.dataDir,
  ROUTEKEEPER_PRIVATE_KEY: privateKey,
});

export function spawnDaemon(home: { book: string; dataDir: string }, config: string, env: Record<string, string>): DaemonProcess {
  const child = spawnCli(['run', '--config', config, '--address-book', home.book], {
    RPC_URL: '',
    ROUTING_SERVICE_URL: '',
    ROUTING_API_KEY: '',
    ROUTEKEEPER_CONFIG: '',
    ROUTEKEEPER_DATA_DIR: home.dataDir,
    METRICS_PORT: '0',
    ...env,
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const part of parts) {
      if (!part.trim()) continue;
      try {
        lines.push(JSON.parse(part));
      } catch {
        lines.push({ msg: part });
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const until = (predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000, pollMs = 50) =>
    waitFor(predicate, what, timeoutMs, { pollMs, explain: () => `stderr: ${stderr}; log: ${lines.map((l) => l.msg).join(' | ')}` });
  const port = async () => {
    await until(() => lines.some((line) => typeof line.port === 'number'), 'the metrics port');
    return lines.find((line) => typeof line.port === 'number')?.port as number;
  };
  return { child, lines, stderr: () => stderr, exited, waitFor: until, port };
}

/**
 * Starts the daemon with the same strategies waiting for a far start, so it only settles what earlier runs left
 * open; stops it (SIGTERM) once the ledger has nothing open.
 */
export async function settleWithDaemon(
  home: ReturnType<typeof daemonHome>,
  yaml: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
  ledger: string | LedgerLocation = home.ledgerFile,
): Promise<void> {
  const settler = spawnDaemon(home, home.config(yaml), env);
  const settled = async () => (await openIntents(ledger)).length === 0 && settler.lines.some((line) => typeof line.port === 'number');
  await waitFor(settled, 'every trade settled', timeoutMs, {
    explain: async () => `still open: ${JSON.stringify(await openIntents(ledger))}; log: ${settler.lines.map((l) => l.msg).join(' | ')}`,
  }).catch((error: unknown) => {
    settler.child.kill('SIGKILL');
    throw error;
  });
  settler.child.kill('SIGTERM');
  expect(await settler.exited).toBe(0);
}

async function openIntents(where: string | LedgerLocation): Promise<{ id: string; status: string; reason?: string }[]> {
  let ledger: LedgerView;
  try {
    ledger = await Ledger.openReadOnly(where);
  } catch {
    return [];
  }
  try {
    return (await ledger.trades.history({ limit: 100_000 }))
      .filter((intent) => openStates.includes(intent.status))
      .map((intent) => ({ id: intent.id, status: intent.status, reason: intent.failure?.reason }));
  } finally {
    await ledger.close();
  }
}

/**
 * The ledger equals the chain: every swap the wallet made since `fromBlock` is exactly one confirmed trade (same
 * hash, same amount paid), every confirmed trade is one of those swaps, no trade has two mined transactions,
 * and nothing is left open. Returns the number of swaps.
 */
export async function expectLedgerEqualsChain(fork: DevnetFork, where: string | LedgerLocation, wallet: Address, fromBlock: bigint): Promise<number> {
  const swaps = await fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: wallet }, fromBlock });
  const ledger = await Ledger.openReadOnly(where);
  try {
    const intents = (await ledger.trades.history({ limit: 100_000 })).filter((intent) => intent.wallet.toLowerCase() === wallet.toLowerCase());
    expect(intents.filter((intent) => openStates.includes(intent.status)).map((intent) => [intent.id, intent.status, intent.failure?.reason])).toEqual([]);
    expect(intents.filter((intent) => intent.status === 'anomaly').map((intent) => [intent.id, intent.anomaly])).toEqual([]);
    const confirmed = intents.filter((intent) => intent.status === 'confirmed');
    const byHash = new Map<Hex, bigint | undefined>(confirmed.map((intent) => [intent.settlement?.txHash as Hex, intent.settlement?.amountOut]));
    expect(byHash.size).toBe(confirmed.length);
    expect([...byHash.keys()].sort()).toEqual(swaps.map((swap) => swap.transactionHash).sort());
    for (const swap of swaps) expect(byHash.get(swap.transactionHash)).toBe(swap.args.outputAmount);
    for (const intent of intents) {
      const mined = (await ledger.attempts.ofTrade(intent.id)).filter((attempt) => attempt.purpose === 'trade' && attempt.status === 'mined');
      expect(mined.length, intent.id).toBeLessThanOrEqual(1);
    }
    return swaps.length;
  } finally {
    await ledger.close();
  }
}

/**
 * What `routekeeper adopt --nonce N` writes (test/cli/adopt.test.ts runs the command itself), for a test world that
 * used its wallet before the daemon: the ledger's record of the wallet starts at the chain's count now.
 */
export async function adoptWallet(fork: DevnetFork, where: string | LedgerLocation, privateKey: Hex): Promise<void> {
  const account = privateKeyToAccount(privateKey);
  const count = await fork.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const ledger = await Ledger.open(where);
  try {
    const tags = new RecordTags(
      account,
      ledger.id().then((ledgerId) => ({ ledgerId, paper: false })),
    );
    const chainId = fork.addressBook.chainId;
    await ledger.attempts.startSignedFrom(account.address, chainId, { nonce: count, tag: await tags.signedFrom(account.address, chainId, count) });
  } finally {
    await ledger.close();
  }
}
