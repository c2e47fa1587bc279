import { createHook } from 'node:async_hooks';
import { type Address, encodeAbiParameters, erc20Abi, keccak256, maxUint256, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { spentSince } from '../helpers/ledgers.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { Trade } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, swapTrade, testExecutor } from '../helpers/engine.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  await fork.testClient.setAutomine(true);
  for (const executor of executors.splice(0)) await executor.close();
});
const makeExecutor = async (options: Parameters<typeof testExecutor>[1] = {}) => {
  const executor = await testExecutor(fork, options);
  executors.push(executor);
  return executor;
};
const account = () => fork.addressBook.accounts[0] as { address: Address; privateKey: `0x${string}` };
const swap = (slot: string): Trade => swapTrade(fork, 'sender-test', slot, { amountIn: parseUnits('300', 18) });

/** Approves the router once, so the trade itself is the only transaction the test has to mine. */
async function approveRouter() {
  await fork.confirm(
    await fork
      .wallet(account().privateKey)
      .writeContract({ address: fork.token('cUSD'), abi: erc20Abi, functionName: 'approve', args: [fork.addressBook.contracts.router, maxUint256] }),
  );
}

const tradeAttempt = async (executor: TestExecutor, intentId: string, index = 0) =>
  (await executor.ledger.attempts.ofTrade(intentId)).filter((a) => a.purpose !== 'approve')[index];

/** The trade is `broadcast` in the ledger (maybe in a mempool) and the node has it in its pool. */
async function inPool(executor: TestExecutor, intentId: string) {
  const sent = await waitFor(async () => {
    const attempt = await tradeAttempt(executor, intentId);
    return attempt?.status === 'broadcast' && attempt;
  }, 'the trade to be broadcast');
  await waitFor(() => fork.publicClient.getTransaction({ hash: sent.hash }).catch(() => undefined), 'the node to have the trade');
  return sent;
}

describe('the sender', () => {
  it('leaves no timer running once a synchronous send has answered with its receipt (a finished once exits at once)', async () => {
    const executor = await makeExecutor();
    // A first trade warms up what keeps its own timers for the process (caches, the price reference's reads).
    expect((await runTrade(executor, swap('timers-0'))).status).toBe('confirmed');
    // The timers made while the second trade runs: none may still be pending and holding the process (ref'd) once
    // it has answered. One of the first trade's that ends meanwhile (on a busy machine it may) counts either way.
    type Timer = { hasRef(): boolean; _destroyed?: boolean };
    const made: Timer[] = [];
    const hook = createHook({ init: (_id, type, _trigger, resource) => void (type === 'Timeout' && made.push(resource as Timer)) }).enable();
    try {
      const report = await runTrade(executor, swap('timers-1'));
      expect(report.status, report.reason).toBe('confirmed');
    } finally {
      hook.disable();
    }
    expect(made.length).toBeGreaterThan(0);
    expect(made.filter((timer) => timer.hasRef() && timer._destroyed !== true)).toEqual([]);
  });

  it('broadcasts the same signed bytes again when the node drops the transaction', async () => {
    await approveRouter();
    const executor = await makeExecutor();
    await fork.testClient.setAutomine(false);
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    const running = runTrade(executor, swap('dropped'));
    const sent = await inPool(executor, 'sender-test:dropped');
    await fork.testClient.dropTransaction({ hash: sent.hash });
    expect(await fork.publicClient.getTransaction({ hash: sent.hash }).catch(() => undefined)).toBeUndefined();
    await waitFor(async () => (await executor.ledger.events.list('sender-test:dropped')).some((e) => e.kind === 'rebroadcast'), 'a rebroadcast');
    await fork.testClient.mine({ blocks: 1 });

    const report = await running;
    expect(report.status, report.reason).toBe('confirmed');
    const attempts = await executor.ledger.attempts.ofTrade('sender-test:dropped');
    expect(attempts.map((a) => [a.purpose, a.status, a.hash])).toEqual([['trade', 'mined', sent.hash]]);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore - parseUnits('300', 18));
  });

  it('replaces a stuck transaction on the same nonce with fees at least 12.5% higher; one trade happens', async () => {
    await approveRouter();
    const executor = await makeExecutor({ wallet: { stuckAfterMs: 300 } });
    await fork.testClient.setAutomine(false);
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    const running = runTrade(executor, swap('stuck'));
    await waitFor(async () => (await executor.ledger.events.list('sender-test:stuck')).some((e) => e.kind === 'replace'), 'a replacement');
    await fork.testClient.mine({ blocks: 1 });

    const report = await running;
    expect(report.status, report.reason).toBe('confirmed');
    const trades = await executor.ledger.attempts.ofTrade('sender-test:stuck');
    expect(trades.length).toBeGreaterThanOrEqual(2);
    expect(new Set(trades.map((a) => a.nonce)).size).toBe(1);
    expect(trades.filter((a) => a.status === 'mined')).toHaveLength(1);
    expect(trades.at(-1)?.status).toBe('mined');
    for (const earlier of trades.slice(0, -1)) expect(earlier.status).toBe('replaced');
    for (let i = 1; i < trades.length; i++) {
      const [previous, next] = [trades[i - 1], trades[i]] as [NonNullable<(typeof trades)[0]>, NonNullable<(typeof trades)[0]>];
      expect(next.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(previous.maxFeePerGas * 1125n);
      expect(next.maxPriorityFeePerGas * 1000n).toBeGreaterThanOrEqual(previous.maxPriorityFeePerGas * 1125n);
    }
    expect((await executor.ledger.trades.get('sender-test:stuck'))?.status).toBe('confirmed');
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore - parseUnits('300', 18));
  });

  it('at the fee cap, records the decision to keep waiting instead of bumping past it', async () => {
    await approveRouter();
    const { maxFeePerGas } = await fork.publicClient.estimateFeesPerGas();
    const feeCap = (maxFeePerGas * 105n) / 100n;
    const executor = await makeExecutor({ wallet: { stuckAfterMs: 200, feeCap }, settings: { feeCap } });
    await fork.testClient.setAutomine(false);
    const running = runTrade(executor, swap('capped'));
    const decision = await waitFor(
      async () => (await executor.ledger.events.list('sender-test:capped')).find((e) => e.kind === 'stuck-at-fee-cap'),
      'the at-cap decision',
    );
    expect(decision.details).toMatchObject({ decision: 'keep waiting', cap: feeCap.toString() });
    await fork.testClient.mine({ blocks: 1 });
    expect((await running).status).toBe('confirmed');
    const trades = await executor.ledger.attempts.ofTrade('sender-test:capped');
    expect(trades).toHaveLength(1);
    expect(trades[0]?.maxFeePerGas).toBeLessThanOrEqual(feeCap);
  });

  it('cancels a stuck trade with a zero-value transfer to itself when the guards no longer pass', async () => {
    await approveRouter();
    const executor = await makeExecutor({ wallet: { stuckAfterMs: 300 } });
    await fork.testClient.setAutomine(false);
    const running = runTrade(executor, swap('cancelled'));
    await inPool(executor, 'sender-test:cancelled');
    // The wallet's cUSD vanishes (OpenZeppelin balances live in slot 0): the trade can no longer succeed.
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [account().address, 0n]));
    await fork.testClient.setStorageAt({ address: fork.token('cUSD'), index: slot, value: `0x${'0'.repeat(64)}` });
    await waitFor(async () => (await executor.ledger.events.list('sender-test:cancelled')).some((e) => e.kind === 'cancel'), 'a cancellation');
    await fork.testClient.mine({ blocks: 1 });

    const report = await running;
    expect(report.status).toBe('failed');
    expect(report.reason).toMatch(/cancelled/);
    const attempts = await executor.ledger.attempts.ofTrade('sender-test:cancelled');
    expect(attempts.map((a) => [a.purpose, a.status])).toEqual([
      ['trade', 'replaced'],
      ['cancel', 'mined'],
    ]);
    const cancel = await fork.publicClient.getTransaction({ hash: attempts[1]?.hash as `0x${string}` });
    expect([cancel.to, cancel.value, cancel.input]).toEqual([account().address.toLowerCase(), 0n, '0x']);
  });

  it('records a trade that reverts on chain as failed, with the revert reason decoded', async () => {
    await approveRouter();
    const executor = await makeExecutor();
    await fork.testClient.setAutomine(false);
    const running = runTrade(executor, swap('reverted'));
    await inPool(executor, 'sender-test:reverted');
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [account().address, 0n]));
    await fork.testClient.setStorageAt({ address: fork.token('cUSD'), index: slot, value: `0x${'0'.repeat(64)}` });
    await fork.testClient.mine({ blocks: 1 });

    const report = await running;
    expect(report.status).toBe('failed');
    expect(report.reason).toBe('reverted on chain: MinimaRouter: Initial transferFrom failed!');
    expect((await executor.ledger.attempts.ofTrade('sender-test:reverted')).map((a) => a.status)).toEqual(['reverted']);
    expect(await executor.ledger.trades.get('sender-test:reverted')).toMatchObject({
      status: 'failed',
      failure: { reason: report.reason, errorClass: 'reverted' },
    });
  });

  it('stops signing from a wallet whose key is used elsewhere: the wallet is paused, nothing is signed', async () => {
    const executor = await makeExecutor();
    expect((await runTrade(executor, swap('first'))).status).toBe('confirmed');
    const nonce = await fork.publicClient.getTransactionCount({ address: account().address });
    // The same key, used from somewhere else.
    await fork.confirm(await fork.wallet(account().privateKey).sendTransaction({ to: account().address, value: 0n }));
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);

    const report = await runTrade(executor, swap('second'));
    expect(report).toMatchObject({ status: 'failed', errorClass: 'key-used-elsewhere' });
    expect(report.reason).toBe(
      `the node counts ${nonce + 1} transactions from ${account().address}, but routekeeper signed ${nonce}: the key is used elsewhere, or the ledger's rows of the newest were deleted`,
    );
    const [event] = (await executor.ledger.events.list('sender-test:second')).filter((e) => e.kind === 'nonce-used-elsewhere');
    expect(event?.details).toEqual({ wallet: account().address, expected: nonce, onChain: nonce + 1 });
    expect(await executor.ledger.attempts.ofTrade('sender-test:second')).toEqual([]);
    expect(await executor.ledger.pauses.for('sender-test', account().address)).toMatchObject([
      { scope: 'wallet', key: account().address.toLowerCase(), intentId: 'sender-test:second' },
    ]);
    expect(await fork.publicClient.getTransactionCount({ address: account().address })).toBe(nonce + 1);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore);
    // Paused: the next trade is refused before it is even quoted, and signs nothing.
    expect(await runTrade(executor, swap('third'))).toMatchObject({ status: 'refused', refusal: 'paused' });
    expect(await executor.ledger.attempts.ofTrade('sender-test:third')).toEqual([]);
    expect(await fork.publicClient.getTransactionCount({ address: account().address })).toBe(nonce + 1);
  });
  it('signs nothing when its wallet is paused while it is being quoted: the commit of its checked call sees the pause', async () => {
    const executor = await makeExecutor();
    const nonce = await fork.publicClient.getTransactionCount({ address: account().address });
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), account().address);
    // A person pauses the wallet (\`routekeeper pause\`) after the trade was claimed, while the service answers.
    const routing = {
      ...executor.routing,
      getSwapRoute: async (...request: Parameters<typeof executor.routing.getSwapRoute>) => {
        const route = await executor.routing.getSwapRoute(...request);
        await executor.ledger.pauses.pause({ scope: 'wallet', key: account().address, reason: 'a person looks' });
        return route;
      },
    };
    const report = await runTrade({ ...executor, routing }, swap('paused-meanwhile'));
    expect(report).toMatchObject({ status: 'refused', refusal: 'paused' });
    expect(report.reason).toBe(`the wallet ${account().address.toLowerCase()} is paused (a person looks); lift it with \`routekeeper resume\``);
    expect(report.stages.map((stage) => stage.stage)).toEqual(['quote', 'check']);
    expect(await executor.ledger.trades.get('sender-test:paused-meanwhile')).toMatchObject({ status: 'refused', failure: { refusal: 'paused' } });
    expect(await spentSince(executor.ledger, { wallet: account().address, token: fork.token('cUSD'), since: 0 })).toBe(0n);
    expect(await executor.ledger.attempts.ofTrade('sender-test:paused-meanwhile')).toEqual([]);
    expect(await fork.publicClient.getTransactionCount({ address: account().address })).toBe(nonce);
    expect(await fork.balanceOf(fork.token('cUSD'), account().address)).toBe(usdBefore);
  });
});
