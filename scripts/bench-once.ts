import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { startRpcProxy } from '../support/rpc-proxy.ts';
import { runOnce } from './serve-process.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const _bin = new URL('../bin/routekeeper.js', import.meta.url).pathname;

const devnet = await startDevnet({ uniswapV3: true });
const swappaAdapter = devnet.addressBook.contracts.adapters.swappaUniswapV3;
if (!swappaAdapter) throw new Error('the devnet has no Swappa PairUniswapV3');
// V3 hops go through Swappa's adapter, as on Celo.
const throughSwappa = {
  ...devnet.addressBook,
  contracts: { ...devnet.addressBook.contracts, adapters: { ...devnet.addressBook.contracts.adapters, uniswapV3: swappaAdapter } },
};
const { service, addressBook } = await startDevnetRoutingService(throughSwappa);
const proxy = await startRpcProxy(addressBook.rpcUrl);
const dir = mkdtempSync(join(tmpdir(), 'routekeeper-bench-once-'));
const bookFile = join(dir, 'address-book.json');
writeFileSync(bookFile, JSON.stringify({ ...addressBook, rpcUrl: proxy.url }));
const strategies = (minPrice?: string) => `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: weth, kind: dca, wallet: main, every: 1h, sell: { token: CELO, amount: "2500" }, buy: WETH${minPrice ? `, minPrice: "${minPrice}"` : ''} }
`;

type Run = { status: string; requests: number; calls: number; ms: number; log: string[][] };

/** One command, run as a user runs it; the proxy (in this process) must keep answering meanwhile: no sync spawn. */
async function once(config: string, dataDir: string): Promise<Run> {
  const [requestsBefore, logBefore] = [proxy.requests(), proxy.log().length];
  const started = performance.now();
  const { code, stdout, stderr } = await runOnce({ strategy: 'weth', config, bookFile, dataDir, privateKey: addressBook.accounts[0]?.privateKey, json: true });
  const ms = performance.now() - started;
  const log = proxy.log().slice(logBefore);
  const report = stdout
    .trim()
    .split('\n')
    .reverse()
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return undefined;
      }
    })
    .find((line) => line?.trades);
  const status = report?.trades?.[0]?.status ?? `exit ${code}: ${stderr.trim().split('\n')[0]}`;
  return { status, requests: proxy.requests() - requestsBefore, calls: log.reduce((sum, request) => sum + request.length, 0), ms, log };
}

try {
  const results: Record<string, Run[]> = { trading: [], refused: [] };
  for (let i = 0; i < runs; i++) {
    // Alternately, each in a data directory of its own (a ledger per run: every run is a first run of its slot).
    const tradingConfig = join(dir, `trading-${i}.yaml`);
    const refusedConfig = join(dir, `refused-${i}.yaml`);
    writeFileSync(tradingConfig, strategies());
    writeFileSync(refusedConfig, strategies('0.01'));
    results.trading?.push(await once(tradingConfig, join(dir, `data-trading-${i}`)));
    results.refused?.push(await once(refusedConfig, join(dir, `data-refused-${i}`)));
  }
  const summary = (list: Run[]) => {
    const sorted = (pick: (run: Run) => number) => list.map(pick).sort((a, b) => a - b);
    const median = (values: number[]) => values[Math.floor(values.length / 2)] ?? 0;
    return {
      statuses: [...new Set(list.map((run) => run.status))],
      requests: { min: sorted((run) => run.requests)[0], median: median(sorted((run) => run.requests)), max: sorted((run) => run.requests).at(-1) },
      calls: median(sorted((run) => run.calls)),
      ms: { min: Math.round(sorted((run) => run.ms)[0] ?? 0), median: Math.round(median(sorted((run) => run.ms))) },
    };
  };
  const trading = summary(results.trading ?? []);
  const refused = summary(results.refused ?? []);
  console.log(
    JSON.stringify(
      {
        runs,
        trading,
        refusedAfterSimulation: refused,
        requestsTradingAdds: (trading.requests.median ?? 0) - (refused.requests.median ?? 0),
        lastTradingRequests: results.trading?.at(-1)?.log.map((request) => request.join(' ')),
        lastRefusedRequests: results.refused?.at(-1)?.log.map((request) => request.join(' ')),
      },
      null,
      2,
    ),
  );
} finally {
  await proxy.close();
  await service.close();
  await devnet.stop();
}
