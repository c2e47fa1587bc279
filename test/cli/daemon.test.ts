import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, type Hex, parseAbiItem, parseTransaction, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/json.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { plannedStart } from '../../src/strategy/slots.ts';
import type { Strategy } from '../../src/strategy/types.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { spawnDaemon } from '../helpers/daemon-process.ts';
import { runInProcess } from '../helpers/in-process.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);

let dir = '';
let bookFile = '';
const webhooks: { event: string; strategy?: string }[] = [];
let webhookServer: ReturnType<typeof createServer>;
let webhookUrl = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'routekeeper-daemon-'));
  bookFile = join(dir, 'address-book.json');
  writeFileSync(bookFile, JSON.stringify(fork.addressBook));
  webhookServer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      webhooks.push(JSON.parse(body));
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => webhookServer.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(webhookServer.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => webhookServer.close(() => resolve())));

const env = (extra: Record<string, string> = {}) => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTING_API_KEY: '',
  ROUTEKEEPER_CONFIG: '',
  ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
  ROUTEKEEPER_DATA_DIR: join(dir, 'data'),
  METRICS_PORT: '0',
  ...extra,
});

function writeConfig(name: string, text: string) {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const everyKind = () => `
defaults: { firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
notifications:
  webhooks: [{ url: "${webhookUrl}", events: [filled, refused, failed] }]
strategies:
  - { id: dca, kind: dca, wallet: main, every: 2s, sell: { token: cUSD, amount: "5" }, buy: CELO }
  # Its first sell is large against the cEUR pool (about 5% price impact): a wider price tolerance, on purpose.
  - { id: rebalance, kind: rebalance, wallet: main, every: 3s, targets: { CELO: 1, cEUR: 1 }, quoteToken: cUSD, driftBps: 500, minTrade: "50", maxPriceDeviationBps: 800 }
  - { id: take-profit, kind: limit, wallet: main, every: 2s, sell: { token: CELO, amount: "100" }, buy: cUSD, takeProfit: "0.4" }
  # The rebalance's CELO buy moves the gauge's CELO/cUSD pool about 3%, and the runs go side by side: whether the deposit
  # is checked before or after that buy is the machine's timing. A tolerance past 3% keeps the outcome the same.
  - { id: compound, kind: compound, wallet: main, every: 2s, gauge: CELO/cUSD, valueToken: cUSD, minRewardValue: "1", maxPriceDeviationBps: 500 }
`;

describe('routekeeper run', () => {
  it('runs one strategy of each kind over time-warped cycles: ledger, balances, metrics, health, webhooks', async () => {
    const config = writeConfig('every-kind.yaml', everyKind());
    const me = fork.addressBook.accounts[0]?.address as Address;
    const gauge = fork.addressBook.contracts.gauges['CELO/cUSD']?.address as Address;
    const fromBlock = await fork.publicClient.getBlockNumber();
    const gaugeBefore = await fork.balanceOf(gauge, me);
    // Three days on the chain, a day at a time, so the gauge pays rewards worth compounding. Before the daemon starts:
    // a day's jump while one of its trades is between its check and its block would pass that trade's deadline.
    for (let cycle = 0; cycle < 3; cycle++) {
      await fork.testClient.increaseTime({ seconds: 24 * 3600 });
      await fork.testClient.mine({ blocks: 1 });
    }
    const { child, lines, stderr, exited, waitFor, port: listening } = spawnDaemon({ book: bookFile, dataDir: join(dir, 'data') }, config, env());

    const port = await listening();
    // Stopped once every kind has done what the test checks below (on a busy machine the rebalance's buy can
    // come after the compound deposit).
    const filled = (strategy: string, suffix = '') =>
      lines.filter((line) => line.strategy === strategy && line.status === 'confirmed' && String(line.intent).endsWith(suffix)).length;
    await waitFor(
      () =>
        filled('compound', '#deposit') >= 1 &&
        filled('rebalance', '#buy-CELO') >= 1 &&
        filled('take-profit') >= 1 &&
        lines.some((line) => line.strategy === 'take-profit' && String(line.msg).includes('no trade: already filled')) &&
        filled('dca') >= 2,
      'a compound deposit, the rebalance buy, the take-profit fill and a run after it, and two DCA buys',
    );

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/routekeeper_transactions_total\{status="confirmed"\} [1-9]/);
    expect(metrics).toMatch(/routekeeper_ticks_total\{strategy="dca"\} [1-9]/);
    // Prometheus conventions: Node's process metrics under their standard names, wallets by name, seconds as floats.
    expect(metrics).toMatch(/^process_cpu_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(metrics).not.toContain('routekeeper_process_');
    expect(metrics).toMatch(/^routekeeper_wallet_balance\{wallet="main",token="cUSD"\} \d/m);
    // The one wallet, held by this daemon's lease; none lost or taken over.
    expect(metrics).toMatch(/^routekeeper_wallet_leases_held 1$/m);
    expect(metrics).toMatch(/^routekeeper_wallet_leases_lost_total 0$/m);
    expect(metrics).toMatch(/^routekeeper_wallet_leases_taken_over_total 0$/m);
    expect(metrics).toMatch(/^routekeeper_step_duration_seconds_sum\{step="quote"\} \d+\.\d{4,}/m);
    // What a trader watches: runs by outcome, failures, volume per token, gas in native coin.
    expect(metrics).toMatch(/^routekeeper_runs_total\{strategy="dca",outcome="traded"\} [1-9]/m);
    expect(metrics).toMatch(/^routekeeper_volume_total\{strategy="dca",token="CELO",side="bought"\} \d+\.\d+/m);
    expect(metrics).toMatch(/^routekeeper_gas_spent_native_total\{strategy="dca"\} 0\.\d+/m);
    const soldByDca = Number(/^routekeeper_volume_total\{strategy="dca",token="cUSD",side="sold"\} (\S+)/m.exec(metrics)?.[1]);
    const tradedByDca = Number(/^routekeeper_runs_total\{strategy="dca",outcome="traded"\} (\S+)/m.exec(metrics)?.[1]);
    expect(soldByDca).toBe(5 * tradedByDca);
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toMatchObject({
      status: 'ok',
      chainId: 42220,
      reasons: [],
      components: { chain: { ok: true }, routing: { ok: true } },
      strategies: { dca: { ok: true, consecutiveFailures: 0 } },
    });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr()).toBe('');

    const ledger = await Ledger.openReadOnly(join(dir, 'data', 'ledger.sqlite'));
    try {
      const rows = await ledger.trades.history({ limit: 1000 });
      const confirmed = (strategy: string) => rows.filter((row) => row.strategyId === strategy && row.status === 'confirmed');
      // DCA: every confirmed run is one Swap of exactly 5 cUSD for CELO, paying what the ledger says.
      const dcaRuns = confirmed('dca');
      expect(dcaRuns.length).toBeGreaterThanOrEqual(2);
      const swaps = await fork.publicClient.getLogs({
        address: fork.addressBook.contracts.router,
        event: swapEvent,
        args: { sender: me, input: fork.token('cUSD'), output: fork.token('CELO') },
        fromBlock,
      });
      const dcaSwaps = swaps.filter((log) => log.args.inputAmount === parseUnits('5', 18));
      expect(dcaSwaps.map((log) => String(log.args.outputAmount)).sort()).toEqual(dcaRuns.map((row) => String(row.settlement?.amountOut)).sort());
      // Rebalance sold cEUR and bought CELO; the limit order filled exactly once.
      expect(
        confirmed('rebalance')
          .map((row) => row.slot.split('#')[1])
          .sort(),
      ).toEqual(['buy-CELO', 'sell-cEUR']);
      expect(confirmed('take-profit')).toHaveLength(1);
      // Compound: a claim, then a deposit of exactly what the claim paid; the gauge position grew by the deposit.
      // Each deposit is paired with the claim of its own run (a stop may interrupt the newest run's deposit).
      const deposits = confirmed('compound').filter((row) => row.kind === 'deposit');
      expect(deposits.length).toBeGreaterThanOrEqual(1);
      for (const deposit of deposits) {
        const claim = confirmed('compound').find((row) => row.kind === 'claim' && row.slot === deposit.slot.replace('#deposit', '#claim'));
        expect(deposit.amountIn).toBe(claim?.settlement?.amountOut);
      }
      const minted = deposits.reduce((sum, row) => sum + (row.settlement?.amountOut ?? 0n), 0n);
      expect(await fork.balanceOf(gauge, me)).toBe(gaugeBefore + minted);
    } finally {
      await ledger.close();
    }
    expect(webhooks.some((hook) => hook.event === 'filled' && hook.strategy === 'dca')).toBe(true);
    expect(webhooks.some((hook) => hook.event === 'filled' && hook.strategy === 'compound')).toBe(true);

    const history = await runCli(['history', '--json', '--strategy', 'take-profit'], env());
    expect(history.code).toBe(0);
    // Every run of the take-profit order is there; exactly one traded, and the runs after it found nothing to do.
    const recorded: { outcome: string; note?: string; trades: { status: string }[] }[] = JSON.parse(history.stdout);
    expect(recorded.flatMap((row) => row.trades).filter((trade) => trade.status === 'confirmed')).toHaveLength(1);
    expect(recorded.filter((row) => row.outcome === 'traded')).toHaveLength(1);
    expect(recorded.length).toBeGreaterThan(1);
    expect(recorded.filter((row) => row.outcome === 'nothing').every((row) => row.note?.startsWith('already filled'))).toBe(true);
  }, 90_000);
});

describe('bad configuration stops the daemon with the field path, a non-zero exit and no stack trace', () => {
  const base = (strategy: string) => `wallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - ${strategy}\n`;
  const cases: [string, string, Record<string, string>, RegExp][] = [
    [
      'an unknown kind',
      base('{ id: x, kind: grid, wallet: main, every: 30s }'),
      {},
      /strategies\.0\.kind: unknown kind 'grid'; expected one of dca, rebalance, limit, compound/,
    ],
    [
      'a bad token',
      base('{ id: x, kind: dca, wallet: main, every: 30s, sell: { token: DOGE, amount: "1" }, buy: CELO }'),
      {},
      /strategies\.0\.sell\.token: unknown token 'DOGE'/,
    ],
    [
      'a bad amount',
      base('{ id: x, kind: dca, wallet: main, every: 30s, sell: { token: USDC, amount: "1.1234567" }, buy: CELO }'),
      {},
      /strategies\.0\.sell\.amount: '1\.1234567' has 7 decimals but USDC has only 6/,
    ],
    [
      'an amount that is not a number',
      base('{ id: x, kind: dca, wallet: main, every: 30s, sell: { token: USDC, amount: "ten" }, buy: CELO }'),
      {},
      /strategies\.0\.sell\.amount: must be a decimal amount/,
    ],
    [
      'a missing key variable',
      base('{ id: x, kind: dca, wallet: main, every: 30s, sell: { token: cUSD, amount: "1" }, buy: CELO }'),
      { ROUTEKEEPER_PRIVATE_KEY: '' },
      /wallets\.main\.privateKeyEnv: the environment variable ROUTEKEEPER_PRIVATE_KEY is not set/,
    ],
    [
      'a key that is not a key',
      base('{ id: x, kind: dca, wallet: main, every: 30s, sell: { token: cUSD, amount: "1" }, buy: CELO }'),
      { ROUTEKEEPER_PRIVATE_KEY: '0x1234' },
      /wallets\.main\.privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY does not hold a 32-byte hex private key/,
    ],
    [
      'a bad schedule',
      base('{ id: x, kind: dca, wallet: main, every: 30 seconds, sell: { token: cUSD, amount: "1" }, buy: CELO }'),
      {},
      /strategies\.0\.every: must be a duration/,
    ],
    [
      'a bad cron',
      base('{ id: x, kind: dca, wallet: main, cron: "every day", sell: { token: cUSD, amount: "1" }, buy: CELO }'),
      {},
      /strategies\.0\.cron: has 2 fields; a cron expression here has 5/,
    ],
    [
      'an unknown wallet',
      base('{ id: x, kind: dca, wallet: savings, every: 30s, sell: { token: cUSD, amount: "1" }, buy: CELO }'),
      {},
      /strategies\.0\.wallet: no wallet named 'savings'/,
    ],
    ['a file that is not YAML', 'strategies: [ {', {}, /is not valid YAML/],
  ];
  for (const [what, text, extraEnv, message] of cases) {
    it(what, async () => {
      const config = writeConfig(`bad-${what.replaceAll(' ', '-')}.yaml`, text);
      // In the test's process (the command line as bin/routekeeper.js runs it): test/cli/errors.test.ts shows the
      // same line reaches a terminal from a real process.
      const { code, stdout, stderr } = await runInProcess(['run', '--config', config, '--address-book', bookFile], env(extraEnv));
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(`${stdout}${stderr}`).not.toMatch(/^\s+at /m);
      expect(`${stdout}${stderr}`).not.toContain(fork.addressBook.accounts[0]?.privateKey.slice(2));
    });
  }
});

describe('routekeeper schema', () => {
  it('prints the JSON Schema of the strategy file', async () => {
    const { code, stdout } = await runInProcess(['schema']);
    expect(code).toBe(0);
    const schema = JSON.parse(stdout);
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(expect.arrayContaining(['wallets', 'strategies']));
    expect(JSON.stringify(schema.properties.strategies)).toContain('"compound"');
  });
});

describe('routekeeper once, check and run --fork', () => {
  const dcaOnly = () =>
    writeConfig(
      'dca-only.yaml',
      `wallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - { id: dca, kind: dca, wallet: main, every: 2s, sell: { token: cUSD, amount: "7" }, buy: CELO }\n  - { id: tp, kind: limit, wallet: main, every: 1h, sell: { token: CELO, amount: "1" }, buy: cUSD, takeProfit: "1000" }\n`,
    );

  it('once: runs one strategy now, prints what it did, exit 0; a strategy it does not know is exit 2', async () => {
    const config = dcaOnly();
    const me = fork.addressBook.accounts[0]?.address as Address;
    const before = await fork.balanceOf(fork.token('cUSD'), me);
    const once = await runCli(['once', 'dca', '--config', config, '--address-book', bookFile, '--json'], env({ ROUTEKEEPER_DATA_DIR: join(dir, 'once') }));
    expect(once.code, once.stderr).toBe(0);
    const report = JSON.parse(once.stdout);
    expect(report).toMatchObject({ strategyId: 'dca', trades: [{ status: 'confirmed' }] });
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(before - parseUnits('7', 18));
    const waiting = await runCli(['once', 'tp', '--config', config, '--address-book', bookFile], env({ ROUTEKEEPER_DATA_DIR: join(dir, 'once') }));
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(/^tp: waiting: worth /);
    const unknown = await runCli(['once', 'nope', '--config', config, '--address-book', bookFile], env({ ROUTEKEEPER_DATA_DIR: join(dir, 'once') }));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no strategy 'nope'");
  });

  it('check: validates, reaches chain and service, shows balances and allowances', async () => {
    const { code, stdout } = await runCli(['check', '--config', dcaOnly(), '--address-book', bookFile], env());
    expect(code).toBe(0);
    expect(stdout).toContain('2 strategies, 1 wallets, all tokens and amounts resolve');
    expect(stdout).toMatch(/chain 42220 \(network\) at http:\/\/127\.0\.0\.1:\d+: block \d+/);
    expect(stdout).toContain('routing service');
    expect(stdout).toMatch(/ready/);
    expect(stdout).toMatch(/ {2}cUSD {3}[\d,.]+ {2}\(allowance: router 0, OneClickFarm 0\)/);
  });

  it('check: shows the plan of each example strategy in words and human units, with its next 3 runs', async () => {
    const { code, stdout, stderr } = await runCli(['check', '--config', 'config/strategies.yaml', '--address-book', bookFile], env());
    expect(code, stderr).toBe(0);
    const gauge = fork.addressBook.contracts.gauges['CELO/cUSD']?.address as Address;
    const plan = stdout.split('\n');
    const line = (id: string) => plan.find((l) => l.startsWith(`  ${id} (`));
    expect(line('dca-cusd-celo')).toBe(
      '  dca-cusd-celo (dca, wallet main): buy CELO with 10 cUSD every 30s, only at 1.5 CELO per cUSD or more; at most 1,000 cUSD a day; slippage 0.3%',
    );
    expect(line('rebalance-celo-usdc')).toBe(
      '  rebalance-celo-usdc (rebalance, wallet main): keep CELO 50%, USDC 50% (valued in cUSD) every 1m: trade when a weight is 5% off its target, in trades of at least 50 cUSD; slippage 0.5%, price deviation up to 8%',
    );
    expect(line('take-profit-celo')).toBe(
      '  take-profit-celo (limit, wallet main): sell 100 CELO for cUSD when it fetches 0.49 cUSD per CELO or more (take-profit), or 0.30 cUSD per CELO or less (stop-loss), once; looks every 15s; slippage 0.5%',
    );
    expect(line('compound-celo-cusd')).toBe(
      `  compound-celo-cusd (compound, wallet main): claim the RWD rewards of gauge ${gauge} when worth 0.01 cUSD more than the gas, and deposit them back, every 1m; slippage 0.5%`,
    );
    // Each is followed by its next 3 runs, on its interval; with an address book (a network), a fresh start waits for the slot.
    for (const [id, seconds] of [
      ['dca-cusd-celo', 30],
      ['rebalance-celo-usdc', 60],
      ['take-profit-celo', 15],
      ['compound-celo-cusd', 60],
    ] as const) {
      const runs = plan[plan.indexOf(line(id) as string) + 1] as string;
      expect(runs).toMatch(/^ {4}on a fresh ledger, waits for its first slot \(firstRun: slot\); next runs /);
      const times = [...runs.matchAll(/\d{4}-\d\d-\d\dT[\d:.]+Z/g)].map((match) => Date.parse(match[0]));
      expect(times).toHaveLength(3);
      // Each run starts at its slot plus the strategy's own offset (the same every slot), within half the interval.
      const offset = (times[0] as number) % (seconds * 1000);
      expect(times.map((time) => time % (seconds * 1000))).toEqual([offset, offset, offset]);
      expect(offset).toBeLessThan((seconds * 1000) / 2);
      expect(offset).toBe(plannedStart({ id, schedule: { spreadMs: (seconds * 1000) / 2 } } as Strategy, 0));
      expect([(times[1] as number) - (times[0] as number), (times[2] as number) - (times[1] as number)]).toEqual([seconds * 1000, seconds * 1000]);
    }
  });

  it('run --fork: paper trades on a local fork of RPC_URL; the forked chain itself is untouched', async () => {
    const me = fork.addressBook.accounts[0]?.address as Address;
    const before = await fork.balanceOf(fork.token('cUSD'), me);
    const nonce = await fork.publicClient.getTransactionCount({ address: me });
    const child = spawnCli(
      ['run', '--fork', '--config', dcaOnly(), '--address-book', bookFile],
      env({ RPC_URL: fork.addressBook.rpcUrl, ROUTEKEEPER_DATA_DIR: join(dir, 'paper') }),
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => /"strategy":"dca".*"status":"confirmed"/.test(output), 'a paper trade', 30_000, { explain: () => output });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('PAPER TRADING on a local fork of RPC_URL');
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(before);
    expect(await fork.publicClient.getTransactionCount({ address: me })).toBe(nonce);

    // No signature by the wallet's key exists anywhere: the fork node sent as the wallet (impersonated). Every
    // stored transaction carries the placeholder r = s = 1; the key's own signature of it appears nowhere.
    // The fork's ledger is named after its chain and the block it forked at.
    const forkLedgers = readdirSync(join(dir, 'paper')).filter((name) => /^fork-42220-at-\d+\.sqlite$/.test(name));
    expect(forkLedgers).toHaveLength(1);
    const paper = await Ledger.openReadOnly(join(dir, 'paper', forkLedgers[0] as string));
    try {
      const trades = await paper.trades.history({ limit: 100 });
      const attempts = (await Promise.all(trades.map((intent) => paper.attempts.ofTrade(intent.id)))).flat();
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      const account = privateKeyToAccount(fork.addressBook.accounts[0]?.privateKey as Hex);
      for (const attempt of attempts) {
        const { r, s: sValue, v, yParity, ...unsigned } = parseTransaction(attempt.rawTx);
        expect([BigInt(r as Hex), BigInt(sValue as Hex)]).toEqual([1n, 1n]);
        const real = parseTransaction(await account.signTransaction(unsigned as never));
        const everything = `${output}${toJson(trades)}${toJson(attempts)}${toJson(await paper.events.list())}`;
        expect(everything).not.toContain((real.r as Hex).slice(2));
        expect(everything).not.toContain((real.s as Hex).slice(2));
      }
    } finally {
      paper.close();
    }
  });
});
