/**
 * The cost and the worth of compounding a V3 position, measured from outside the daemon: the gas of one compound's
 * three trades and the node requests of a `routekeeper once` that compounds against one that finds it not worth
 * it; then a simulated week of daily volume, one position compounded daily by `once`, its twin never.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Ledger } from '../src/ledger/ledger.ts';
import { openPosition, readPosition, tradeVolume } from '../support/positions.ts';
import { startPositionBench } from './v3-position-bench.ts';

const { values } = parseArgs({ options: { days: { type: 'string', default: '7' }, volume: { type: 'string', default: '20000' } } });
const days = Number(values.days);
const e18 = 10n ** 18n;
const dailyVolume = BigInt(values.volume) * e18;

const bench = await startPositionBench('v3-position');
const { fork, pool, dataDir, worth, dayLater } = bench;
const once = (positionId: bigint, minFeesToGas: number) => bench.once(positionId, `compound: { minFeesToGas: ${minFeesToGas} }`);

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
  await bench.close();
}
