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
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { toJson } from '../src/json.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { StatusBook } from '../src/status/book.ts';
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
const [tradeCount, strategyCount, walletCount, rounds, perMark] = [
  values.trades,
  values.strategies,
  values.wallets,
  values.rounds,
  values['trades-per-mark'],
].map(Number) as [number, number, number, number, number];

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
const filling = performance.now();
// The schema and the strategies through the ledger; the bulk of rows straight into the file, in one transaction.
const setup = await Ledger.open(file);
await setup.marks.nameTokens([sell, buy]);
await setup.strategies.describe(
  strategies.map((strategy, i) => ({
    id: strategy.id,
    kind: 'dca',
    walletName: strategy.wallet,
    wallet: wallets[i % walletCount] as `0x${string}`,
    definition: toJson(strategy),
  })),
);
await setup.close();
const raw = new Database(file);
const start = Date.parse('2026-01-01T00:00:00Z');
const rng = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const random = rng(7);
const run = raw.prepare("INSERT INTO runs (strategy_id, slot, started_at, finished_at, outcome, note) VALUES (?, ?, ?, ?, 'traded', 'bought')");
const trade = raw.prepare(
  `INSERT INTO intents (id, strategy_id, slot, run_id, kind, wallet, chain_id, token_in, token_out, amount_in, slippage_bps, status, target, spender, call_data, router,
     expected_out, min_out, amount_out, reported_out, tx_hash, block_number, gas_used, effective_gas_price, retryable, created_at, updated_at)
   VALUES (?, ?, ?, ?, 'swap', ?, 42220, ?, ?, ?, 50, 'confirmed', ?, ?, '0x', ?, ?, ?, ?, ?, ?, ?, '150000', '25000000000', 0, ?, ?)`,
);
const attempt = raw.prepare(
  `INSERT INTO attempts (intent_id, purpose, wallet, chain_id, nonce, max_fee_per_gas, max_priority_fee_per_gas, gas_limit, raw_tx, hash, status, block_number, gas_used, effective_gas_price, created_at, updated_at)
   VALUES (?, 'trade', ?, 42220, ?, '2', '1', '300000', '0x02', ?, 'mined', ?, '150000', '25000000000', ?, ?)`,
);
const price = raw.prepare("INSERT INTO prices (at, block, token, usd_e18, source) VALUES (?, ?, ?, ?, 'bench')");
const router = address(3, 0xcc);
raw.transaction(() => {
  for (let i = 0; i < tradeCount; i++) {
    const strategy = strategies[i % strategyCount] as DcaStrategy;
    const at = start + i * 1_000;
    const slot = new Date(at).toISOString();
    const wallet = wallets[(i % strategyCount) % walletCount] as string;
    const runId = run.run(strategy.id, slot, at, at).lastInsertRowid;
    const out = (2n * 10n ** 18n + BigInt(Math.floor(random() * 1e15))).toString();
    const id = `${strategy.id}:${slot}#buy`;
    const hash = `0x${i.toString(16).padStart(64, '0')}`;
    trade.run(
      id,
      strategy.id,
      `${slot}#buy`,
      runId,
      wallet,
      sell.address,
      buy.address,
      (10n ** 18n).toString(),
      router,
      router,
      router,
      out,
      out,
      out,
      out,
      hash,
      i,
      at,
      at,
    );
    attempt.run(id, wallet, i, hash, i, at, at);
    if (i % perMark === 0) {
      price.run(at, i, sell.address, (10n ** 18n + BigInt(i)).toString());
      price.run(at, i, buy.address, (5n * 10n ** 17n + BigInt(i)).toString());
    }
  }
})();
raw.close();
const ledger = await Ledger.open(file);
/** The longest the event loop went without a turn, by a timer that should fire every 5 ms. */
function watchLoop() {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(longest, performance.now() - last));
  };
}
const fillSeconds = (performance.now() - filling) / 1000;

// As `routekeeper status` does: a new book, read once. Then as the daemon's page does: one book, asked again and
// again, with a trade settling between two requests.
const timings: Record<string, { ms: number; longestBlockMs: number; bytes: number }[]> = { once: [], kept: [] };
const measure = async (list: (typeof timings)['once'], report: () => Promise<unknown>) => {
  const stop = watchLoop();
  const began = performance.now();
  const bytes = toJson(await report()).length;
  const ms = performance.now() - began;
  await new Promise((resolve) => setImmediate(resolve));
  list.push({ ms: Math.round(ms), longestBlockMs: stop(), bytes });
};
for (let round = 0; round < rounds; round++) await measure(timings.once as (typeof timings)['once'], () => statusReport(ledger));
const book = new StatusBook(ledger);
for (let round = 0; round < 2 * rounds + 1; round++) {
  if (round % 2 === 0 && round > 0) {
    const at = start + (tradeCount + round) * 1_000;
    await ledger.marks.recordMarks(
      [{ at, block: BigInt(tradeCount + round), token: buy.address, usdE18: 6n * 10n ** 17n + BigInt(round), source: 'bench' }],
      [],
    );
  }
  await measure(timings.kept as (typeof timings)['once'], () => statusReport(book));
}
(globalThis as { gc?: () => void }).gc?.();
const heapWithBookMB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
await ledger.close();
console.log(
  JSON.stringify(
    {
      heapWithBookMB,
      trades: tradeCount,
      strategies: strategyCount,
      wallets: walletCount,
      fillSeconds: +fillSeconds.toFixed(1),
      statusReport: timings,
      note: 'kept: the first is the book reading the whole ledger; then, alternately, nothing changed and a new price mark (every account computed again)',
    },
    null,
    2,
  ),
);
