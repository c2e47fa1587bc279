import { Writable } from 'node:stream';
import { type Address, formatEther, formatUnits, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { runAndReport, showMarkedBalances } from '../../src/engine/daemon.ts';
import { markOnce } from '../../src/engine/marker.ts';
import { TokenNames } from '../../src/trade/describe.ts';
import { displayNumber } from '../../src/units.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { Notifier } from '../../src/ops/notifier.ts';
import type { DcaStrategy, LimitStrategy } from '../../src/strategy/types.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, testExecutor } from '../helpers/engine.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
});

describe('reporting a run', () => {
  it('a confirmed fill sends one "filled" notification, and sets the balance metrics from the check after the trade without reading them again', async () => {
    const executor = await testExecutor(fork);
    executors.push(executor);
    const routing = executor.routing;
    // The node answers everything the run needs, and would fail a balance read made for the metrics afterwards.
    const client = { ...executor.wallet.client, getBalance: () => Promise.reject(new Error('the node is down')) };
    const metrics = createMetrics();
    const sent: { event: string; fields: Record<string, unknown> }[] = [];
    const notifier: Notifier = { notify: (event, fields) => sent.push({ event, fields }), flush: async () => {} };
    const lines: string[] = [];
    const logger = createLogger({ destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }), pretty: false });
    const token = (symbol: string) => ({ address: fork.token(symbol), symbol, decimals: 18 });
    const strategy: DcaStrategy = {
      id: 'dca',
      kind: 'dca',
      wallet: 'main',
      schedule: { everyMs: 60_000, jitterMs: 0, catchUp: 'once', firstRun: 'now' },
      slippageBps: 50,
      sell: token('cUSD'),
      amount: parseUnits('3', 18),
      buy: token('CELO'),
    };
    const me = fork.addressBook.accounts[0]?.address as Address;
    const before = await fork.balanceOf(fork.token('cUSD'), me);

    const report = await runAndReport(
      strategy,
      '2026-11-21T00:00:00.000Z',
      { client, routing, nativeToken: token('CELO') },
      { ledger: executor.ledger, executors: new Map([['main', executor]]), names: new TokenNames([token('cUSD'), token('CELO')]) },
      { logger, metrics, notifier },
    );
    expect(report?.trades.map((t) => t.status)).toEqual(['confirmed']);
    // One headline in human units with symbols; the raw amounts stay as fields.
    const amountOut = report?.trades[0]?.amountOut as bigint;
    const filled = lines.map((line) => JSON.parse(line)).find((line) => line.status === 'confirmed');
    expect(filled.msg).toBe(
      `dca: filled: sold 3 cUSD for ${displayNumber(amountOut, 18)} CELO (at least ${displayNumber(report?.trades[0]?.minOut as bigint, 18)} CELO) (${report?.note})`,
    );
    expect(filled).toMatchObject({ amountIn: '3 cUSD', raw: { amountIn: '3000000000000000000', amountOut: String(amountOut) } });
    // The run is in the ledger with its outcome and note.
    expect(await executor.ledger.runs.list({ strategyId: 'dca' })).toMatchObject([{ slot: '2026-11-21T00:00:00.000Z', outcome: 'traded', note: report?.note }]);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(before - parseUnits('3', 18));
    expect(sent.map((s) => s.event)).toEqual(['filled']);
    expect(sent[0]?.fields).toMatchObject({
      strategy: 'dca',
      status: 'confirmed',
      amountOut: String(report?.trades[0]?.amountOut),
      summary: expect.stringMatching(/^filled: sold 3 cUSD for [\d.]+ CELO/),
    });
    // The balances the check read at the trade's block are the metrics' (the chain has not moved since): no read.
    expect(lines.some((line) => line.includes('could not read balances for the metrics'))).toBe(false);
    const gauge = (await metrics.balance.get()).values;
    const shown = (token: string) => gauge.find((value) => value.labels.wallet === 'main' && value.labels.token === token)?.value;
    expect(shown('cUSD')).toBe(Number(formatUnits(await fork.balanceOf(fork.token('cUSD'), me), 18)));
    expect(shown('CELO')).toBe(Number(formatUnits(await fork.balanceOf(fork.token('CELO'), me), 18)));
    expect(shown('native')).toBe(Number(formatEther(await fork.publicClient.getBalance({ address: me }))));
  });

  it("a run that trades nothing reads no balance for the metrics; a mark reads every held wallet's at one block, and the metrics show them", async () => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    const executor = await testExecutor(fork, { rpcUrl: proxy.url });
    executors.push(executor);
    try {
      const lines: string[] = [];
      const logger = createLogger({ destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }), pretty: false });
      const token = (symbol: string) => ({ address: fork.token(symbol), symbol, decimals: 18 });
      const schedule = { everyMs: 60_000, jitterMs: 0, catchUp: 'once' as const, firstRun: 'now' as const };
      // A take-profit far above the market: nothing trades.
      const limit: LimitStrategy = {
        id: 'tp',
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
      const metrics = createMetrics();
      const names = new TokenNames([token('cUSD'), token('CELO')]);
      const reads = (calls: string[][], ofToken?: boolean) =>
        calls.flat().filter((call) => (ofToken ? call.endsWith(':0x70a08231') : call === 'eth_getBalance')).length;
      const report = await runAndReport(
        limit,
        '2026-11-21T11:00:00.000Z',
        { client: executor.wallet.client, routing: executor.routing, nativeToken: token('CELO') },
        { ledger: executor.ledger, executors: new Map([['main', executor]]), names },
        { logger, metrics, notifier: { notify() {}, flush: async () => {} } },
      );
      expect(report?.trades).toEqual([]);
      expect(await executor.ledger.runs.list({ strategyId: 'tp' })).toMatchObject([{ outcome: 'nothing' }]);
      // The order's own observation of what it could sell is all: no native coin, no bought token.
      expect(reads(proxy.log())).toBe(0);
      expect(reads(proxy.log(), true)).toBe(1);
      expect((await metrics.balance.get()).values).toEqual([]);

      // The mark: every token of the wallet's strategies, and its native coin, read at one block.
      const me = executor.wallet.address;
      const before = proxy.requests();
      await markOnce({
        client: executor.wallet.client,
        prices: executor.prices,
        ledger: executor.ledger,
        strategies: [limit],
        wallets: new Map([['main', me]]),
        nativeToken: token('CELO'),
        logger,
        onBalances: (readings) => showMarkedBalances(readings, metrics, new Map([[me.toLowerCase(), 'main']]), names),
      });
      const markRequests = proxy.log().slice(before);
      expect(markRequests.filter((calls) => calls.some((call) => call === 'eth_getBalance' || call.endsWith(':0x70a08231')))).toHaveLength(1);
      const gauge = (await metrics.balance.get()).values;
      const shown = (symbol: string) => gauge.find((value) => value.labels.wallet === 'main' && value.labels.token === symbol)?.value;
      expect(shown('cUSD')).toBe(Number(formatUnits(await fork.balanceOf(fork.token('cUSD'), me), 18)));
      expect(shown('CELO')).toBe(Number(formatUnits(await fork.balanceOf(fork.token('CELO'), me), 18)));
      expect(shown('native')).toBe(Number(formatEther(await fork.publicClient.getBalance({ address: me }))));
    } finally {
      await proxy.close();
    }
  });

  it('logs a repeated "nothing to do" note once at info, then at debug until it changes', async () => {
    const executor = await testExecutor(fork);
    executors.push(executor);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
      pretty: false,
    });
    const token = (symbol: string) => ({ address: fork.token(symbol), symbol, decimals: 18 });
    const schedule = { everyMs: 60_000, jitterMs: 0, catchUp: 'once' as const, firstRun: 'now' as const };
    const limit = (amount: string): LimitStrategy => ({
      id: 'tp',
      kind: 'limit',
      wallet: 'main',
      schedule,
      slippageBps: 50,
      sell: token('CELO'),
      amount: parseUnits(amount, 18),
      buy: token('cUSD'),
      takeProfit: '1000',
      repeat: false,
    });
    const observers = { logger, metrics: createMetrics(), notifier: { notify() {}, flush: async () => {} }, notes: new Map<string, string>() };
    const execution = { ledger: executor.ledger, executors: new Map([['main', executor]]), names: new TokenNames() };
    const runtime = { client: executor.wallet.client, routing: executor.routing, nativeToken: token('CELO') };
    // The note names what the order is worth: the same three times, then another amount, another note.
    for (const [minute, amount] of [
      [0, '1'],
      [1, '1'],
      [2, '1'],
      [3, '2'],
    ] as const) {
      await runAndReport(limit(amount), `2026-11-21T10:0${minute}:00.000Z`, runtime, execution, observers);
    }
    const notes = lines.map((line) => JSON.parse(line)).filter((line) => String(line.msg).startsWith('tp: no trade: '));
    expect(notes.map((line) => line.level)).toEqual([30, 20, 20, 30]);
    expect(new Set(notes.slice(0, 3).map((line) => line.msg)).size).toBe(1);
    expect((await executor.ledger.runs.list({ strategyId: 'tp' })).map((run) => run.outcome)).toEqual(['nothing', 'nothing', 'nothing', 'nothing']);
  });
});
