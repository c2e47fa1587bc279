/**
 * Keeping a V3 position in range, measured from outside the daemon: a simulated week in which CELO's price falls
 * a few percent a day (the oracle reports it, arbitrage brings the pool along) while swap volume trades both ways.
 * Two equal positions of the same narrow range: one kept by `routekeeper once` daily with keep-in-range (and
 * compounding), its twin left alone. By default on the busy CELO/WETH pool that keeps one observation (a swap every
 * hour), each re-range one transaction through the position mover; `--pool grown` on cUSD/CELO, `--steps` without
 * the mover (three transactions). Prints the gas of each re-range's trades, the node requests of a `once` that
 * re-ranges, and what each position is worth at the end, with the fees and gas that made the difference.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { sqrtPriceX96FromUsd } from '../src/pools/uniswap-v3/liquidity.ts';
import { tickAtSqrtRatio } from '../src/pools/uniswap-v3/math.ts';
import { openPosition, readPosition, swapInPool, tradeBusily, tradeVolume } from '../support/positions.ts';
import { trader } from '../support/traders.ts';
import { startPositionBench } from './v3-position-bench.ts';

const { values } = parseArgs({
  options: {
    days: { type: 'string', default: '7' },
    volume: { type: 'string', default: '100000' },
    drift: { type: 'string', default: '-3' },
    // The busy CELO/WETH pool of one observation (default), or cUSD/CELO with its oracle grown.
    pool: { type: 'string', default: 'one-observation' },
    // Re-ranges through the position mover in one transaction (default), or in steps.
    steps: { type: 'boolean', default: false },
  },
});
if (values.pool !== 'one-observation' && values.pool !== 'grown') throw new Error(`--pool is one-observation or grown, not ${values.pool}`);
const days = Number(values.days);
const driftPercent = Number(values.drift);
const e18 = 10n ** 18n;
const dailyVolume = BigInt(values.volume) * e18;

const bench = await startPositionBench('v3-rerange', { pool: values.pool, mover: !values.steps });
const { fork, pool, dataDir, worth, dayLater } = bench;
const keptFile = 'compound: { minFeesToGas: 3 }, keepInRange: { outsideFor: 12h, oldPosition: keep }';
const arbitrageur = 3;

/**
 * The pool's tick brought to the world's price by swaps from the arbitrageur, to within a tick (0.01%): an add's
 * minimums come from the reference, so a pool left further off it refuses adds to a narrow range.
 */
async function arbitrage(): Promise<number> {
  const prices = bench.prices();
  const [usd0, usd1] = [prices[pool.token0] as number, prices[pool.token1] as number];
  const target = tickAtSqrtRatio(sqrtPriceX96FromUsd(BigInt(Math.round(usd0 * 1e9)) * 10n ** 9n, BigInt(Math.round(usd1 * 1e9)) * 10n ** 9n, 18, 18));
  // Steps in dollars, sold in whichever token the side needs.
  let stepUsd = 25_000;
  let lastSide: 'token0' | 'token1' | undefined;
  for (let round = 0; round < 200; round++) {
    const tick = await poolTick();
    if (Math.abs(tick - target) <= 1) return tick;
    // Selling token0 lowers the tick; selling token1 raises it. Past the target, turn round with half the step.
    const side = tick > target ? 'token0' : 'token1';
    if (lastSide && side !== lastSide) stepUsd /= 2;
    lastSide = side;
    await swapInPool(fork, pool, { account: arbitrageur, sell: side, amount: inTokens(side === 'token0' ? pool.token0 : pool.token1, stepUsd) });
  }
  return poolTick();
}

/** `usd` worth of a token at the world's prices now, in its raw units (18 decimals). */
function inTokens(symbol: string, usd: number): bigint {
  const price = bench.prices()[symbol] as number;
  return BigInt(Math.round((usd / price) * 1e6)) * 10n ** 12n;
}

async function poolTick(): Promise<number> {
  const [, tick] = await fork.publicClient.readContract({ address: pool.address, abi: artifacts.UniswapV3Pool.abi, functionName: 'slot0' });
  return tick;
}

try {
  // The arbitrageur's funds: the devnet's tokens mint to anyone.
  const { address, wallet } = trader(fork, arbitrageur);
  for (const symbol of [pool.token0, pool.token1]) {
    const token = fork.token(symbol);
    await fork.confirm(await wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [address, 100_000_000n * e18] }));
  }
  // Two equal positions of $20,000 a side at the world's prices.
  const amounts = { halfWidthTicks: 600, amount0: inTokens(pool.token0, 20_000), amount1: inTokens(pool.token1, 20_000) };
  const kept = await openPosition(fork, pool, amounts);
  const alone = await openPosition(fork, pool, { ...amounts, account: 2 });
  const startWorth = { kept: await worth(kept.tokenId), alone: await worth(alone.tokenId) };
  const me = trader(fork, 0).address;
  const walletTokens = async () => [await fork.balanceOf(fork.token(pool.token0), me), await fork.balanceOf(fork.token(pool.token1), me)] as const;
  const walletAtStart = await walletTokens();

  let celo = bench.prices().CELO as number;
  const onceRequests: { day: number; httpRequests: number; calls: number }[] = [];
  for (let day = 1; day <= days; day++) {
    // The day's move first (the oracle reports it, arbitrage follows in the pool), then its volume, then the day's run.
    celo *= 1 + driftPercent / 100;
    await dayLater({ ...bench.prices(), CELO: celo });
    await arbitrage();
    await tradeVolume(fork, pool, { account: 1, size: inTokens(pool.token0, Number(dailyVolume / e18) / 8), rounds: 4 });
    // The rest of the day, a swap every hour (every block the bench mines meanwhile has one): a pool of one
    // observation never reaches the 12 h window back.
    await tradeBusily(fork, pool, { seconds: 86_400, everySeconds: 3_600, usd: 200, prices: bench.prices() });
    onceRequests.push({ day, ...(await bench.once(kept.tokenId, keptFile)) });
  }

  const ledger = await Ledger.openReadOnly(join(dataDir, 'ledger.sqlite'));
  const trades = (await ledger.trades.history({})).toReversed();
  const runs = (await ledger.runs.list({ strategyId: 'lp' })).toReversed().map((run) => `${run.outcome}: ${run.note}`);
  const gasWei = (await Promise.all(trades.map((trade) => ledger.attempts.ofTrade(trade.id))))
    .flat()
    .reduce((sum, attempt) => sum + (attempt.gasUsed ?? 0n) * (attempt.effectiveGasPrice ?? 0n), 0n);
  await ledger.close();
  const reRanges = [...new Set(trades.filter((trade) => trade.slot.includes('#re-range')).map((trade) => trade.slot.split('#')[0]))].map((slot) => {
    const steps = trades.filter((trade) => trade.slot.startsWith(`${slot}#re-range`));
    return {
      slot,
      steps: steps.map((trade) => ({
        kind: trade.kind,
        status: trade.status,
        gasUsed: trade.settlement?.gasUsed.toString() ?? null,
        amountIn: trade.amountIn.toString(),
        amountOut: trade.settlement?.amountOut?.toString() ?? null,
        moved: trade.settlement?.position ? [trade.settlement.position.amount0.toString(), trade.settlement.position.amount1.toString()] : null,
        // A move's mint: what it put into the new position (the rest of what it collected and bought came back).
        added:
          trade.settlement?.position?.added0 !== undefined
            ? [trade.settlement.position.added0.toString(), String(trade.settlement.position.added1 ?? 0n)]
            : null,
      })),
      gasUsed: steps.reduce((sum, trade) => sum + (trade.settlement?.gasUsed ?? 0n), 0n).toString(),
      newPosition: steps.find((trade) => trade.kind === 'mint' || trade.kind === 'move-position')?.settlement?.position?.positionId?.toString() ?? null,
    };
  });
  const held = reRanges
    .map((entry) => entry.newPosition)
    .filter((id) => id !== null)
    .at(-1);
  const keptNow = held === undefined ? kept.tokenId : BigInt(held);
  // What the kept strategy holds now: its current position, and what its steps left in the wallet beside it.
  const walletAtEnd = await walletTokens();
  // What its steps left beside the position (the change of the wallet's two tokens), at the world's prices now.
  const leftInWallet = bench.inCusd(pool.token0, walletAtEnd[0] - walletAtStart[0]) + bench.inCusd(pool.token1, walletAtEnd[1] - walletAtStart[1]);
  const endWorth = { kept: (await worth(keptNow)) + leftInWallet, alone: await worth(alone.tokenId) };
  const [keptEnd, aloneEnd] = [await readPosition(fork, keptNow), await readPosition(fork, alone.tokenId)];
  const cusd = (raw: bigint) => (Number(raw) / 1e18).toFixed(6);
  const rangeOf = (position: { tickLower: number; tickUpper: number; tick: number }) => ({
    range: [position.tickLower, position.tickUpper],
    tick: position.tick,
    inRange: position.tick >= position.tickLower && position.tick < position.tickUpper,
  });
  console.log(
    JSON.stringify(
      {
        days,
        dailyVolumeCusd: values.volume,
        celoDriftPercentPerDay: driftPercent,
        celoUsd: { start: (celo / (1 + driftPercent / 100) ** days).toFixed(4), end: celo.toFixed(4) },
        runs,
        refused: trades
          .filter((trade) => trade.status !== 'confirmed')
          .map((trade) => `${trade.slot}: ${trade.kind} ${trade.status}: ${trade.failure?.reason ?? ''}`),
        reRanges,
        onceRequests,
        startWorthCusd: { kept: cusd(startWorth.kept), alone: cusd(startWorth.alone) },
        endWorthCusd: { kept: cusd(endWorth.kept), alone: cusd(endWorth.alone), keptOfWhichLeftInWallet: cusd(leftInWallet) },
        keptAgainstAloneCusd: cusd(endWorth.kept - endWorth.alone),
        compounds: trades.filter((trade) => trade.kind === 'add-liquidity' && trade.status === 'confirmed').length,
        gasPaidCelo: (Number(gasWei) / 1e18).toFixed(6),
        positions: { kept: { id: keptNow.toString(), ...rangeOf(keptEnd) }, alone: { id: alone.tokenId.toString(), ...rangeOf(aloneEnd) } },
        uncollectedAtEnd: {
          kept: [keptEnd.uncollected.amount0.toString(), keptEnd.uncollected.amount1.toString()],
          alone: [aloneEnd.uncollected.amount0.toString(), aloneEnd.uncollected.amount1.toString()],
        },
      },
      null,
      2,
    ),
  );
} finally {
  await bench.close();
}
