/**
 * `routekeeper history` shows every run: one that traded, one with nothing to do and why, one a guard refused
 * and why, one that failed before trading and why, in human units, newest first, with a header; `--json` the same.
 */
import { Writable } from 'node:stream';
import { parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { runAndReport } from '../../src/engine/daemon.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { createRoutingClient } from '../../src/routing-client/client.ts';
import type { DcaStrategy, LimitStrategy } from '../../src/strategy/types.ts';
import { TokenNames } from '../../src/trade/describe.ts';
import { displayNumber } from '../../src/units.ts';
import { runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, testExecutor } from '../helpers/engine.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
});

describe('routekeeper history', () => {
  it('shows a traded, a no-trade, a refused and a failed run, each with why, in human units', async () => {
    const executor = await testExecutor(fork, {
      budgets: {
        strategy: (id) => (id === 'capped' ? [{ token: fork.token('cUSD'), symbol: 'cUSD', decimals: 18, perDay: parseUnits('1', 18) }] : []),
        wallet: [],
      },
    });
    executors.push(executor);
    const token = (symbol: string) => ({ address: fork.token(symbol), symbol, decimals: 18 });
    const names = new TokenNames([token('cUSD'), token('CELO')]);
    await executor.ledger.marks.nameTokens([token('cUSD'), token('CELO')]);
    const schedule = { everyMs: 60_000, jitterMs: 0, catchUp: 'once' as const, firstRun: 'now' as const };
    const dca = (id: string, amount: string): DcaStrategy => ({
      id,
      kind: 'dca',
      wallet: 'main',
      schedule,
      slippageBps: 50,
      sell: token('cUSD'),
      amount: parseUnits(amount, 18),
      buy: token('CELO'),
    });
    const limit: LimitStrategy = {
      id: 'limit',
      kind: 'limit',
      wallet: 'main',
      schedule,
      slippageBps: 50,
      sell: token('CELO'),
      amount: parseUnits('1', 18),
      buy: token('cUSD'),
      takeProfit: '1000',
      repeat: false,
    };
    const observers = {
      logger: createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }), pretty: false }),
      metrics: createMetrics(),
      notifier: { notify() {}, flush: async () => {} },
    };
    const execution = { ledger: executor.ledger, executors: new Map([['main', executor]]), names };
    const runtime = { client: executor.wallet.client, routing: executor.routing, nativeToken: token('CELO') };

    const traded = await runAndReport(dca('dca', '2'), '2026-11-21T10:00:00.000Z', runtime, execution, observers);
    const waiting = await runAndReport(limit, '2026-11-21T10:01:00.000Z', runtime, execution, observers);
    const refused = await runAndReport(dca('capped', '2'), '2026-11-21T10:02:00.000Z', runtime, execution, observers);
    // The routing service is down for this one: it fails before trading.
    const down = { ...runtime, routing: createRoutingClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 }) };
    const failed = await runAndReport(
      dca('dca', '2'),
      '2026-11-21T10:03:00.000Z',
      down,
      { ...execution, executors: new Map([['main', { ...executor, routing: down.routing }]]) },
      observers,
    );
    expect(traded?.trades.map((t) => t.status)).toEqual(['confirmed']);
    expect(waiting?.trades).toEqual([]);
    expect(refused?.trades.map((t) => t.refusal)).toEqual(['budget']);
    expect(failed?.trades.map((t) => t.status)).toEqual(['failed']);
    // The node fails the balance read this one starts with: it fails before trading.
    const blind = { ...runtime, client: { ...runtime.client, readContract: () => Promise.reject(new Error('the node is down')) } as typeof runtime.client };
    expect(await runAndReport(dca('dca', '2'), '2026-11-21T10:04:00.000Z', blind, execution, observers)).toBeUndefined();

    const text = await runCli(['history', '--ledger', executor.ledgerFile]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${executor.ledgerFile}: the last 5 runs, newest first (times in UTC)`);
    expect(lines[1]).toMatch(/^started +strategy +slot +outcome +what happened$/);
    const runLines = lines.filter((line) => /^\d{4}-/.test(line));
    expect(runLines.map((line) => line.split(/\s{2,}/).slice(1, 4))).toEqual([
      ['dca', '2026-11-21T10:04:00.000Z', 'error'],
      ['dca', '2026-11-21T10:03:00.000Z', 'failed'],
      ['capped', '2026-11-21T10:02:00.000Z', 'refused'],
      ['limit', '2026-11-21T10:01:00.000Z', 'nothing'],
      ['dca', '2026-11-21T10:00:00.000Z', 'traded'],
    ]);
    expect(runLines[0]).toMatch(/failed before trading: .*the node is down/);
    expect(text.stdout).toMatch(/ {4}dca:2026-11-21T10:03:00\.000Z#buy {2}failed: sell 2 cUSD for CELO: .*service/i);
    expect(runLines[3]).toContain(waiting?.note);
    const amountOut = traded?.trades[0]?.amountOut as bigint;
    expect(text.stdout).toContain(`    dca:2026-11-21T10:00:00.000Z#buy  filled: sold 2 cUSD for ${displayNumber(amountOut, 18)} CELO (at least`);
    expect(text.stdout).toMatch(
      / {4}capped:2026-11-21T10:02:00\.000Z#buy {2}refused: sell 2 cUSD for CELO: budget: strategy capped daily budget: 0 cUSD spent \+ 2 cUSD would pass 1 cUSD$/m,
    );
    // No raw amount (hashes aside: 64 hex digits may hold 16 decimal ones in a row, as one run's did).
    expect(text.stdout.replace(/0x[0-9a-fA-F]+/g, '0x')).not.toMatch(/\d{16,}/);

    const json = await runCli(['history', '--ledger', executor.ledgerFile, '--json', '--strategy', 'dca']);
    const rows = JSON.parse(json.stdout);
    expect(rows.map((row: { outcome: string }) => row.outcome)).toEqual(['error', 'failed', 'traded']);
    expect(rows[2].trades[0]).toMatchObject({
      id: 'dca:2026-11-21T10:00:00.000Z#buy',
      status: 'confirmed',
      amountIn: '2000000000000000000',
      settlement: { amountOut: String(amountOut) },
    });
  });
});
