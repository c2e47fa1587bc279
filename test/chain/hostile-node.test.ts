/**
 * A node that lies or withholds, in front of the devnet: the ledger says only what the chain proves, a trade
 * whose fate is not known stays `unknown` (it counts and blocks), and the wallet never trades twice.
 */
import { type Address, type Hex, erc20Abi, keccak256, maxUint256, parseAbiItem, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { runStrategy } from '../../src/engine/runner.ts';
import { startSettler } from '../../src/engine/settler.ts';
import { resumeTrade, runTrade } from '../../src/trade/pipeline.ts';
import type { Trade } from '../../src/model/trade.ts';
import { runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, dcaStrategy, swapTrade, testExecutor } from '../helpers/engine.ts';
import { answer, startRpcProxy } from '../../support/rpc-proxy.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await fork.testClient.setAutomine(true);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);
const account = () => fork.addressBook.accounts[0] as { address: Address; privateKey: Hex };
const amountIn = parseUnits('300', 18);
const swap = (slot: string): Trade => swapTrade(fork, 'hostile', slot, { amountIn });

async function withProxy() {
  const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
  cleanups.push(proxy.close);
  return proxy;
}
async function executorOn(rpcUrl: string, options: Parameters<typeof testExecutor>[1] = {}): Promise<TestExecutor> {
  const executor = await testExecutor(fork, { rpcUrl, ...options, wallet: { giveUpAfterMs: 1_500, ...options.wallet } });
  cleanups.push(() => executor.close());
  return executor;
}
/** The router may pull cUSD already: the trade is then the only transaction the test follows. */
async function approveRouter() {
  await fork.confirm(
    await fork
      .wallet(account().privateKey)
      .writeContract({ address: fork.token('cUSD'), abi: erc20Abi, functionName: 'approve', args: [fork.addressBook.contracts.router, maxUint256] }),
  );
}
const swapsSince = (fromBlock: bigint) =>
  fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: account().address }, fromBlock });
const kinds = async (executor: TestExecutor, id: string) => (await executor.ledger.events.list(id)).map((e) => e.kind);

describe('a node that withholds receipts', () => {
  it('leaves the trade unknown: it counts against budgets, blocks its strategy, and settles once the chain shows it', async () => {
    await approveRouter();
    const proxy = await withProxy();
    // No receipt, by either way of asking.
    proxy.faults.refuse = ['eth_sendRawTransactionSync'];
    proxy.faults.rewrite = (call, got) => (call.method === 'eth_getTransactionReceipt' ? { ...got, result: null } : got);
    const executor = await executorOn(proxy.url, { budgets: { strategy: () => [{ token: fork.token('cUSD'), perDay: amountIn + amountIn / 2n }] } });
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    const fromBlock = await fork.publicClient.getBlockNumber();

    const report = await runTrade(executor, swap('withheld'));
    expect(report).toMatchObject({ status: 'unknown', errorClass: 'outcome-unknown' });
    // The nonce was used: it is traced to our own transaction, in a block, although no receipt comes.
    const [mined] = await swapsSince(fromBlock);
    const [attempt] = await executor.ledger.attempts.ofTrade('hostile:withheld');
    expect(mined?.transactionHash).toBe(attempt?.hash);
    expect(attempt?.status).toBe('broadcast');
    expect(report.reason).toBe(
      `outcome not known: nonce ${attempt?.nonce} of ${account().address} not settled after 2 s (${attempt?.hash} is in block ${mined?.blockNumber}, but the node gives no receipt for it); the trade stays open until the chain shows what happened`,
    );
    expect(await kinds(executor, 'hostile:withheld')).toContain('seen-in-block');
    expect(await executor.ledger.trades.get('hostile:withheld')).toMatchObject({
      status: 'unknown',
      failure: { errorClass: 'outcome-unknown', retryable: true },
    });
    // `routekeeper history` says why it is open.
    const history = await runCli(['history', '--ledger', executor.ledgerFile]);
    expect(history.stdout).toMatch(
      new RegExp(
        `hostile:withheld  unknown: sell .* for .*: outcome not known: nonce ${attempt?.nonce} .* is in block ${mined?.blockNumber}, but the node gives no receipt for it`,
      ),
    );

    // It counts as traded: the budget has room for half a trade more, so the next one of 300 is refused.
    expect(await runTrade(executor, swap('next'))).toMatchObject({ status: 'refused', refusal: 'budget' });
    // And its strategy waits: a run looks at nothing and trades nothing.
    const dca = dcaStrategy(fork, { id: 'hostile', schedule: { everyMs: 60_000, jitterMs: 0, catchUp: 'once', firstRun: 'now' }, amount: amountIn });
    const run = await runStrategy(dca, 'blocked', {
      executor,
      view: { client: executor.wallet.client, prices: executor.prices, wallet: account().address, now: Date.now },
    });
    expect(run.trades).toEqual([]);
    expect(run.note).toMatch(/^waiting: the outcome of hostile:withheld is not known yet \(outcome not known: nonce/);

    // The daemon's settler follows it again with backoff; once the node answers again, the same trade is settled
    // from the chain, once.
    const settledReports: { strategyId: string; status: string }[] = [];
    const settler = startSettler(
      { ledger: executor.ledger, executors: new Map([['main', executor]]) },
      (strategyId, trade) => settledReports.push({ strategyId, ...trade }),
      undefined,
      {
        firstRetryMs: 100,
        maxRetryMs: 400,
        followForMs: 300,
        tickMs: 50,
      },
    );
    cleanups.push(settler.stop);
    await waitFor(() => settledReports.length >= 2, 'two attempts of the settler while receipts are withheld');
    expect(settledReports.every((report) => report.status === 'unknown')).toBe(true);
    proxy.faults.rewrite = undefined;
    const settled = await waitFor(() => settledReports.find((report) => report.status === 'confirmed'), 'the settler to settle it');
    expect(settled).toMatchObject({ strategyId: 'hostile', intentId: 'hostile:withheld', amountOut: mined?.args.outputAmount, txHash: mined?.transactionHash });
    expect(await executor.ledger.trades.get('hostile:withheld')).toMatchObject({
      status: 'confirmed',
      settlement: { amountOut: mined?.args.outputAmount, blockNumber: mined?.blockNumber },
    });
    expect((await executor.ledger.trades.get('hostile:withheld'))?.failure).toBeUndefined();
    expect(await swapsSince(fromBlock)).toHaveLength(1);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore - amountIn);
  });

  it('does not trust a receipt the chain does not hold: the made-up one is recorded, the trade stays unknown', async () => {
    await approveRouter();
    await fork.testClient.setAutomine(false);
    const proxy = await withProxy();
    proxy.faults.refuse = ['eth_sendRawTransactionSync'];
    const head = await fork.publicClient.getBlockNumber();
    const fakeBlock = keccak256('0x01');
    proxy.faults.intercept = (call) => {
      if (call.method !== 'eth_getTransactionReceipt') return undefined;
      const [hash] = call.params as [Hex];
      return answer(call, {
        transactionHash: hash,
        blockHash: fakeBlock,
        blockNumber: `0x${head.toString(16)}`,
        transactionIndex: '0x0',
        from: account().address.toLowerCase(),
        to: fork.addressBook.contracts.router.toLowerCase(),
        status: '0x1',
        gasUsed: '0x5208',
        cumulativeGasUsed: '0x5208',
        effectiveGasPrice: '0x1',
        logs: [],
        logsBloom: `0x${'0'.repeat(512)}`,
        contractAddress: null,
        type: '0x2',
      });
    };
    const executor = await executorOn(proxy.url);
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    const nonce = await fork.publicClient.getTransactionCount({ address: account().address });

    const report = await runTrade(executor, swap('made-up'));
    expect(report.status).toBe('unknown');
    expect(report.reason).toMatch(new RegExp(`\\(a receipt in block ${head} that the chain does not hold\\)`));
    const [event] = (await executor.ledger.events.list('hostile:made-up')).filter((e) => e.kind === 'receipt-not-in-chain');
    expect(event?.details).toMatchObject({ blockHash: fakeBlock, blockNumber: head.toString() });
    // Nothing was settled on the liar's word: the wallet is as it was, the real transaction still pending.
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore);
    expect(await fork.publicClient.getTransactionCount({ address: account().address })).toBe(nonce);

    proxy.faults.intercept = undefined;
    await fork.testClient.mine({ blocks: 1 });
    const settled = await resumeTrade(executor, (await executor.ledger.trades.get('hostile:made-up')) as never, undefined, { followForMs: 5_000 });
    expect(settled.status).toBe('confirmed');
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore - amountIn);
  });
});

describe('a nonce used by a transaction routekeeper did not sign', () => {
  it('fails the trade, pauses the wallet and records the foreign transaction; nothing of ours mined', async () => {
    await approveRouter();
    const proxy = await withProxy();
    // The node takes our sends and drops them; meanwhile the same key is used elsewhere on that nonce.
    const swallowed: Hex[] = [];
    proxy.faults.intercept = (call) => {
      if (call.method !== 'eth_sendRawTransaction' && call.method !== 'eth_sendRawTransactionSync') return undefined;
      const [raw] = call.params as [Hex];
      swallowed.push(raw);
      return call.method === 'eth_sendRawTransaction'
        ? answer(call, keccak256(raw))
        : { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'the method does not exist/is not available' } };
    };
    const executor = await executorOn(proxy.url, { wallet: { giveUpAfterMs: 10_000 } });
    const nonce = await fork.publicClient.getTransactionCount({ address: account().address });
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);

    const running = runTrade(executor, swap('foreign'));
    await waitFor(() => swallowed.length > 0, 'our send');
    const foreign = await fork.wallet(account().privateKey).sendTransaction({ to: account().address, value: 0n, nonce });
    await fork.confirm(foreign);

    const report = await running;
    expect(report).toMatchObject({ status: 'failed', errorClass: 'key-used-elsewhere' });
    const foreignBlock = (await fork.publicClient.getTransactionReceipt({ hash: foreign })).blockNumber;
    expect(report.reason).toBe(
      `nonce ${nonce} of ${account().address} was used by ${foreign} (block ${foreignBlock}), a transaction routekeeper did not sign: the key is used elsewhere`,
    );
    expect((await executor.ledger.attempts.ofTrade('hostile:foreign')).map((a) => a.status)).toEqual(['dropped']);
    const [event] = (await executor.ledger.events.list('hostile:foreign')).filter((e) => e.kind === 'key-used-elsewhere');
    expect(event?.details).toEqual({ wallet: account().address, nonce, hash: foreign, blockNumber: foreignBlock.toString() });
    expect(await executor.ledger.pauses.for('hostile', account().address)).toMatchObject([{ scope: 'wallet', intentId: 'hostile:foreign' }]);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore);
    expect(await fork.publicClient.getTransactionCount({ address: account().address })).toBe(nonce + 1);
  });
});

describe('a stuck transaction at the fee cap', () => {
  it('past its deadline is never replaced above the cap, not even by a cancellation: it waits, and the trade never happens', async () => {
    await approveRouter();
    const { maxFeePerGas } = await fork.publicClient.estimateFeesPerGas();
    const feeCap = (maxFeePerGas * 105n) / 100n;
    const executor = await executorOn(fork.addressBook.rpcUrl, { wallet: { stuckAfterMs: 200, feeCap, giveUpAfterMs: 20_000 }, settings: { feeCap } });
    await fork.testClient.setAutomine(false);
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    const running = runTrade(executor, swap('expired'));
    await waitFor(async () => (await executor.ledger.events.list('hostile:expired')).some((e) => e.kind === 'stuck-at-fee-cap'), 'the at-cap decision');
    const deadline = (await executor.ledger.trades.get('hostile:expired'))?.call?.deadline as bigint;
    // Fees soar past the cap (nothing of ours can be mined) and the deadline passes: the stuck call can only revert,
    // yet no replacement above the cap is signed (a fee read from a row could otherwise burn the wallet's coin).
    await fork.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: feeCap * 10n });
    await fork.testClient.setNextBlockTimestamp({ timestamp: deadline + 1n });
    await fork.testClient.mine({ blocks: 1 });
    // Fees fall back: the trade's own bytes mine, and revert (its deadline passed).
    await fork.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: 1n });
    await waitFor(async () => {
      await fork.testClient.mine({ blocks: 1 });
      return (await executor.ledger.attempts.ofTrade('hostile:expired')).some((a) => a.status === 'reverted' || a.status === 'mined');
    }, 'the trade mined');

    const report = await running;
    expect(report.status).toBe('failed');
    const attempts = await executor.ledger.attempts.ofTrade('hostile:expired');
    expect(attempts.map((attempt) => [attempt.purpose, attempt.status])).toEqual([['trade', 'reverted']]);
    expect(attempts.every((attempt) => attempt.maxFeePerGas <= feeCap)).toBe(true);
    const events = (await executor.ledger.events.list('hostile:expired')).map((e) => e.kind);
    expect(events.filter((kind) => kind === 'cancel' || kind === 'replace')).toEqual([]);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore);
  });
});

describe('a reorganisation', () => {
  it('drops the block holding our trade: the trade is followed to its new block, and counted once', async () => {
    await approveRouter();
    const executor = await executorOn(fork.addressBook.rpcUrl, { wallet: { confirmations: 3, giveUpAfterMs: 20_000 } });
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    const fromBlock = await fork.publicClient.getBlockNumber();
    const beforeTrade = await fork.testClient.snapshot();

    const running = runTrade(executor, swap('reorg'));
    const first = await waitFor(async () => (await swapsSince(fromBlock))[0], 'the trade mined');
    // Its block is dropped, and another block takes its height.
    await fork.testClient.revert({ id: beforeTrade });
    await fork.testClient.mine({ blocks: 1 });
    expect(await swapsSince(fromBlock)).toEqual([]);
    // The follower sends the same bytes again; once mined anew, two more blocks confirm it.
    await waitFor(async () => (await swapsSince(fromBlock))[0], 'the trade mined again');
    await fork.testClient.mine({ blocks: 2 });

    const report = await running;
    expect(report.status, report.reason).toBe('confirmed');
    const [again] = await swapsSince(fromBlock);
    expect(again?.transactionHash).toBe(first.transactionHash);
    expect(again?.blockNumber).not.toBe(first.blockNumber);
    expect((await executor.ledger.trades.get('hostile:reorg'))?.settlement).toMatchObject({
      txHash: again?.transactionHash,
      blockNumber: again?.blockNumber,
      amountOut: again?.args.outputAmount,
    });
    expect(await kinds(executor, 'hostile:reorg')).toContain('rebroadcast');
    expect(await swapsSince(fromBlock)).toHaveLength(1);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore - amountIn);
  });
});
