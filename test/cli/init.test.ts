/**
 * `routekeeper init`: through a real pseudo-terminal (util-linux `script` gives the child one), a person answers
 * its questions; through flags, a script does. Either way it writes a strategy file the schema accepts and a
 * .env (mode 600) naming it, the key only ever in the .env; `check` accepts what it wrote; an existing file is
 * kept unless --force.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseStrategyFile } from '../../src/config/strategy-file.ts';
import { binPath, runCli } from '../helpers/cli.ts';
import { runInProcess } from '../helpers/in-process.ts';
import { waitFor } from '../helpers/wait.ts';

const testKey = `0x${'5e'.repeat(32)}`;
const cleanEnv = { RPC_URL: '', ROUTEKEEPER_CONFIG: '', ROUTEKEEPER_PRIVATE_KEY: '', ROUTING_SERVICE_URL: '', LOG_LEVEL: '' };
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** `routekeeper init` in a pseudo-terminal of its own: wait for a question, type the answer. */
function inTerminal(args: string[], cwd: string) {
  const command = [process.execPath, binPath, ...args].map((part) => `'${part}'`).join(' ');
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: { ...process.env, ...cleanEnv, TERM: 'xterm' },
    stdio: 'pipe',
  });
  let screen = '';
  child.stdout.on('data', (chunk) => (screen += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let seen = 0;
  return {
    screen: () => stripAnsi(screen),
    exited,
    /** Waits until `question` appears after what was already answered, then types `keys`. */
    async answer(question: string, keys: string) {
      const at = await waitFor(
        () => {
          const found = stripAnsi(screen).indexOf(question, seen);
          return found >= 0 && { found };
        },
        `the question '${question}'`,
        30_000,
        { explain: () => `screen:\n${stripAnsi(screen)}` },
      );
      seen = at.found + question.length;
      child.stdin.write(keys);
    },
  };
}

const enter = '\r';
const down = '\x1b[B';
const up = '\x1b[A';
const space = ' ';

describe('routekeeper init', () => {
  it('asks a person at a terminal, and writes the key to .env only (never shown, never in the strategy file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-init-tty-'));
    const terminal = inTerminal(['init'], dir);
    await terminal.answer('Which chain?', up + enter);
    await terminal.answer("The chain's RPC URL", `http://127.0.0.1:8545/v3/SECRET${enter}`);
    await terminal.answer('holds the wallet', enter);
    await terminal.answer('The private key for ROUTEKEEPER_PRIVATE_KEY', testKey + enter);
    // Offered on Celo: dca (checked), rebalance, limit. Check limit too.
    await terminal.answer('Which strategies', down + down + space + enter);
    // Mento's stables are USDm, EURm, BRLm since December 2025; the old symbols name the same tokens.
    await terminal.answer('DCA: spend how much', `25 cUSD${enter}`);
    await terminal.answer('DCA: buy which token', enter);
    await terminal.answer('DCA: how often', enter);
    await terminal.answer('Limit order: sell how much', enter);
    await terminal.answer('Limit order: for which token', enter);
    await terminal.answer('(take-profit)', `0.7${enter}`);
    await terminal.answer('(stop-loss)', `0.3${enter}`);
    expect(await terminal.exited, terminal.screen()).toBe(0);

    const strategies = readFileSync(join(dir, 'strategies.yaml'), 'utf8');
    const env = readFileSync(join(dir, '.env'), 'utf8');
    const file = parseStrategyFile(parseYaml(strategies));
    expect(file.defaults).toMatchObject({ slippageBps: 50, maxPriceDeviationBps: 100, approvals: 'exact', maxFeePerGasGwei: '50', firstRun: 'slot' });
    expect(file.wallets.main?.privateKeyEnv).toBe('ROUTEKEEPER_PRIVATE_KEY');
    expect(file.strategies).toEqual([
      expect.objectContaining({
        id: 'dca-cusd-celo',
        kind: 'dca',
        every: '1d',
        sell: { token: 'cUSD', amount: '25' },
        buy: 'CELO',
        budget: { perDay: '25', total: '750' },
      }),
      expect.objectContaining({ id: 'limit-celo-usdm', kind: 'limit', sell: { token: 'CELO', amount: '10' }, buy: 'USDm', takeProfit: '0.7', stopLoss: '0.3' }),
    ]);
    expect(env.split('\n')).toEqual(
      expect.arrayContaining(['ROUTEKEEPER_CONFIG=strategies.yaml', 'RPC_URL=http://127.0.0.1:8545/v3/SECRET', `ROUTEKEEPER_PRIVATE_KEY=${testKey}`]),
    );
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(strategies).not.toContain(testKey.slice(2));
    expect(terminal.screen()).not.toContain(testKey.slice(2));
  });

  it('takes flags in a script, writes what check accepts, and keeps an existing file unless --force', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-init-flags-'));
    const env = { ...cleanEnv, ROUTEKEEPER_DATA_DIR: join(dir, 'data'), METRICS_PORT: '0' };
    const init = await runCli(
      [
        'init',
        '--chain',
        'devnet',
        '--strategies',
        'dca,limit,rebalance,compound',
        '--take-profit',
        '0.6',
        '--config',
        join(dir, 'mine.yaml'),
        '--dotenv',
        join(dir, '.env'),
      ],
      env,
    );
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('4 strategies: dca-cusd-celo, limit-celo-cusd, rebalance-celo-cusd, compound-celo-cusd');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain('ROUTEKEEPER_CONFIG=mine.yaml');

    // `check` from that directory reads the .env, finds the file, and accepts it (on the embedded devnet).
    const check = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [binPath, 'check'], { cwd: dir, env: { ...process.env, ...env, ROUTEKEEPER_CONFIG: undefined } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain('strategy file mine.yaml: 4 strategies, 1 wallets, all tokens and amounts resolve');
    expect(check.stdout).toContain('dca-cusd-celo (dca, wallet main): buy CELO with 10 cUSD every 1d; at most 10 cUSD a day and 300 cUSD in all');

    // Again, over an edited file: refused (exit 2), the file kept as it was; with --force, replaced.
    writeFileSync(join(dir, 'mine.yaml'), '# mine\n');
    const again = await runCli(['init', '--chain', 'devnet', '--config', join(dir, 'mine.yaml'), '--dotenv', join(dir, '.env')], env);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(
      `routekeeper: init: ${join(dir, 'mine.yaml')} exists: pass --force to replace it, or --config / --dotenv to write elsewhere`,
    );
    expect(readFileSync(join(dir, 'mine.yaml'), 'utf8')).toBe('# mine\n');
    const forced = await runCli(['init', '--chain', 'devnet', '--force', '--config', join(dir, 'mine.yaml'), '--dotenv', join(dir, '.env')], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, 'mine.yaml'), 'utf8')).toContain('id: dca-cusd-celo');
  });

  it('refuses what it cannot write without asking: a real chain without --rpc-url, a limit without its price, a bad token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-init-bad-'));
    const cases: [string[], string][] = [
      [
        ['--chain', 'celo'],
        "routekeeper: init: The chain's RPC URL (your node or provider): give it as a flag (see 'routekeeper init --help'), or run init in a terminal to be asked",
      ],
      [
        ['--chain', 'devnet', '--strategies', 'limit'],
        "routekeeper: init: Limit order: sell once one CELO fetches how much cUSD or more (take-profit)?: give it as a flag (see 'routekeeper init --help'), or run init in a terminal to be asked",
      ],
      [
        ['--chain', 'celo', '--rpc-url', 'http://127.0.0.1:8545', '--strategies', 'compound'],
        "routekeeper: init: --strategies: 'compound' is not one of dca, rebalance, limit",
      ],
      [['--chain', 'mars'], "routekeeper: init: --chain must be celo or devnet, got 'mars'"],
    ];
    for (const [args, message] of cases) {
      const result = await runInProcess(['init', ...args, '--config', join(dir, 's.yaml'), '--dotenv', join(dir, '.env')], cleanEnv);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim()).toBe(message);
    }
    expect(() => statSync(join(dir, 's.yaml'))).toThrow();
    expect(() => statSync(join(dir, '.env'))).toThrow();
  });
});
