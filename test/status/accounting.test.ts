/**
 * Accounting against numbers computed here from the chain alone (receipts' Transfer logs, gas paid, the
 * feeds' answers), for a scripted sequence on the devnet: two DCA buys with the price moving between them,
 * a take-profit fill, a rebalance, and a compound (claim and re-deposit). Each figure must match to the wei,
 * and its text to the displayed decimals; `status --json` must print the same report for each kind.
 */
import { Writable } from 'node:stream';
import { type Address, type Hex, type Log, erc20Abi, formatUnits, parseEventLogs, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { runAndReport } from '../../src/engine/daemon.ts';
import { markOnce } from '../../src/engine/marker.ts';
import { toJson } from '../../src/json.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { aggregatorV3Abi } from '../../src/price/feed.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { statusReport } from '../../src/status/report.ts';
import type { CompoundStrategy, DcaStrategy, LimitStrategy, RebalanceStrategy, Strategy } from '../../src/strategy/types.ts';
import { TokenNames } from '../../src/trade/describe.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import { runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, swapTrade, testExecutor } from '../helpers/engine.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
});

const e18 = 10n ** 18n;
/** "1,234.567891 cUSD": grouped, cut (not rounded) to 6 decimals, trailing zeros dropped, as the screen shows amounts at or above 1. */
function shown(raw: bigint, symbol: string): string {
  const [whole, fraction = ''] = formatUnits(raw < 0n ? -raw : raw, 18).split('.');
  const kept = fraction.slice(0, 6).replace(/0+$/, '');
  return `${raw < 0n ? '-' : ''}${(whole as string).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${kept ? `.${kept}` : ''} ${symbol}`;
}

describe('accounting from the ledger', () => {
  // Some thirty trades and `status` processes: 31–33 s beside a second suite, and past the 60 s default once beside
  // two. Sized to the work, as the chaos test's time is.
  it('matches hand-computed DCA, limit, rebalance and compound figures to the wei, and status --json prints them', async () => {
    const executor = await testExecutor(fork);
    executors.push(executor);
    const wallet = executor.wallet.address;
    const token = (symbol: string) => ({ address: fork.token(symbol), symbol, decimals: 18 });
    const [cUSD, CELO, RWD] = [token('cUSD'), token('CELO'), token('RWD')];
    const gaugeAddress = fork.addressBook.contracts.gauges['CELO/cUSD']?.address as Address;
    const gauge = { address: gaugeAddress, symbol: 'g-CELO/cUSD', decimals: 18 };
    const names = [cUSD, CELO, RWD, gauge];
    await executor.ledger.marks.nameTokens(names);
    const schedule = { everyMs: 60_000, jitterMs: 0, catchUp: 'once' as const, firstRun: 'now' as const };
    const common = { wallet: 'main', schedule, slippageBps: 100 };
    const dca: DcaStrategy = { ...common, id: 'dca', kind: 'dca', sell: cUSD, amount: parseUnits('10', 18), buy: CELO };
    const limit: LimitStrategy = {
      ...common,
      id: 'tp',
      kind: 'limit',
      sell: CELO,
      amount: parseUnits('100', 18),
      buy: cUSD,
      takeProfit: '0.45',
      repeat: false,
    };
    const rebalance: RebalanceStrategy = {
      ...common,
      id: 'rb',
      kind: 'rebalance',
      targets: [
        { token: CELO, weight: 10 },
        { token: cUSD, weight: 19 },
      ],
      quote: cUSD,
      driftBps: 100,
      minTrade: e18,
      maxPriceDeviationBps: 1000,
    };
    const compound: CompoundStrategy = {
      ...common,
      id: 'cmp',
      kind: 'compound',
      gauge: { address: gaugeAddress, pool: gaugeAddress, rewardToken: RWD },
      valueToken: cUSD,
      minRewardValue: 0n,
    };
    const strategies: Strategy[] = [dca, limit, rebalance, compound];
    await executor.ledger.strategies.describe(
      strategies.map((strategy) => ({ id: strategy.id, kind: strategy.kind, walletName: 'main', wallet, definition: toJson(strategy) })),
    );
    await executor.ledger.strategies.setMeta('native-token', toJson(CELO));

    const quiet = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }), pretty: false });
    const observers = { logger: quiet, metrics: createMetrics(), notifier: { notify() {}, flush: async () => {} } };
    const execution = { ledger: executor.ledger, executors: new Map([['main', executor]]), names: new TokenNames(names) };
    const runtime = { client: executor.wallet.client, routing: executor.routing, nativeToken: CELO };
    const mark = () =>
      markOnce({
        client: executor.wallet.client,
        prices: executor.prices,
        ledger: executor.ledger,
        strategies,
        wallets: new Map([['main', wallet]]),
        nativeToken: CELO,
        logger: quiet,
      });
    const setPrices = (prices: Record<string, number>) => reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, prices);
    const feed = (symbol: string) => {
      const source = fork.addressBook.priceSources?.[symbol]?.find((s) => s.kind === 'feed');
      return fork.publicClient
        .readContract({ address: (source as { address: Address }).address, abi: aggregatorV3Abi, functionName: 'latestRoundData' })
        .then((round) => round[1]);
    };
    // What the chain says each trade paid the wallet, and the gas of every transaction the ledger sent for it.
    const receivedBy = async (hash: Hex, tokenOut: Address) => {
      const receipt = await fork.publicClient.getTransactionReceipt({ hash });
      return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs as Log[] })
        .filter((log) => log.address.toLowerCase() === tokenOut.toLowerCase() && log.args.to.toLowerCase() === wallet.toLowerCase())
        .reduce((sum, log) => sum + log.args.value, 0n);
    };
    const gasOf = async (intentId: string) => {
      let wei = 0n;
      for (const attempt of await executor.ledger.attempts.ofTrade(intentId)) {
        const receipt = await fork.publicClient.getTransactionReceipt({ hash: attempt.hash }).catch(() => undefined);
        if (receipt) wei += receipt.gasUsed * receipt.effectiveGasPrice;
      }
      return wei;
    };
    const hashOf = (report: Awaited<ReturnType<typeof runAndReport>>, i = 0) => report?.trades[i]?.txHash as Hex;

    // --- Take-profit at 0.45 cUSD per CELO: CELO is at $0.50, it sells 100 CELO.
    await setPrices({ CELO: 0.5, cUSD: 1 });
    await mark();
    const sold = await runAndReport(limit, '2026-11-21T10:00:00.000Z', runtime, execution, observers);
    expect(sold?.trades.map((trade) => trade.status)).toEqual(['confirmed']);
    const limitOut = await receivedBy(hashOf(sold), cUSD.address);

    // --- Rebalance CELO/cUSD 10:19 (a small buy of CELO): its start is the wallet's balances marked just before.
    await mark();
    const [celoStart, cusdStart] = [await fork.balanceOf(CELO.address, wallet), await fork.balanceOf(cUSD.address, wallet)];
    const balanced = await runAndReport(rebalance, '2026-11-21T10:01:00.000Z', runtime, execution, observers);
    expect(balanced?.trades.map((trade) => `${trade.intentId.split('#')[1]} ${trade.status}`)).toEqual(['buy-CELO confirmed']);
    const spent = balanced?.trades[0]?.trade.amountIn as bigint;
    const bought = await receivedBy(hashOf(balanced), CELO.address);

    // --- Compound: a position in the gauge, an hour of rewards, then claim and re-deposit.
    const deposited = await runTrade(executor, {
      ...swapTrade(fork, 'setup', 'position'),
      kind: 'deposit',
      tokenIn: CELO.address,
      tokenOut: gaugeAddress,
      amountIn: parseUnits('8000', 18),
    });
    expect(deposited.status, deposited.reason).toBe('confirmed');
    await fork.testClient.increaseTime({ seconds: 3600 });
    await fork.testClient.mine({ blocks: 1 });
    await mark();
    const compounded = await runAndReport(compound, '2026-11-21T11:02:00.000Z', runtime, execution, observers);
    expect(compounded?.trades.map((trade) => `${trade.trade.kind} ${trade.status}`)).toEqual(['claim confirmed', 'deposit confirmed']);
    const claimed = await receivedBy(hashOf(compounded, 0), RWD.address);
    const lpAdded = await receivedBy(hashOf(compounded, 1), gaugeAddress);
    const marks = await executor.ledger.marks.prices();
    const markOf = (address: Address) => marks.filter((m) => m.token === address.toLowerCase()).at(-1)?.usdE18 as bigint;
    const claimedValue = (claimed * markOf(RWD.address)) / markOf(cUSD.address);
    const compoundGas = (await gasOf('cmp:2026-11-21T11:02:00.000Z#claim')) + (await gasOf('cmp:2026-11-21T11:02:00.000Z#deposit'));

    // --- DCA: buy at CELO $0.50, then at $0.55; everything is valued at $0.60.
    await mark();
    const buy1 = await runAndReport(dca, '2026-11-21T11:03:00.000Z', runtime, execution, observers);
    await setPrices({ CELO: 0.55 });
    await mark();
    const buy2 = await runAndReport(dca, '2026-11-21T11:04:00.000Z', runtime, execution, observers);
    expect([buy1, buy2].map((run) => run?.trades[0]?.status)).toEqual(['confirmed', 'confirmed']);
    await setPrices({ CELO: 0.6 });
    await mark();
    const [celoUsd, cusdUsd] = [await feed('CELO'), await feed('cUSD')];
    expect([celoUsd, cusdUsd]).toEqual([60_000_000n, 100_000_000n]);

    const out1 = await receivedBy(hashOf(buy1), CELO.address);
    const out2 = await receivedBy(hashOf(buy2), CELO.address);
    const invested = 20n * e18;
    const received = out1 + out2;
    const value = (received * celoUsd) / cusdUsd;
    const lumpReceived = (invested * out1) / (10n * e18);
    const lumpValue = (lumpReceived * celoUsd) / cusdUsd;
    const [gas1, gas2] = [await gasOf('dca:2026-11-21T11:03:00.000Z#buy'), await gasOf('dca:2026-11-21T11:04:00.000Z#buy')];
    // Gas valued at the CELO price in force when each trade was made: $0.50, then $0.55.
    const gasValue = (gas1 * 50_000_000n) / cusdUsd + (gas2 * 55_000_000n) / cusdUsd;
    const [celoNow, cusdNow] = [celoStart + bought, cusdStart - spent];
    const worth = (celo: bigint, cusd: bigint) => (celo * celoUsd) / cusdUsd + cusd;

    const report = await statusReport(executor.ledger);
    const byId = Object.fromEntries(report.strategies.map((strategy) => [strategy.id, strategy]));

    // DCA, to the wei and as shown.
    const d = byId.dca?.dca;
    expect(d?.invested.raw).toBe(String(invested));
    expect(d?.received.raw).toBe(String(received));
    expect(d?.value?.raw).toBe(String(value));
    expect(d?.pnl?.raw).toBe(String(value - invested));
    expect(d?.pnlPercent).toBe((Number(((value - invested) * 10_000n) / invested) / 100).toFixed(2));
    expect(d?.averagePrice?.value).toBe(formatUnits((invested * e18) / received, 18));
    expect(d?.currentPrice?.text).toBe('0.6 cUSD per CELO');
    expect(d?.lumpSum?.received.raw).toBe(String(lumpReceived));
    expect(d?.vsLumpSum?.raw).toBe(String(value - lumpValue));
    expect(d?.invested.text).toBe('20 cUSD');
    expect(d?.received.text).toBe(shown(received, 'CELO'));
    expect(d?.value?.text).toBe(shown(value, 'cUSD'));
    expect(byId.dca?.gas.native.raw).toBe(String(gas1 + gas2));
    expect(byId.dca?.gas.value?.raw).toBe(String(gasValue));
    expect(byId.dca?.trades).toMatchObject({ confirmed: 2, refused: 0, failed: 0 });
    expect(byId.dca?.partnerFees).toEqual([]);
    expect(byId.dca?.partnerFeesUnknown).toBe(0);

    // Limit: the fill price against its trigger.
    const l = byId.tp?.limit;
    expect(l?.fills).toHaveLength(1);
    expect(l?.fills[0]).toMatchObject({ trigger: 'take-profit', triggerPrice: '0.45', sold: { raw: String(100n * e18) }, received: { raw: String(limitOut) } });
    expect(l?.fills[0]?.price?.value).toBe(formatUnits((limitOut * e18) / (100n * e18), 18));
    expect(l?.fills[0]?.vsTrigger).toBe((Number(((limitOut - 45n * e18) * 10_000n) / (45n * e18)) / 100).toFixed(2));
    expect(l?.fills[0]?.referencePrice?.text).toBe('0.5 cUSD per CELO');

    // Rebalance: its own holdings and value against holding the start.
    const r = byId.rb?.rebalance;
    expect(r?.start?.map((a) => a.raw)).toEqual([String(celoStart), String(cusdStart)]);
    expect(r?.holdings?.map((a) => a.raw)).toEqual([String(celoNow), String(cusdNow)]);
    expect(r?.value?.raw).toBe(String(worth(celoNow, cusdNow)));
    expect(r?.hold?.raw).toBe(String(worth(celoStart, cusdStart)));
    expect(r?.vsHold?.raw).toBe(String(worth(celoNow, cusdNow) - worth(celoStart, cusdStart)));
    expect(r?.turnover.raw).toBe(String(spent));
    expect(r?.trades).toBe(1);

    // Compound: rewards, their value when claimed, position added, yield after gas.
    const c = byId.cmp?.compound;
    expect(c?.compounds).toBe(1);
    expect(c?.claimed.raw).toBe(String(claimed));
    expect(claimed).toBeGreaterThan(0n);
    expect(c?.claimedValue?.raw).toBe(String(claimedValue));
    expect(c?.lpAdded.raw).toBe(String(lpAdded));
    expect(byId.cmp?.gas.native.raw).toBe(String(compoundGas));
    expect(c?.realisedYield?.raw).toBe(String(claimedValue - BigInt(byId.cmp?.gas.value?.raw as string)));

    // The wallet's line: the marked balances and their USD value.
    const main = report.wallets[0];
    expect(main?.name).toBe('main');
    expect(main?.trades).toBe(2 + 1 + 1 + 2);

    // status --json reads the same ledger and prints the same report, for every kind.
    for (const id of ['dca', 'tp', 'rb', 'cmp']) {
      const printed = await runCli(['status', '--json', '--strategy', id, '--ledger', executor.ledgerFile]);
      expect(printed.code, printed.stderr).toBe(0);
      const json = JSON.parse(printed.stdout);
      expect(json.version).toBe(1);
      expect(json.strategies).toHaveLength(1);
      const { nextRun: _n, ...printedStrategy } = json.strategies[0];
      const { nextRun: _m, ...expected } = JSON.parse(toJson(byId[id]));
      expect(printedStrategy).toEqual(expected);
    }
    const text = await runCli(['status', '--ledger', executor.ledgerFile]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`invested 20 cUSD, received ${shown(received, 'CELO')}`);
    expect(text.stdout).toContain(`worth ${shown(value, 'cUSD')} at 0.6 cUSD per CELO`);
    expect(text.stdout.replace(executor.ledgerFile, '')).not.toMatch(/\d{16,}/);
  }, 150_000);
});
