/**
 * A status book kept up to date says exactly what a book read whole says, after every kind of change: trades
 * claimed, settled, refused and failed, runs started and finished, prices and balances marked, a pause, and trades
 * read again within the overlap window (never counted twice).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/json.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { StatusBook } from '../../src/status/book.ts';
import { statusReport } from '../../src/status/report.ts';
import type { DcaStrategy, LimitStrategy } from '../../src/strategy/types.ts';
import { backends, freshLedger } from '../helpers/ledgers.ts';

const wallet = '0x90f79bf6eb2c4f870365e785982e1f101e93b906' as const;
const cusd = { address: '0x00000000000000000000000000000000000000aa' as const, symbol: 'cUSD', decimals: 18 };
const celo = { address: '0x00000000000000000000000000000000000000bb' as const, symbol: 'CELO', decimals: 18 };
const router = '0x00000000000000000000000000000000000000cc' as const;
const schedule = { everyMs: 60_000, jitterMs: 0, catchUp: 'skip', firstRun: 'slot' } as const;
const dca: DcaStrategy = { id: 'dca', kind: 'dca', wallet: 'main', schedule, slippageBps: 50, sell: cusd, amount: 10n ** 18n, buy: celo };
const limit: LimitStrategy = {
  id: 'tp',
  kind: 'limit',
  wallet: 'main',
  schedule,
  slippageBps: 50,
  sell: celo,
  amount: 5n * 10n ** 18n,
  buy: cusd,
  takeProfit: '0.45',
  repeat: false,
};
const e18 = 10n ** 18n;

let ledger: Ledger;

let hashes = 0;
/** One trade of a strategy, from its run to where `to` says, as the pipeline records it. */
async function trade(
  strategy: DcaStrategy | LimitStrategy,
  slot: string,
  at: number,
  to: 'confirmed' | 'refused' | 'failed' | 'broadcast' | 'claimed',
  out = 2n * e18,
) {
  const { runId: run } = await ledger.runs.start(strategy.id, wallet, slot, at);
  const id = `${strategy.id}:${slot}#buy`;
  await ledger.trades.claimSlot(
    {
      id,
      strategyId: strategy.id,
      slot: `${slot}#buy`,
      kind: 'swap',
      wallet,
      chainId: 42220,
      tokenIn: strategy.sell.address,
      tokenOut: strategy.buy.address,
      amountIn: strategy.amount,
      slippageBps: 50,
    },
    { runId: run, now: at },
  );
  if (to === 'claimed') return { id, run };
  if (to === 'refused') {
    await ledger.trades.refuse(id, { reason: 'price: too low', refusal: 'price', retryable: false }, at + 1);
    await ledger.runs.finish(run, 'refused', 'refused', at + 1);
    return { id, run };
  }
  if (to === 'failed') {
    await ledger.trades.fail(id, { reason: 'the service failed', errorClass: 'service', retryable: false }, { now: at + 1 });
    await ledger.runs.finish(run, 'failed', 'failed', at + 1);
    return { id, run };
  }
  await ledger.trades.commitChecked(
    id,
    { call: { target: router, spender: router, router, data: '0x', expectedOut: out, minOut: out - 1n }, status: 'checked' },
    at,
  );
  const hash = `0x${(++hashes).toString(16).padStart(64, '0')}` as const;
  const [attempt] = await ledger.trades.recordSigned(
    [
      {
        intentId: id,
        purpose: 'trade',
        wallet,
        chainId: 42220,
        nonce: hashes,
        maxFeePerGas: 2n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 300_000n,
        rawTx: '0x02',
        hash,
      },
    ],
    { now: at },
  );
  await ledger.trades.markBroadcast(id, { now: at });
  if (to === 'broadcast') return { id, run, attempt, hash };
  await settle(id, run, attempt?.id as number, hash, at + 2, out);
  return { id, run };
}

async function settle(id: string, run: number, attemptId: number, hash: `0x${string}`, at: number, out: bigint) {
  await ledger.attempts.settleNonce(attemptId, { status: 'mined', blockNumber: 9n, gasUsed: 100_000n, effectiveGasPrice: 5_000_000_000n }, [], at);
  await ledger.trades.settle(
    id,
    { txHash: hash, blockNumber: 9n, gasUsed: 100_000n, effectiveGasPrice: 5_000_000_000n, amountOut: out, reportedOut: out, partnerFee: 0n },
    at,
  );
  await ledger.runs.finish(run, 'traded', 'bought', at);
}

const price = (at: number, token: string, usd: bigint) => ledger.marks.recordMarks([{ at, block: 1n, token, usdE18: usd, source: 'test' }], []);
/** The report as a fresh book reads it, and as the kept one does (the time fixed, so `nextRun` agrees). */
const both = async (book: StatusBook) => [await statusReport(ledger, { now: 5e12 }), await statusReport(book, { now: 5e12 })];

describe.each(backends)('a status book kept up to date, on %s', (backend) => {
  beforeAll(async () => {
    ledger = await Ledger.open(freshLedger(backend));
    await ledger.marks.nameTokens([cusd, celo]);
    await ledger.strategies.describe(
      [dca, limit].map((strategy) => ({ id: strategy.id, kind: strategy.kind, walletName: 'main', wallet, definition: toJson(strategy) })),
      1_000,
    );
  });
  afterAll(() => ledger.close());

  it('says what a book read whole says, after each change, however often it is asked', async () => {
    const book = new StatusBook(ledger);
    const [emptyWhole, emptyKept] = await both(book);
    expect(emptyKept).toEqual(emptyWhole);

    await price(10_000, cusd.address, e18);
    await price(10_000, celo.address, e18 / 2n);
    await price(10_000, 'native', e18 / 2n);
    await ledger.marks.recordMarks([], [{ at: 10_000, block: 1n, wallet, token: cusd.address, balance: 100n * e18 }]);
    await trade(dca, '2026-01-01T00:00:00.000Z', 20_000, 'confirmed');
    const open = await trade(dca, '2026-01-01T00:01:00.000Z', 80_000, 'broadcast');
    await trade(dca, '2026-01-01T00:02:00.000Z', 140_000, 'refused');
    let [whole, kept] = await both(book);
    expect(kept).toEqual(whole);
    const dcaStatus = kept?.strategies.find((s) => s.id === 'dca');
    expect(dcaStatus?.trades).toMatchObject({ confirmed: 1, refused: 1, open: 1 });
    expect(dcaStatus?.dca?.invested.raw).toBe(String(e18));
    expect(dcaStatus?.runs).toEqual({ traded: 1, refused: 1, interrupted: 1 });

    // The open trade settles; another fails; the take-profit fills; prices move; a pause.
    await settle(open.id, open.run, open.attempt?.id as number, open.hash as `0x${string}`, 200_000, 3n * e18);
    await trade(dca, '2026-01-01T00:03:00.000Z', 200_000, 'failed');
    await trade(limit, '2026-01-01T00:03:00.000Z', 210_000, 'confirmed', (25n * e18) / 10n);
    await price(220_000, celo.address, (e18 * 6n) / 10n);
    await ledger.pauses.pause({ scope: 'strategy', key: 'dca', reason: 'looking' }, 230_000);
    [whole, kept] = await both(book);
    expect(kept).toEqual(whole);
    const after = kept?.strategies.find((s) => s.id === 'dca');
    expect(after?.trades).toMatchObject({ confirmed: 2, refused: 1, failed: 1, open: 0 });
    expect(after?.dca?.received.raw).toBe(String(5n * e18));
    // 5 CELO at 0.6 USD, in cUSD at 1 USD.
    expect(after?.dca?.value?.raw).toBe(String(3n * e18));
    expect(after?.gas.native.raw).toBe(String(2n * 100_000n * 5_000_000_000n));
    expect(after?.paused?.reason).toBe('looking');
    expect(kept?.strategies.find((s) => s.id === 'tp')?.limit?.fills).toHaveLength(1);

    // Asked again with nothing new, and after the settled trades are read again in the overlap: nothing counted twice.
    expect(await statusReport(book, { now: 5e12 })).toEqual(whole);
    await trade(dca, '2026-01-01T00:04:00.000Z', 260_000, 'claimed');
    [whole, kept] = await both(book);
    expect(kept).toEqual(whole);
    expect(kept?.strategies.find((s) => s.id === 'dca')?.trades).toMatchObject({ confirmed: 2, open: 1 });
  });

  it("serves a strategy's chart series and trades from the ledger, whatever it keeps", async () => {
    const book = new StatusBook(ledger);
    await book.refresh();
    const known = book.find('dca');
    if (!known) throw new Error('dca unknown');
    const { series, trades } = await book.detail(known);
    expect(trades.map((t) => t.status)).toEqual(['claimed', 'failed', 'refused', 'confirmed', 'confirmed']);
    expect(series.value.at(-1)).toMatchObject({ invested: '2', value: '3' });
    expect(series.gas.at(-1)).toMatchObject({ native: '0.001' });
  });
});
