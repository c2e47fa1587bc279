/**
 * Every mistake a user can make is one line on stderr, typed: it names the option, variable, field or file,
 * exits 2 (usage and configuration) or 1 (something at run time failed), never prints a stack trace, and
 * starts nothing (no devnet, no ledger) when the input is wrong.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { runInProcess } from '../helpers/in-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ routing: true });
const testKey = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
let dir = '';
let busyPort = 0;
let closeBusyPort: () => void = () => {};
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const dca = (extra = '') =>
  `wallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - { id: a, kind: dca, wallet: main, every: 1m, sell: { token: cUSD, amount: "1" }, buy: CELO${extra} }\n`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'routekeeper-errors-'));
  file('book.json', JSON.stringify(fork.addressBook));
  file('half.json', JSON.stringify(fork.addressBook).slice(0, 200));
  file('empty.json', '');
  file('not-a-book.json', '{ "chainId": "celo" }');
  file('ok.yaml', dca());
  file('typo.yaml', dca(', minPirce: "1.9"'));
  file('six-fields.yaml', dca().replace('every: 1m', 'cron: "*/5 * * * * *"'));
  file('broken.yaml', 'wallets: [\n');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  busyPort = (server.address() as { port: number }).port;
  closeBusyPort = () => server.close();
});
afterAll(() => closeBusyPort());

type Case = { args: () => string[]; env?: () => Record<string, string>; code: 1 | 2; message: () => RegExp | string };
const at = (name: string) => join(dir, name);
const quoteArgs = ['--token-in', 'cUSD', '--token-out', 'CELO', '--amount', '1'];

const cases: Record<string, Case> = {
  'an unknown command': { args: () => ['chek'], code: 2, message: () => "unknown command 'chek'; did you mean 'check'?" },
  'help for an unknown command': { args: () => ['help', 'nope'], code: 2, message: () => "unknown command 'nope'. Commands: init, run," },
  'an unknown option': { args: () => ['run', '--dryrun'], code: 2, message: () => "run: Unknown option '--dryrun'. See 'routekeeper run --help'." },
  'a missing --address-book file': {
    args: () => ['quote', '--address-book', at('missing.json'), ...quoteArgs],
    code: 2,
    message: () => `--address-book ${at('missing.json')}: no such file`,
  },
  'an empty --address-book (still being written)': {
    args: () => ['quote', '--address-book', at('empty.json'), ...quoteArgs],
    code: 2,
    message: () => `--address-book ${at('empty.json')} is empty`,
  },
  'a half-written --address-book': {
    args: () => ['quote', '--address-book', at('half.json'), ...quoteArgs],
    code: 2,
    message: () => `--address-book ${at('half.json')}: not JSON`,
  },
  'an --address-book of another shape': {
    args: () => ['quote', '--address-book', at('not-a-book.json'), ...quoteArgs],
    code: 2,
    message: () => 'is not an address book: chainId: Invalid input: expected number',
  },
  'RPC_URL at a closed port, for quote': {
    args: () => ['quote', '--token-in', fork.token('cUSD'), '--token-out', fork.token('CELO'), '--amount', '1'],
    env: () => ({ RPC_URL: 'http://127.0.0.1:9/v3/SECRET' }),
    code: 1,
    message: () => "the chain's node at http://127.0.0.1:9/*** failed: HTTP request failed.",
  },
  'an address that is not a token, for quote': {
    args: () => ['quote', '--address-book', at('book.json'), '--token-in', fork.addressBook.contracts.router, '--token-out', 'CELO', '--amount', '1'],
    code: 2,
    message: () => new RegExp(`--token-in: ${fork.addressBook.contracts.router} does not answer as an ERC20 token`, 'i'),
  },
  'LOG_LEVEL=verbose': {
    args: () => ['check', '--config', at('ok.yaml')],
    env: () => ({ LOG_LEVEL: 'verbose' }),
    code: 2,
    message: () => 'bad environment: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
  },
  'METRICS_PORT=70000': {
    args: () => ['run', '--config', at('ok.yaml')],
    env: () => ({ METRICS_PORT: '70000' }),
    code: 2,
    message: () => 'bad environment: METRICS_PORT must be a port number from 0 to 65535',
  },
  'the metrics port in use': {
    args: () => ['run', '--config', at('ok.yaml')],
    env: () => ({ METRICS_PORT: String(busyPort) }),
    code: 2,
    message: () => `METRICS_PORT ${busyPort} on 127.0.0.1 is in use (another routekeeper?): set METRICS_PORT to a free port, or 0 for any`,
  },
  'run --fork against a closed RPC': {
    args: () => ['run', '--fork', '--config', at('ok.yaml')],
    env: () => ({ RPC_URL: 'http://127.0.0.1:9' }),
    code: 1,
    message: () => 'cannot reach the chain at http://127.0.0.1:9: HTTP request failed.',
  },
  'run --fork without RPC_URL': { args: () => ['run', '--fork', '--config', at('ok.yaml')], code: 2, message: () => '--fork needs RPC_URL: the chain to fork' },
  'a missing --config file': {
    args: () => ['run', '--config', at('nope.yaml')],
    code: 2,
    message: () => `cannot read the strategy file ${at('nope.yaml')}: ENOENT`,
  },
  'a strategy file that is not YAML': {
    args: () => ['check', '--config', at('broken.yaml')],
    code: 2,
    message: () => `the strategy file ${at('broken.yaml')} is not valid YAML`,
  },
  'a typo in the strategy file': {
    args: () => ['check', '--config', at('typo.yaml')],
    code: 2,
    message: () => `${at('typo.yaml')}: strategies.0.minPirce: unknown field; did you mean 'minPrice'?`,
  },
  'a 6-field cron': {
    args: () => ['run', '--config', at('six-fields.yaml')],
    code: 2,
    message: () => 'strategies.0.cron: has 6 fields; a cron expression here has 5',
  },
  'a wallet key not set, on a network': {
    args: () => ['check', '--config', at('ok.yaml'), '--address-book', at('book.json')],
    env: () => ({ ROUTEKEEPER_PRIVATE_KEY: '' }),
    code: 2,
    message: () => 'wallets.main.privateKeyEnv: the environment variable ROUTEKEEPER_PRIVATE_KEY is not set',
  },
  'a wallet key that is not a key': {
    args: () => ['run', '--config', at('ok.yaml')],
    env: () => ({ ROUTEKEEPER_PRIVATE_KEY: '0x1234' }),
    code: 2,
    message: () => 'ROUTEKEEPER_PRIVATE_KEY does not hold a 32-byte hex private key',
  },
  'no RPC_URL where one is required': {
    args: () => ['run', '--config', at('ok.yaml')],
    env: () => ({ ROUTEKEEPER_REQUIRE_RPC_URL: 'true' }),
    code: 2,
    message: () => 'RPC_URL is not set, and ROUTEKEEPER_REQUIRE_RPC_URL=true: give the chain to trade on, or pass --devnet',
  },
  '--devnet with RPC_URL': {
    args: () => ['run', '--devnet', '--config', at('ok.yaml')],
    env: () => ({ RPC_URL: 'http://127.0.0.1:9' }),
    code: 2,
    message: () => '--devnet starts the embedded devnet: unset RPC_URL',
  },
  'a bad ROUTING_SERVICE_URL': {
    args: () => ['check', '--config', at('ok.yaml')],
    env: () => ({ ROUTING_SERVICE_URL: 'ftp://example.org' }),
    code: 2,
    message: () => 'bad environment: ROUTING_SERVICE_URL must be an http(s) URL',
  },
  'history --limit that is not a number': {
    args: () => ['history', '--limit', 'ten'],
    code: 2,
    message: () => "--limit must be a whole number from 1 to 100000, got 'ten'",
  },
  'history of a ledger that does not exist': {
    args: () => ['history', '--ledger', at('none.sqlite')],
    code: 1,
    message: () => `no ledger at ${at('none.sqlite')}`,
  },
  'resume --wallet that is not an address': { args: () => ['resume', '--wallet', 'main'], code: 2, message: () => "resume: --wallet 'main' is not an address" },
  'once without a strategy id': { args: () => ['once'], code: 2, message: () => "once: give exactly one strategy id. See 'routekeeper once --help'." },
  'devnet --port 70000': { args: () => ['devnet', '--port', '70000'], code: 2, message: () => "--port must be a whole number from 0 to 65535, got '70000'" },
};

const baseEnv = (dataDir: string): Record<string, string> => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTING_API_KEY: '',
  ROUTEKEEPER_CONFIG: '',
  LOG_LEVEL: '',
  METRICS_PORT: '0',
  ROUTEKEEPER_DATA_DIR: dataDir,
  ROUTEKEEPER_PRIVATE_KEY: testKey,
});

function expectOneTypedLine(
  result: { code: number | null; stdout: string; stderr: string },
  { code, message }: Pick<Case, 'code' | 'message'>,
  dataDir: string,
) {
  const lines = result.stderr.trimEnd().split('\n');
  expect(result.code, result.stderr).toBe(code);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]?.startsWith('routekeeper: ')).toBe(true);
  const expected = message();
  if (typeof expected === 'string') expect(lines[0]).toContain(expected);
  else expect(lines[0]).toMatch(expected);
  expect(result.stderr + result.stdout).not.toMatch(/^\s+at /m);
  expect(result.stderr + result.stdout).not.toContain('SECRET');
  // Nothing was started or recorded: no ledger, no devnet's.
  expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
}

// In the test's process (the command line as bin/routekeeper.js runs it), one case at a time.
describe('every error a user can cause is one typed line', () => {
  it.each(Object.entries(cases))('%s', async (_name, { args, env, code, message }) => {
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const result = await runInProcess(args(), { ...baseEnv(dataDir), ...env?.() });
    expectOneTypedLine(result, { code, message }, dataDir);
  });
});

// And as a process: what reaches the terminal is that line alone, and the exit code is the process's.
describe('as a process', () => {
  const spawned = ['an unknown option', 'a typo in the strategy file', 'RPC_URL at a closed port, for quote'];
  it.concurrent.each(spawned)('%s', async (name) => {
    const { args, env, code, message } = cases[name] as Case;
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const result = await runCli(args(), { ...baseEnv(dataDir), ...env?.() });
    expectOneTypedLine(result, { code, message }, dataDir);
  });
});
