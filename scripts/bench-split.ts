/**
 * Orders larger than the market, measured from outside the daemon: DCA orders of 0.1% to 5% of the devnet's CELO/cUSD
 * Uniswap V2 pool (4M CELO, 2M cUSD) sold for CELO, each against the reference (2 CELO per cUSD), in basis points:
 *  - one route: what the routing service quotes for the whole order at once (GET /routes);
 *  - across routes: what it quotes for the whole order shared among routes through disjoint pools (GET /routes/split);
 *  - over time: the order worked in slices by `routekeeper once` (split: maxImpactBps 50, every 1s; each slice quoted
 *    across routes), while an arbitrageur brings the CELO/cUSD pool back to the reference after each block, as Celo's
 *    do between blocks (the other pools it leaves as they are).
 * Prints, per order: each in bps against the reference, the slices, the gas and node requests per slice, and the time
 * the order took.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { createForkClients } from '../support/fork-clients.ts';
import { arbitrageEachBlock } from '../support/arbitrage.ts';
import { startRpcProxy } from '../support/rpc-proxy.ts';
import { trader } from '../support/traders.ts';
import { runOnce } from './serve-process.ts';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '2000,10000,20000,50000,100000' } } });
const sizes = values.sizes.split(',').map((size) => BigInt(size));
const e18 = 10n ** 18n;

const devnet = await startDevnet({});
const { service, addressBook } = await startDevnetRoutingService(devnet.addressBook);
const fork = { ...createForkClients(addressBook), addressBook };
const proxy = await startRpcProxy(addressBook.rpcUrl);
const dir = mkdtempSync(join(tmpdir(), 'routekeeper-bench-split-'));
const bookFile = join(dir, 'address-book.json');
writeFileSync(bookFile, JSON.stringify({ ...addressBook, rpcUrl: proxy.url }));
const dataDir = join(dir, 'data');
const [celo, cusd] = [fork.token('CELO'), fork.token('cUSD')];
const wallet = trader(fork, 0);
const arbitrageur = trader(fork, 1);

const mint = async (token: `0x${string}`, to: `0x${string}`, amount: bigint) =>
  fork.publicClient.waitForTransactionReceipt({
    hash: await arbitrageur.wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [to, amount] }),
  });

const bpsAgainstReference = (sold: bigint, bought: bigint) => Number(((bought - sold * 2n) * 10_000n) / (sold * 2n));

/** What the routing service quotes now for the whole order: on one route (`/routes`), or shared across routes (`/routes/split`). */
async function quoted(path: '/routes' | '/routes/split', size: bigint) {
  const url = new URL(path, addressBook.routingServiceUrl);
  for (const [key, value] of Object.entries({ tokenIn: cusd, tokenOut: celo, amountIn: (size * e18).toString(), chainId: String(addressBook.chainId) }))
    url.searchParams.set(key, value);
  const answer = (await (await fetch(url)).json()) as { expectedOut: string; routes?: unknown[] };
  const bps = bpsAgainstReference(size * e18, BigInt(answer.expectedOut));
  return { bps, ...(answer.routes && { routes: answer.routes.length }) };
}

async function overTime(size: bigint) {
  const id = `dca-${size}`;
  const config = join(dir, `${id}.yaml`);
  writeFileSync(
    config,
    `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: ${id}, kind: dca, wallet: main, every: 1d, sell: { token: cUSD, amount: "${size}" }, buy: CELO, maxPriceDeviationBps: 100, split: { maxImpactBps: 50, within: 30m, every: 1s } }
`,
  );
  await mint(cusd, wallet.address, size * e18);
  const stopArbitrage = arbitrageEachBlock(fork);
  const requestsBefore = proxy.requests();
  const started = performance.now();
  const { code, stderr } = await runOnce({ strategy: id, config, bookFile, dataDir, privateKey: addressBook.accounts[0]?.privateKey });
  const seconds = (performance.now() - started) / 1000;
  await stopArbitrage();
  if (code !== 0) throw new Error(`once exited ${code}: ${process.env.BENCH_VERBOSE ? stderr : stderr.trim().split(`\n`).at(-1)}`);
  const ledger = await Ledger.openReadOnly(join(dataDir, 'ledger.sqlite'));
  try {
    const slices = (await ledger.trades.all(id)).filter((row) => row.status === 'confirmed');
    const sold = slices.reduce((sum, row) => sum + row.amountIn, 0n);
    const bought = slices.reduce((sum, row) => sum + (row.settlement?.amountOut ?? 0n), 0n);
    const gas = slices.reduce((sum, row) => sum + (row.settlement?.gasUsed ?? 0n), 0n);
    return {
      sold: (sold / e18).toString(),
      complete: sold === size * e18,
      bps: bpsAgainstReference(sold, bought),
      slices: slices.length,
      gasPerSlice: slices.length ? Number(gas / BigInt(slices.length)) : 0,
      nodeRequestsPerSlice: slices.length ? Math.round(((proxy.requests() - requestsBefore) / slices.length) * 10) / 10 : 0,
      seconds: Math.round(seconds * 10) / 10,
    };
  } finally {
    await ledger.close();
  }
}

try {
  const orders = [];
  for (const size of sizes) {
    orders.push({
      cusd: size.toString(),
      ofPoolPercent: Number((size * 10_000n) / 2_000_000n) / 100,
      oneRoute: await quoted('/routes', size),
      acrossRoutes: await quoted('/routes/split', size),
      overTime: await overTime(size),
    });
  }
  console.log(JSON.stringify({ pool: 'Uniswap V2 CELO/cUSD, 4M CELO and 2M cUSD, 0.3%', reference: '2 CELO per cUSD', orders }, null, 2));
} finally {
  await proxy.close();
  await service.close();
  await devnet.stop();
}
