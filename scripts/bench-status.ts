/**
 * The status report on a big ledger: how long `/api/status` (and `routekeeper status`) takes, and the longest the
 * event loop was blocked meanwhile, when the ledger holds many trades. The ledger is filled directly (no chain):
 * `--strategies` DCAs on `--wallets` wallets, `--trades` confirmed trades with one mined attempt each, a run per
 * trade, and a price mark of each token every `--trades-per-mark` trades.
 * Prints JSON. Usage: tsx scripts/bench-status.ts [--trades 200000] [--strategies 1000] [--wallets 50] [--rounds 3]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { toJson } from '../src/json.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { statusReport } from '../src/status/report.ts';
import type { DcaStrategy } from '../src/strategy/types.ts';

const { values } = parseArgs({
  options: {
    trades: { type: 'string', default: '200000' },
    strategies: { type: 'string', default: '1000' },
    wallets: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    'trades-per-mark': { type: 'string', default: '100' },
  },
});
const [tradeCount, strategyCount, walletCount, rounds, perMark] = [values.trades, values.strategies, values.wallets, values.rounds, values['trades-per-mark']].map(Number) as [number, number, number, number, number];

const address = (n: number, kind: number) => `0x${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(38, '0')}` as const;
const sell = { address: address(1, 0xaa), symbol: 'cUSD', decimals: 18 };
const buy = { address: address(2, 0xaa), symbol: 'CELO', decimals: 18 };
const wallets = Array.from({ length: walletCount }, (_, i) => address(i, 0xbb));
const strategies: DcaStrategy[] = Array.from({ length: strategyCount }, (_, i) => ({
  id: `dca-${i}`,
  kind: 'dca',
  wallet: `w${i % walletCount}`,
  schedule: { everyMs: 60_000, jitterMs: 0, catchUp: 'skip', firstRun: 'slot' },
  slippageBps: 50,
  sell,
  amount: 10n ** 18n,
  buy,
}));

const file = join(mkdtempSync(join(tmpdir(), 'routekeeper-bench-status-')), 'ledger.sqlite');
const ledger = await Ledger.open(file);
const filling = performance.now();
await ledger.marks.nameTokens([sell, buy]);
await ledger.strategies.describe(strategies.map((strategy, i) => ({ id: strategy.id, kind: 'dca', walletName: strategy.wallet, wallet: wallets[i % walletCount] as `0x${string}`, definition: toJson(strategy) })));
const start = Date.parse('2026-01-01T00:00:00Z');
const rng = (seed: number) => () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const random = rng(7);
for (let i = 0; i < tradeCount; i++) {
  const strategy = strategies[i % strategyCount] as DcaStrategy;
  const at = start + i * 1_000;
  const slot = new Date(at).toISOString();
  const id = `${strategy.id}:${slot}#buy`;
  const wallet = wallets[(i % strategyCount) % walletCount] as `0x${string}`;
  const runId = await ledger.runs.start(strategy.id, slot, at);
  await ledger.trades.claimSlot({ id, strategyId: strategy.id, slot: `${slot}#buy`, kind: 'swap', wallet, chainId: 42220, tokenIn: sell.address, tokenOut: buy.address, amountIn: 10n ** 18n, slippageBps: 50 }, { runId, now: at });
  await ledger.trades.markQuoted(id, at);
  const out = 2n * 10n ** 18n + BigInt(Math.floor(random() * 1e15));
  await ledger.trades.commitChecked(id, { call: { target: address(3, 0xcc), spender: address(3, 0xcc), data: '0x', expectedOut: out, minOut: out - 10n ** 15n, router: address(3, 0xcc) }, status: 'checked' }, at);
  const hash = `0x${i.toString(16).padStart(64, '0')}` as const;
  const [attempt] = await ledger.trades.recordSigned([{ intentId: id, purpose: 'trade', wallet, chainId: 42220, nonce: i, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, gasLimit: 300_000n, rawTx: '0x02', hash }], at);
  await ledger.trades.markBroadcast(id, at);
  await ledger.attempts.settleNonce(attempt?.id as number, { status: 'mined', blockNumber: BigInt(i), gasUsed: 150_000n, effectiveGasPrice: 25_000_000_000n }, [], at);
  await ledger.trades.settle(id, { status: 'confirmed' }, { txHash: hash, blockNumber: BigInt(i), gasUsed: 150_000n, effectiveGasPrice: 25_000_000_000n, amountOut: out, reportedOut: out }, at);
  await ledger.runs.finish(runId, 'traded', 'bought', at);
  if (i % perMark === 0) {
    await ledger.marks.recordMarks(
      [
        { at, block: BigInt(i), token: sell.address, usdE18: 10n ** 18n + BigInt(i), source: 'bench' },
        { at, block: BigInt(i), token: buy.address, usdE18: 5n * 10n ** 17n + BigInt(i), source: 'bench' },
      ],
      [],
    );
  }
}
const fillSeconds = (performance.now() - filling) / 1000;

const timings: { ms: number; longestBlockMs: number; bytes: number }[] = [];
for (let round = 0; round < rounds; round++) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const began = performance.now();
  const report = await statusReport(ledger);
  const bytes = toJson(report).length;
  const ms = performance.now() - began;
  loop.disable();
  timings.push({ ms: Math.round(ms), longestBlockMs: Math.round(loop.max / 1e6), bytes });
}
await ledger.close();
console.log(JSON.stringify({ trades: tradeCount, strategies: strategyCount, wallets: walletCount, fillSeconds: +fillSeconds.toFixed(1), statusReport: timings }, null, 2));
