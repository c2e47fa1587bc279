/**
 * Many trades per block per wallet: a wallet's trades are signed in turn on consecutive nonces and sent without
 * waiting for each other's receipts; each is followed on its own. The node mines by hand here (automine off), so a
 * block holds exactly what the test lets into it.
 */
import { type Address, type Hex, encodeAbiParameters, keccak256, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/model/attempt.ts';
import { resumeOpenTrades, runTrade } from '../../src/trade/pipeline.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, swapTrade, testExecutor } from '../helpers/engine.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import { waitFor as waitUntil } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await fork.testClient.setAutomine(true);
  for (const close of closing.splice(0).reverse()) await close();
});
const makeExecutor = async (options: Parameters<typeof testExecutor>[1] = {}) => {
  const executor = await testExecutor(fork, options);
  closing.push(() => executor.close());
  return executor;
};
const me = () => fork.addressBook.accounts[0]?.address as Address;

/** The node mines by hand here: a wait may span several of the pipeline's polls. */
const waitFor = <T>(probe: Parameters<typeof waitUntil<T>>[0], what: string) => waitUntil(probe, what, 20_000);

/** Every attempt of the wallet in the ledger, by nonce. */
async function attemptsOf(executor: TestExecutor, intentIds: readonly string[]): Promise<Attempt[]> {
  const all = (await Promise.all(intentIds.map((id) => executor.ledger.attempts.ofTrade(id)))).flat();
  return all.sort((a, b) => a.nonce - b.nonce || a.id - b.id);
}

/** Waits until the node's pool holds `count` transactions of the wallet (sent, none mined: automine is off). */
async function inPool(count: number) {
  await waitFor(async () => {
    const [latest, pending] = await Promise.all([
      fork.publicClient.getTransactionCount({ address: me(), blockTag: 'latest' }),
      fork.publicClient.getTransactionCount({ address: me(), blockTag: 'pending' }),
    ]);
    return pending - latest >= count;
  }, `${count} transactions of the wallet in the node's pool`);
}

/** A cUSD→CELO swap of the wallet; `slot` names it. */
const sell = (slot: string, amount = '40') => swapTrade(fork, 'pipelined', slot, { amountIn: parseUnits(amount, 18) });

/** Zeroes the wallet's balance of a devnet token (OpenZeppelin balances live in slot 0). */
async function drain(token: Address) {
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [me(), 0n]));
  await fork.testClient.setStorageAt({ address: token, index: slot, value: `0x${'0'.repeat(64)}` });
}

describe('many trades of one wallet per block', () => {
  it('ten trades, each with its exact approval, all mine in one block on consecutive nonces; the balances are exact', async () => {
    const executor = await makeExecutor();
    const [usdBefore, celoBefore, nonceBefore] = [
      await fork.balanceOf(fork.token('cUSD'), me()),
      await fork.balanceOf(fork.token('CELO'), me()),
      await fork.publicClient.getTransactionCount({ address: me() }),
    ];
    await fork.testClient.setAutomine(false);
    const slots = Array.from({ length: 10 }, (_, i) => `ten-${i}`);
    const running = Promise.all(slots.map((slot) => runTrade(executor, sell(slot))));
    // All twenty are sent before any is mined: nobody waited for a receipt.
    await inPool(20);
    const blockBefore = await fork.publicClient.getBlockNumber();
    await fork.testClient.mine({ blocks: 1 });
    const reports = await running;

    for (const report of reports) expect(report.status, report.reason).toBe('confirmed');
    const attempts = await attemptsOf(
      executor,
      slots.map((slot) => `pipelined:${slot}`),
    );
    expect(attempts.map((a) => a.nonce)).toEqual(Array.from({ length: 20 }, (_, i) => nonceBefore + i));
    expect(attempts.every((a) => a.status === 'mined' && a.blockNumber === blockBefore + 1n)).toBe(true);
    // Each trade's approval comes just before its own trade.
    for (const slot of slots) {
      expect((await executor.ledger.attempts.ofTrade(`pipelined:${slot}`)).map((a) => a.purpose)).toEqual(['approve', 'trade']);
    }
    const received = reports.reduce((sum, report) => sum + (report.amountOut as bigint), 0n);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('400', 18));
    expect(await fork.balanceOf(fork.token('CELO'), me())).toBe(celoBefore + received);
    for (const report of reports) expect((await executor.ledger.trades.get(report.intentId))?.settlement?.amountOut).toBe(report.amountOut);
    // The balance check covered the block's ten trades together, not skipped.
    const skipped = (await Promise.all(slots.map((slot) => executor.ledger.events.list(`pipelined:${slot}`))))
      .flat()
      .filter((e) => e.kind === 'balance-check-skipped');
    expect(skipped).toEqual([]);
  });

  it('a middle trade that reverts is failed with its reason; the ones before and after it are confirmed', async () => {
    const executor = await makeExecutor({ settings: { approvals: 'unlimited' } });
    // One unlimited approval of each token first, so each trade is one transaction.
    for (const [slot, token] of [
      ['warm-usd', 'cUSD'],
      ['warm-eur', 'cEUR'],
    ] as const) {
      const warm = await runTrade(executor, swapTrade(fork, 'pipelined', slot, { tokenIn: fork.token(token), amountIn: parseUnits('1', 18) }));
      expect(warm.status, warm.reason).toBe('confirmed');
    }
    const [usdBefore, nonceBefore] = [await fork.balanceOf(fork.token('cUSD'), me()), await fork.publicClient.getTransactionCount({ address: me() })];
    await fork.testClient.setAutomine(false);
    const first = runTrade(executor, sell('first'));
    await inPool(1);
    // The middle one sells cEUR for cUSD.
    const middle = runTrade(
      executor,
      swapTrade(fork, 'pipelined', 'middle', { tokenIn: fork.token('cEUR'), tokenOut: fork.token('cUSD'), amountIn: parseUnits('30', 18) }),
    );
    await inPool(2);
    const last = runTrade(executor, sell('last'));
    await inPool(3);
    // The wallet's cEUR is gone before the block: only the middle trade can no longer pay.
    await drain(fork.token('cEUR'));
    await fork.testClient.mine({ blocks: 1 });
    const [a, b, c] = (await Promise.all([first, middle, last])) as [TradeReport, TradeReport, TradeReport];

    expect(a.status, a.reason).toBe('confirmed');
    expect(c.status, c.reason).toBe('confirmed');
    expect(b).toMatchObject({ status: 'failed', reason: 'reverted on chain: MinimaRouter: Initial transferFrom failed!' });
    expect(await executor.ledger.trades.get(b.intentId)).toMatchObject({ status: 'failed', failure: { errorClass: 'reverted' } });
    const attempts = await attemptsOf(executor, [a.intentId, b.intentId, c.intentId]);
    expect(attempts.map((x) => [x.intentId, x.nonce, x.status])).toEqual([
      [a.intentId, nonceBefore, 'mined'],
      [b.intentId, nonceBefore + 1, 'reverted'],
      [c.intentId, nonceBefore + 2, 'mined'],
    ]);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('80', 18));
  });

  it('a stuck first nonce is re-priced on its own nonce; the trade behind it waits, never signed again, and both mine in order', async () => {
    const executor = await makeExecutor({ settings: { approvals: 'unlimited' }, wallet: { stuckAfterMs: 300 } });
    const warm = await runTrade(executor, sell('warm', '1'));
    expect(warm.status, warm.reason).toBe('confirmed');
    const nonceBefore = await fork.publicClient.getTransactionCount({ address: me() });
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
    await fork.testClient.setAutomine(false);
    const first = runTrade(executor, sell('stuck-first'));
    await inPool(1);
    const second = runTrade(executor, sell('behind'));
    await waitFor(async () => (await executor.ledger.events.list('pipelined:stuck-first')).some((e) => e.kind === 'replace'), 'the first to be re-priced');
    await waitFor(async () => (await executor.ledger.events.list('pipelined:behind')).some((e) => e.kind === 'waiting-behind'), 'the second to wait behind it');
    await fork.testClient.mine({ blocks: 1 });
    const [a, b] = (await Promise.all([first, second])) as [TradeReport, TradeReport];

    expect(a.status, a.reason).toBe('confirmed');
    expect(b.status, b.reason).toBe('confirmed');
    const firstAttempts = await executor.ledger.attempts.ofTrade(a.intentId);
    expect(firstAttempts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(firstAttempts.map((x) => x.nonce))).toEqual(new Set([nonceBefore]));
    expect(firstAttempts.at(-1)?.status).toBe('mined');
    // The trade behind: one signature, on the next nonce, never re-priced.
    const behind = await executor.ledger.attempts.ofTrade(b.intentId);
    expect(behind.map((x) => [x.nonce, x.status])).toEqual([[nonceBefore + 1, 'mined']]);
    expect((await executor.ledger.events.list(b.intentId)).filter((e) => e.kind === 'replace' || e.kind === 'cancel')).toEqual([]);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('80', 18));
  });

  it('a nonce the node refuses under a later one in flight is filled by a cancellation; the later trade mines unchanged', async () => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    closing.push(() => proxy.close());
    // The node's refusal of a synchronous send is awaited as long as it takes.
    const executor = await makeExecutor({ rpcUrl: proxy.url, settings: { approvals: 'unlimited' }, wallet: { syncWaitMs: 15_000 } });
    const warm = await runTrade(executor, sell('warm', '1'));
    expect(warm.status, warm.reason).toBe('confirmed');
    const [usdBefore, nonceBefore] = [await fork.balanceOf(fork.token('cUSD'), me()), await fork.publicClient.getTransactionCount({ address: me() })];
    await fork.testClient.setAutomine(false);
    // The node refuses the first trade's bytes, and answers so only once the second trade is signed behind it.
    let refused: Hex | undefined;
    proxy.faults.intercept = async (call) => {
      if (call.method !== 'eth_sendRawTransactionSync' || refused !== undefined) return undefined;
      refused = (call.params as [Hex])[0];
      await waitFor(async () => (await executor.ledger.attempts.ofTrade('pipelined:behind-refused')).length > 0, 'the second trade to be signed');
      return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'insufficient funds for gas * price + value' } };
    };
    const first = runTrade(executor, sell('refused'));
    await waitFor(() => refused, 'the first send');
    const second = runTrade(executor, sell('behind-refused'));
    // The cancellation at the first nonce and the second trade behind it.
    await inPool(2);
    await fork.testClient.mine({ blocks: 1 });
    const [a, b] = (await Promise.all([first, second])) as [TradeReport, TradeReport];
    expect(a.status).toBe('failed');
    expect(a.reason).toMatch(/cancelled/);
    expect((await executor.ledger.attempts.ofTrade(a.intentId)).map((x) => [x.purpose, x.nonce, x.status])).toEqual([
      ['trade', nonceBefore, 'dropped'],
      ['cancel', nonceBefore, 'mined'],
    ]);
    const [filled] = (await executor.ledger.events.list(a.intentId)).filter((e) => e.kind === 'nonce-filled');
    expect(filled?.details).toMatchObject({ nonce: nonceBefore, why: expect.stringMatching(/insufficient funds/) });
    // The second trade: signed once, on the next nonce, mined as signed.
    expect(b.status, b.reason).toBe('confirmed');
    const behind = await executor.ledger.attempts.ofTrade(b.intentId);
    expect(behind.map((x) => [x.purpose, x.nonce, x.status])).toEqual([['trade', nonceBefore + 1, 'mined']]);
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 2);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('40', 18));
  });
});

/**
 * A process whose node is behind a proxy (so its sends can be lost), its approvals already made, and the node mining
 * by hand: what the crash tests start from, with the balance and nonce before them.
 */
async function processAboutToCrash() {
  const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
  closing.push(() => proxy.close());
  const first = await makeExecutor({ rpcUrl: proxy.url, settings: { approvals: 'unlimited' } });
  const warm = await runTrade(first, sell('warm', '1'));
  expect(warm.status, warm.reason).toBe('confirmed');
  const [usdBefore, nonceBefore] = [await fork.balanceOf(fork.token('cUSD'), me()), await fork.publicClient.getTransactionCount({ address: me() })];
  await fork.testClient.setAutomine(false);
  return { proxy, first, usdBefore, nonceBefore };
}

describe('a crash between two sends', () => {
  it('resumes both trades from their stored bytes: the same signatures mine, once each', async () => {
    const { proxy, first, usdBefore, nonceBefore } = await processAboutToCrash();
    // The second trade's bytes never reach the node: the process dies after signing them, before they leave.
    let sends = 0;
    let lost: Hex | undefined;
    const stop = new AbortController();
    proxy.faults.intercept = (call) => {
      if (call.method !== 'eth_sendRawTransactionSync') return undefined;
      sends++;
      if (sends === 2) {
        lost = (call.params as [Hex])[0];
        // The process is gone: nothing answers, nothing is forwarded.
        stop.abort(new Error('the daemon died'));
        return { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'connection reset' } };
      }
      return undefined;
    };
    const a = runTrade(first, sell('sent'), stop.signal);
    await inPool(1);
    const b = runTrade(first, sell('never-sent'), stop.signal);
    await Promise.all([a, b]);
    expect(lost).toBeDefined();
    await first.close();
    closing.pop();

    // A new process on the same ledger, straight to the node.
    const restarted = await makeExecutor({ ledgerFile: first.ledgerFile, settings: { approvals: 'unlimited' } });
    const stored = await attemptsOf(restarted, ['pipelined:sent', 'pipelined:never-sent']);
    expect(stored.map((x) => [x.intentId, x.nonce, x.status])).toEqual([
      ['pipelined:sent', nonceBefore, 'broadcast'],
      ['pipelined:never-sent', nonceBefore + 1, 'broadcast'],
    ]);
    // The first trade's bytes were in the node's pool all along; the second's are sent again as stored.
    await fork.testClient.setAutomine(true);
    await fork.testClient.mine({ blocks: 1 });
    const reports = await resumeOpenTrades(restarted);
    expect((await restarted.ledger.events.list('pipelined:never-sent')).some((e) => e.kind === 'rebroadcast')).toBe(true);
    expect(reports.map((r) => [r.intentId, r.status])).toEqual([
      ['pipelined:sent', 'confirmed'],
      ['pipelined:never-sent', 'confirmed'],
    ]);
    const after = await attemptsOf(restarted, ['pipelined:sent', 'pipelined:never-sent']);
    expect(after.map((x) => [x.hash, x.status])).toEqual(stored.map((x) => [x.hash, 'mined']));
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 2);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('80', 18));
  });
});

describe('a crash with a later nonce out and an earlier one not', () => {
  it('resumes in nonce order, not the order the trades were made: the unsent earlier nonce goes first and both mine', async () => {
    const { proxy, first, usdBefore, nonceBefore } = await processAboutToCrash();
    // The trade made first is quoted last: the one made after it signs the earlier nonce.
    let quoteFirst: () => void = () => {};
    const laterTradeSigned = new Promise<void>((resolve) => (quoteFirst = resolve));
    const getSwapRoute = first.routing.getSwapRoute.bind(first.routing);
    let quotes = 0;
    first.routing.getSwapRoute = async (...args: Parameters<typeof getSwapRoute>) => {
      if (quotes++ === 0) await laterTradeSigned;
      return getSwapRoute(...args);
    };
    // The earlier nonce's bytes never reach the node: the process dies while they are on their way.
    const stop = new AbortController();
    let sends = 0;
    let lost: Hex | undefined;
    const reset = (call: { id: number | string }) => ({ jsonrpc: '2.0' as const, id: call.id, error: { code: -32603, message: 'connection reset' } });
    proxy.faults.intercept = (call) => {
      if (!call.method.startsWith('eth_sendRawTransaction')) return undefined;
      // The process is gone: nothing it sends reaches the node.
      if (stop.signal.aborted) return reset(call);
      const [raw] = call.params as [Hex];
      if (++sends === 1) lost = raw;
      if (raw !== lost) return undefined;
      quoteFirst();
      // Each try of the lost bytes hangs until the process dies.
      return new Promise((resolve) => stop.signal.addEventListener('abort', () => resolve(reset(call))));
    };
    const madeFirst = runTrade(first, sell('made-first'), stop.signal);
    await waitFor(async () => (await first.ledger.trades.get('pipelined:made-first')) !== undefined, 'the first trade to be made');
    const madeSecond = runTrade(first, sell('made-second'), stop.signal);
    // The later nonce is in the node's pool (behind a gap: the pool's pending count does not show it).
    await waitFor(async () => {
      const [attempt] = await first.ledger.attempts.ofTrade('pipelined:made-first');
      return attempt !== undefined && (await fork.publicClient.getTransaction({ hash: attempt.hash }).catch(() => undefined)) !== undefined;
    }, "the later nonce in the node's pool");
    stop.abort(new Error('the daemon died'));
    await Promise.all([madeFirst, madeSecond]);
    await first.close();
    closing.pop();

    const restarted = await makeExecutor({ ledgerFile: first.ledgerFile, settings: { approvals: 'unlimited' } });
    const ids = ['pipelined:made-first', 'pipelined:made-second'];
    const stored = await attemptsOf(restarted, ids);
    expect(stored.map((x) => [x.intentId, x.nonce])).toEqual([
      ['pipelined:made-second', nonceBefore],
      ['pipelined:made-first', nonceBefore + 1],
    ]);
    expect((await restarted.ledger.trades.unfinished()).map((record) => record.id)).toEqual(ids);
    await fork.testClient.setAutomine(true);
    const reports = await resumeOpenTrades(restarted);
    expect(reports.map((r) => [r.intentId, r.status])).toEqual([
      ['pipelined:made-second', 'confirmed'],
      ['pipelined:made-first', 'confirmed'],
    ]);
    const after = await attemptsOf(restarted, ids);
    expect(after.map((x) => [x.hash, x.status])).toEqual(stored.map((x) => [x.hash, 'mined']));
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 2);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('80', 18));
  });
});
