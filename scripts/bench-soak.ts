/**
 * Soak: the default demo (config/strategies.yaml on the embedded devnet) run time-warped for many slots, to see
 * whether the daemon's memory grows with its history. A slot is the demo's shortest interval (15 s): each slot,
 * every strategy due at that time runs through the daemon's own `runAndReport`, then the chain's clock moves on
 * by the slot (anvil evm_increaseTime) and a block is mined. Prints JSON: RSS and heap after warm-up and at the
 * end (after a GC), the growth, the ledger's size, runs per second and outcomes.
 * Usage: node --expose-gc --import tsx scripts/bench-soak.ts [--slots N]   (default 10000)
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createTestClient, http } from 'viem';
import { readEnv } from '../src/config/env.ts';
import { runAndReport } from '../src/engine/daemon.ts';
import { openExecution, openRuntime } from '../src/engine/runtime.ts';
import { slotName } from '../src/strategy/slots.ts';
import { reportWorldPrices } from '../src/devnet/oracle.ts';
import { createLogger } from '../src/ops/logger.ts';
import { createMetrics } from '../src/ops/metrics.ts';
import { createNotifier } from '../src/ops/notifier.ts';

const { values } = parseArgs({ options: { slots: { type: 'string', default: '10000' } } });
const slots = Number(values.slots);
const slotMs = 15_000;
const warmUp = Math.max(1, Math.floor(slots / 20));

const dataDir = mkdtempSync(join(tmpdir(), 'routekeeper-soak-'));
const env = { ...readEnv({}), ROUTEKEEPER_DATA_DIR: dataDir };
const runtime = await openRuntime({ env, configFile: 'config/strategies.yaml' });
try {
  const execution = await openExecution(runtime);
  const logger = createLogger({ level: 'silent' });
  const observers = { logger, metrics: createMetrics(), notifier: createNotifier([], logger) };
  const testClient = createTestClient({ mode: 'anvil', transport: http(runtime.rpcUrls[0]) });
  const outcomes: Record<string, number> = {};
  const memory = () => {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    return { rssMB: +(rss / 2 ** 20).toFixed(1), heapMB: +(heapUsed / 2 ** 20).toFixed(1) };
  };
  const start = Math.ceil(Date.now() / 60_000) * 60_000;
  let runs = 0;
  let afterWarmUp = memory();
  let startedAt = performance.now();
  for (let slot = 0; slot < slots; slot++) {
    if (slot === warmUp) {
      afterWarmUp = memory();
      startedAt = performance.now();
      runs = 0;
    }
    const time = start + slot * slotMs;
    for (const strategy of runtime.config.strategies) {
      const every = strategy.schedule.everyMs ?? slotMs;
      if ((time - start) % every !== 0) continue;
      const report = await runAndReport(strategy, slotName(time), runtime, execution, observers);
      const outcome = report ? (report.trades.at(-1)?.status ?? 'no trade') : 'failed before trading';
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      runs++;
    }
    await testClient.increaseTime({ seconds: slotMs / 1000 });
    await testClient.mine({ blocks: 1 });
    // Real feeds report on a heartbeat; the warped clock would otherwise outrun the devnet's.
    if (slot % 2_000 === 1_999 && runtime.book) await reportWorldPrices(runtime.rpcUrls[0] as string, runtime.book);
  }
  const elapsedS = (performance.now() - startedAt) / 1000;
  const end = memory();
  const ledgerFile = runtime.ledger.kind === 'sqlite' ? runtime.ledger.file : '';
  const ledgerBytes = ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${ledgerFile}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
  console.log(
    JSON.stringify(
      {
        slots,
        warmUpSlots: warmUp,
        afterWarmUp,
        end,
        rssGrowthPct: +((100 * (end.rssMB - afterWarmUp.rssMB)) / afterWarmUp.rssMB).toFixed(2),
        heapGrowthPct: +((100 * (end.heapMB - afterWarmUp.heapMB)) / afterWarmUp.heapMB).toFixed(2),
        ledgerMB: +(ledgerBytes / 2 ** 20).toFixed(2),
        trades: (await execution.ledger.trades.history({ limit: 1_000_000 })).length,
        runsPerSecond: +(runs / elapsedS).toFixed(1),
        outcomes,
      },
      null,
      2,
    ),
  );
} finally {
  await runtime.close();
}
