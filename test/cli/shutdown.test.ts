/**
 * Ctrl-C or SIGTERM at any instant stops `routekeeper run` within 5 s with exit 0, records what is in flight, and
 * the interrupted trade resumes at the next start: once, with nothing lost and nothing done twice.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, parseAbiItem, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { spawnCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { startFaultServer } from '../helpers/fault-server.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);
const me = () => fork.addressBook.accounts[0]?.address as Address;

let dir = '';
let bookFile = '';
let configFile = '';
let hangingService: Awaited<ReturnType<typeof startFaultServer>>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'routekeeper-shutdown-'));
  bookFile = join(dir, 'address-book.json');
  writeFileSync(bookFile, JSON.stringify(fork.addressBook));
  configFile = join(dir, 'dca.yaml');
  // Hourly: the slot due at start-up runs once; no other slot comes during a test.
  writeFileSync(
    configFile,
    'defaults: { firstRun: now }\nwallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "9" }, buy: CELO }\n',
  );
  hangingService = await startFaultServer([{ hang: true }]);
});
afterAll(() => hangingService.close());

const env = (dataDir: string, extra: Record<string, string> = {}) => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTING_API_KEY: '',
  ROUTEKEEPER_CONFIG: '',
  ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
  ROUTEKEEPER_DATA_DIR: dataDir,
  METRICS_PORT: '0',
  ...extra,
});

type Child = { child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | NodeJS.Signals | null> };

function start(args: string[], childEnv: NodeJS.ProcessEnv, options: { ownGroup?: boolean } = {}): Child {
  const child = spawnCli(args, childEnv, options);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output, exited: new Promise((resolve) => child.on('close', (code, killedBy) => resolve(code ?? killedBy))) };
}

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  await waitFor(probe, what, timeoutMs);
}

/**
 * Whether routekeeper's own handlers are in: SIGHUP's bit in the SigCgt mask of /proc/<pid>/status. (Node itself
 * catches SIGINT and SIGTERM from its first instant, only to die by them; SIGHUP is caught by our code alone.)
 */
function ourHandlersIn(pid: number): boolean {
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return mask !== undefined && ((BigInt(`0x${mask}`) >> BigInt(constants.signals.SIGHUP - 1)) & 1n) === 1n;
}

/** The pids of a process's children (the embedded devnet's anvil). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s*Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

/** A process that keeps one core busy until stopped: a loaded machine. */
function cpuHog() {
  const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return () => hog.kill('SIGKILL');
}

/** Sends the signal and resolves with the exit code and how long the stop took. */
async function stop(running: Child, signal: NodeJS.Signals, to: 'process' | 'group' = 'process') {
  const sent = Date.now();
  if (to === 'group') process.kill(-(running.child.pid as number), signal);
  else running.child.kill(signal);
  const code = await running.exited;
  return { code, ms: Date.now() - sent };
}

/** The DCA trade as the daemon's ledger has it (undefined while the ledger is not created yet). */
async function intentOf(dataDir: string) {
  if (!existsSync(join(dataDir, 'ledger.sqlite'))) return undefined;
  const ledger = await Ledger.openReadOnly(join(dataDir, 'ledger.sqlite'));
  try {
    const [record] = await ledger.trades.history({ strategyId: 'dca' });
    return record && { ...record, attempts: await ledger.attempts.ofTrade(record.id) };
  } catch {
    return undefined; // created but not migrated yet
  } finally {
    await ledger.close();
  }
}

const runArgs = ['run', '--config', '', '--address-book', ''];
const args = () => runArgs.map((arg, i) => (i === 2 ? configFile : i === 4 ? bookFile : arg));

/** Restarts with the honest service: the interrupted trade resumes and confirms; one swap in all. */
async function restartAndSettle(dataDir: string, fromBlock: bigint, usdBefore: bigint) {
  const again = start(args(), env(dataDir));
  await until('the resumed trade to confirm', async () => (await intentOf(dataDir))?.status === 'confirmed');
  expect((await stop(again, 'SIGTERM')).code).toBe(0);
  const swaps = await fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: me() }, fromBlock });
  expect(swaps).toHaveLength(1);
  expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('9', 18));
  const record = await intentOf(dataDir);
  expect(record?.settlement?.amountOut).toBe(swaps[0]?.args.outputAmount);
  expect(record?.attempts.filter((a) => a.purpose === 'trade')).toHaveLength(1);
}

type Instant = 'loading' | 'devnet starting' | 'running';
const instants: { at: Instant; signal: NodeJS.Signals; to: 'process' | 'group'; loaded: boolean }[] = [
  { at: 'loading', signal: 'SIGINT', to: 'process', loaded: false },
  { at: 'loading', signal: 'SIGTERM', to: 'group', loaded: true },
  { at: 'devnet starting', signal: 'SIGINT', to: 'group', loaded: false },
  { at: 'devnet starting', signal: 'SIGTERM', to: 'process', loaded: true },
  { at: 'running', signal: 'SIGINT', to: 'group', loaded: true },
  { at: 'running', signal: 'SIGHUP', to: 'process', loaded: false },
];

describe('stopping routekeeper run', () => {
  // Each instant is found by what the process does, so a loaded machine moves it along instead of missing it.
  for (const { at, signal, to, loaded } of instants) {
    it(`${signal} to the ${to} while ${at}${loaded ? ', one core kept busy beside it' : ''}: exit 0 within 5 s, one line on what is left, nothing left running`, {
      timeout: 120_000,
    }, async () => {
      const stopHog = loaded ? cpuHog() : () => {};
      try {
        const dataDir = mkdtempSync(join(tmpdir(), 'routekeeper-startup-'));
        const running = start(['run'], env(dataDir, { ROUTEKEEPER_PRIVATE_KEY: '' }), { ownGroup: true });
        const pid = running.child.pid as number;
        await until('our signal handlers', () => ourHandlersIn(pid), 20_000);
        let node: number | undefined;
        if (at === 'devnet starting') await until('the devnet node to start', () => (node = childrenOf(pid)[0]) !== undefined, 20_000);
        if (at === 'running') {
          // The embedded devnet deploys its whole world (V2, V3 and Mento) before the status page is up: on a loaded
          // machine beside a second run, 30 s was once not enough.
          await until('the status page line', () => running.output().includes('status page http'), 75_000);
          node = childrenOf(pid)[0];
        }
        const { code, ms } = await stop(running, signal, to);
        const output = running.output();
        expect(code, output).toBe(0);
        expect(ms, output).toBeLessThan(5_000);
        expect(output).not.toMatch(/^\s+at /m);
        expect(output).not.toMatch(/"level":(50|60)/);
        expect(output).not.toContain('failed');
        const last = output.trimEnd().split('\n').at(-1) ?? '';
        expect(last, output).toMatch(
          at === 'loading'
            ? new RegExp(`stopped by ${signal} (before starting; nothing was started|during start-up: nothing was started)`)
            : new RegExp(
                `stopped by ${signal}(: nothing is left open|: \\d+ trades? left open, settled at the next start| during start-up: nothing was started)`,
              ),
        );
        if (node !== undefined) expect(alive(node), `anvil ${node} still running`).toBe(false);
      } finally {
        stopHog();
      }
    });
  }

  it('SIGINT during a quote: exit 0 within 5 s; the claimed trade resumes at the next start and trades once', async () => {
    const dataDir = join(dir, 'during-quote');
    const [usdBefore, fromBlock] = [await fork.balanceOf(fork.token('cUSD'), me()), await fork.publicClient.getBlockNumber()];
    const asked = hangingService.requests.length;
    const running = start(args(), env(dataDir, { ROUTING_SERVICE_URL: hangingService.url }));
    await until('the quote to be asked', () => hangingService.requests.slice(asked).some((r) => r.url.startsWith('/routes')));
    const { code, ms } = await stop(running, 'SIGINT');
    expect(code, running.output()).toBe(0);
    expect(ms).toBeLessThan(5_000);
    const interrupted = await intentOf(dataDir);
    expect(interrupted).toMatchObject({ status: 'claimed', failure: { retryable: true, reason: expect.stringMatching(/^interrupted at claimed/) } });
    expect(interrupted?.attempts).toEqual([]);
    await restartAndSettle(dataDir, fromBlock, usdBefore);
  });

  it('SIGTERM while following a stuck transaction: exit 0 within 5 s; the next start settles it, nothing re-signed', async () => {
    const dataDir = join(dir, 'following');
    const [usdBefore, fromBlock] = [await fork.balanceOf(fork.token('cUSD'), me()), await fork.publicClient.getBlockNumber()];
    await fork.testClient.setAutomine(false);
    try {
      const running = start(args(), env(dataDir));
      await until('the trade to reach the node', async () => {
        const trade = (await intentOf(dataDir))?.attempts.find((a) => a.purpose === 'trade');
        return trade !== undefined && (await fork.publicClient.getTransaction({ hash: trade.hash }).catch(() => undefined)) !== undefined;
      });
      // Let it be followed for a moment: it is stuck, no block comes. (A pause on purpose: the stop must find the
      // trade being followed, which nothing the daemon writes marks.)
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { code, ms } = await stop(running, 'SIGTERM');
      expect(code, running.output()).toBe(0);
      expect(ms).toBeLessThan(5_000);
      expect(await intentOf(dataDir)).toMatchObject({ status: 'broadcast', failure: { retryable: true } });
    } finally {
      await fork.testClient.setAutomine(true);
    }
    await fork.testClient.mine({ blocks: 1 });
    await restartAndSettle(dataDir, fromBlock, usdBefore);
  });
});
