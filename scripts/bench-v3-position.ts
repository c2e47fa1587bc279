import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Ledger } from '../src/ledger/ledger.ts';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { reportWorldPrices } from '../src/devnet/oracle.ts';
import { amountsForLiquidity } from '../src/pools/uniswap-v3-liquidity.ts';
import { createForkClients } from '../test/helpers/devnet.ts';
import { cusdCeloPool, openPosition, readPosition, tradeVolume } from '../test/helpers/positions.ts';
import { startRpcProxy } from '../test/helpers/rpc-proxy.ts';
import { runOnce } from './serve-process.ts';

const { values } = parseArgs({ options: { days: { type: 'string', default: '7' }, volume: { type: 'string', default: '20000' } } });
const days = Number(values.days);
const e18 = 10n ** 18n;
const dailyVolume = BigInt(values.volume) * e18;
const _bin = new URL('../bin/routekeeper.js', import.meta.url).pathname;

const devnet = await startDevnet({ uniswapV3: true });
const { service, addressBook } = await startDevnetRoutingService(devnet.addressBook);
const fork = { ...createForkClients(addressBook), addressBook };
const proxy = await startRpcProxy(addressBook.rpcUrl);
const dir = mkdtempSync(join(tmpdir(), 'routekeeper-bench-v3-position-'));
const bookFile = join(dir, 'address-book.json');
writeFileSync(bookFile, JSON.stringify({ ...addressBook, rpcUrl: proxy.url }));
const dataDir = join(dir, 'data');
const pool = cusdCeloPool(fork);

const yaml = (positionId: bigint, minFeesToGas: number) => `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: lp, kind: uniswap-v3-position, wallet: main, every: 1h, position: ${positionId}, valueToken: cUSD, compound: { minFeesToGas: ${minFeesToGas} } }
`;

/** One `once`, as a user runs it: its exit code, and the node's HTTP requests and calls meanwhile. */
async function once(positionId: bigint, minFeesToGas: number) {
  const config = join(dir, `strategies-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(config, yaml(positionId, minFeesToGas));
  const [requestsBefore, logBefore] = [proxy.requests(), proxy.log().length];
  const { code, stderr } = await runOnce({ strategy: 'lp', config, bookFile, dataDir, privateKey: addressBook.accounts[0]?.privateKey });
  if (code !== 0) throw new Error(`once exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
  const log = proxy.log().slice(logBefore);
  return { httpRequests: proxy.requests() - requestsBefore, calls: log.reduce((sum, request) => sum + request.length, 0) };
}

/** A position's worth in cUSD at the world prices (the devnet's reference): what its liquidity holds, and what it owes. */
async function worth(positionId: bigint): Promise<bigint> {
  const position = await readPosition(fork, positionId);
  const held = amountsForLiquidity(position.sqrtPriceX96, position, position.liquidity, 'down');
  const [amount0, amount1] = [held.amount0 + position.uncollected.amount0, held.amount1 + position.uncollected.amount1];
  // CELO is 0.5 cUSD in the world spec; cUSD is 1.
  const inCusd = (symbol: string, amount: bigint) => (symbol === 'CELO' ? amount / 2n : amount);
  return inCusd(pool.token0, amount0) + inCusd(pool.token1, amount1);
}

const dayLater = async () => {
  await fork.testClient.increaseTime({ seconds: 86_400 });
  await fork.testClient.mine({ blocks: 1 });
  await reportWorldPrices(addressBook.rpcUrl, addressBook);
};

try {
  const amounts = { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 };
  const compounded = await openPosition(fork, pool, amounts);
  const never = await openPosition(fork, pool, { ...amounts, account: 2 });
  const startWorth = { compounded: await worth(compounded.tokenId), never: await worth(never.tokenId) };

  // What compounding adds to a `once`: one that finds the fees not worth it, then one that compounds.
  await tradeVolume(fork, pool, { account: 1, size: dailyVolume / 8n, rounds: 4 });
  const idle = await once(compounded.tokenId, 1_000_000);
  const compound = await once(compounded.tokenId, 3);
  const ledger = await Ledger.openReadOnly(join(dataDir, 'ledger.sqlite'));
  const gasOf = async () => {
    const trades = (await ledger.trades.history({})).toReversed();
    return trades.map((trade) => ({ kind: trade.kind, status: trade.status, gasUsed: trade.settlement?.gasUsed.toString() ?? null }));
  };
  const firstCompound = await gasOf();

  for (let day = 1; day < days; day++) {
    await dayLater();
    await tradeVolume(fork, pool, { account: 1, size: dailyVolume / 8n, rounds: 4 });
    await once(compounded.tokenId, 3);
  }
  await dayLater();
  const trades = await ledger.trades.history({});
  const gasWei = (await Promise.all(trades.map((trade) => ledger.attempts.ofTrade(trade.id))))
    .flat()
    .reduce((sum, attempt) => sum + (attempt.gasUsed ?? 0n) * (attempt.effectiveGasPrice ?? 0n), 0n);
  await ledger.close();
  const endWorth = { compounded: await worth(compounded.tokenId), never: await worth(never.tokenId) };
  const cusd = (raw: bigint) => (Number(raw) / 1e18).toFixed(6);
  const [end1, end2] = [await readPosition(fork, compounded.tokenId), await readPosition(fork, never.tokenId)];
  console.log(
    JSON.stringify(
      {
        oneCompound: {
          trades: firstCompound,
          onceRequests: compound,
          onceRequestsWhenNotWorthIt: idle,
          requestsCompoundingAdds: compound.httpRequests - idle.httpRequests,
        },
        week: {
          days,
          dailyVolumeCusd: values.volume,
          compounds: trades.filter((trade) => trade.kind === 'add-liquidity' && trade.status === 'confirmed').length,
          startWorthCusd: { compounded: cusd(startWorth.compounded), never: cusd(startWorth.never) },
          endWorthCusd: { compounded: cusd(endWorth.compounded), never: cusd(endWorth.never) },
          compoundedGainedCusd: cusd(endWorth.compounded - startWorth.compounded),
          neverGainedCusd: cusd(endWorth.never - startWorth.never),
          gasPaidCelo: (Number(gasWei) / 1e18).toFixed(6),
          liquidity: { compounded: end1.liquidity.toString(), never: end2.liquidity.toString() },
          uncollectedAtEnd: {
            compounded: [end1.uncollected.amount0.toString(), end1.uncollected.amount1.toString()],
            never: [end2.uncollected.amount0.toString(), end2.uncollected.amount1.toString()],
          },
        },
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
