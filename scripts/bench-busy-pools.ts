/**
 * A DCA through a busy Uniswap V3 pool that keeps one oracle observation, as a user on Celo meets it: the devnet's deep
 * cUSD/WETH pool with a trader selling $40,000 into it every two seconds (its own oracle never reaches 10 minutes back),
 * and `routekeeper once` of a 1,000 cUSD → WETH DCA run from outside, with its embedded routing service (the address
 * book names none). Prints JSON: each run's outcome, the pools it swapped in, what it got against the oracle in basis
 * points, and its time. `--bin` runs another build's CLI (a comparison with an earlier commit).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Address, type Hex, getAddress, parseEventLogs, parseUnits } from 'viem';
import { createPublicClient, http } from 'viem';
import { uniswapV3PoolAbi } from '../src/contracts/abi.ts';
import { tradeInBusyPools } from '../src/devnet/busy-pools.ts';
import { startDevnet } from '../src/devnet/devnet.ts';
import { runOnce } from './serve-process.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '6' }, bin: { type: 'string' } } });
const runs = Number(values.runs);

const devnet = await startDevnet({ uniswapV3: true });
const book = devnet.addressBook;
const client = createPublicClient({ transport: http(book.rpcUrl) });
const pool = book.uniswapV3?.pools.find((candidate) => candidate.fee === 3000 && [candidate.token0, candidate.token1].sort().join() === 'WETH,cUSD');
if (!pool) throw new Error('the devnet has no cUSD/WETH 0.3% pool');
const stopTrading = tradeInBusyPools(book.rpcUrl, book, { everyMs: 2_000 });
const dir = mkdtempSync(join(tmpdir(), 'routekeeper-bench-busy-'));
const bookFile = join(dir, 'address-book.json');
// No routing service named: `once` quotes with its own, embedded, as the user did.
const { routingServiceUrl: _none, ...withoutService } = book;
writeFileSync(bookFile, JSON.stringify(withoutService));
const config = join(dir, 'strategies.yaml');
writeFileSync(
  config,
  `defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: weth, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "1000" }, buy: WETH }
`,
);
/** WETH per 1,000 cUSD at the oracle's prices ($1, $3,000). */
const oracleOut = parseUnits('1000', 18) / 3000n;

const shortOfWindow = () =>
  client.readContract({ address: pool.address, abi: uniswapV3PoolAbi, functionName: 'observe', args: [[600, 0]] }).then(
    () => false,
    () => true,
  );

type Run = { status: string; reason?: string; busy: boolean; pools: Address[]; bpsBelowOracle?: number; ms: number };
const results: Run[] = [];
try {
  // The first swaps land before the first run.
  while (!(await shortOfWindow())) await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < runs; i++) {
    const busy = await shortOfWindow();
    const started = performance.now();
    const { code, stdout, stderr } = await runOnce({
      strategy: 'weth',
      config,
      bookFile,
      dataDir: join(dir, `data-${i}`),
      privateKey: book.accounts[0]?.privateKey,
      json: true,
      bin: values.bin,
    });
    const ms = Math.round(performance.now() - started);
    const report = stdout
      .trim()
      .split('\n')
      .map((line) => {
        try {
          return JSON.parse(line);
        } catch {
          return undefined;
        }
      })
      .find((line) => line?.trades)?.trades?.[0];
    if (!report) {
      results.push({ status: `exit ${code}: ${stderr.trim().split('\n')[0]}`, busy, pools: [], ms });
      continue;
    }
    const run: Run = { status: report.status, reason: report.reason, busy, pools: [], ms };
    if (report.txHash) {
      const receipt = await client.getTransactionReceipt({ hash: report.txHash as Hex });
      run.pools = parseEventLogs({ abi: uniswapV3PoolAbi, eventName: 'Swap', logs: receipt.logs }).map((log) => getAddress(log.address));
      run.bpsBelowOracle = Number(((oracleOut - BigInt(report.amountOut)) * 1_000_000n) / oracleOut) / 100;
    }
    results.push(run);
  }
} finally {
  stopTrading();
  await devnet.stop();
}
const confirmed = results.filter((run) => run.status === 'confirmed');
const bps = confirmed.flatMap((run) => (run.bpsBelowOracle === undefined ? [] : [run.bpsBelowOracle])).sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      bench: 'busy-pools',
      build: values.bin ?? 'this',
      pool: pool.address,
      runs: results.length,
      whilePoolShortOfWindow: results.filter((run) => run.busy).length,
      confirmed: confirmed.length,
      throughBusyPool: confirmed.filter((run) => run.pools.includes(getAddress(pool.address))).length,
      refused: results.filter((run) => run.status !== 'confirmed').map((run) => run.reason ?? run.status),
      bpsBelowOracle: { min: bps[0], median: bps[Math.floor(bps.length / 2)], max: bps.at(-1) },
      msPerOnce: { median: results.map((run) => run.ms).sort((a, b) => a - b)[Math.floor(results.length / 2)] },
      results,
    },
    (_key, value) => (typeof value === 'bigint' ? value.toString() : value),
    2,
  ),
);
