import { type Address, erc20Abi, parseEventLogs, parseUnits, decodeFunctionData, maxUint256 } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { routerAbi } from '../../src/contracts/abi.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { Trade } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, testExecutor } from '../helpers/engine.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import { tradeKinds } from '../../src/trade/kinds/registry.ts';

const fork = useDevnetFork({ routing: true });
const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
});
const makeExecutor = async (options: Parameters<typeof testExecutor>[1] = {}) => {
  const executor = await testExecutor(fork, options);
  executors.push(executor);
  return executor;
};
const me = () => fork.addressBook.accounts[0]?.address as Address;
const swap = (overrides: Partial<Trade> = {}): Trade =>
  ({
    id: `${overrides.strategyId ?? 'dca-celo'}:2026-11-20T10:00:00Z`,
    strategyId: 'dca-celo',
    slot: '2026-11-20T10:00:00Z',
    wallet: me(),
    chainId: fork.addressBook.chainId,
    kind: 'swap',
    tokenIn: fork.token('cUSD'),
    tokenOut: fork.token('CELO'),
    amountIn: parseUnits('250', 18),
    slippageBps: 30,
    ...overrides,
  }) as Trade;

describe('executing a swap end to end', () => {
  it('trades exactly the amount, receives exactly the quote, and records intent, attempts and outcome', async () => {
    const executor = await makeExecutor();
    const [usdBefore, celoBefore, nonceBefore] = [
      await fork.balanceOf(fork.token('cUSD'), me()),
      await fork.balanceOf(fork.token('CELO'), me()),
      await fork.publicClient.getTransactionCount({ address: me() }),
    ];
    const report = await runTrade(executor, swap());
    expect(report.status, report.reason).toBe('confirmed');
    // Every check of a swap's declared list ran, in its order (src/trade/kinds/swap.ts, docs/safety.md).
    expect(report.checks).toEqual(tradeKinds.swap.checks);
    expect(report.amountOut).toBe(report.expectedOut);
    // The reference is what the verified route pays by the known router's own arithmetic: nothing moved in
    // between, so exactly what arrived. (The oracle says 250 cUSD at $1 is 500 CELO at $0.50, less 0.3%: 498.5.)
    expect(report.referenceOut).toBe(report.amountOut);
    expect(report.referenceOut).toBeLessThan(parseUnits('498.5', 18));
    expect(report.referenceOut).toBeGreaterThan(parseUnits('498.4', 18));
    // The minimum is never below the reference less the 0.3% slippage, nor below the quote less slippage.
    const slipped = (amount: bigint) => (amount * 9970n) / 10000n;
    const expectedMin = [slipped(report.expectedOut as bigint), slipped(report.referenceOut as bigint)].reduce((a, b) => (a > b ? a : b));
    expect(report.minOut).toBe(expectedMin);
    expect(report.stages.map((s) => s.stage)).toEqual(['quote', 'check', 'sign', 'broadcast', 'follow', 'settle']);

    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('250', 18));
    expect(await fork.balanceOf(fork.token('CELO'), me())).toBe(celoBefore + (report.amountOut as bigint));
    // One approval (exact amount) and one trade.
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore + 2);
    // The exact approval was used up by the trade: nothing is left for the router to pull.
    expect(
      await fork.publicClient.readContract({
        address: fork.token('cUSD'),
        abi: erc20Abi,
        functionName: 'allowance',
        args: [me(), fork.addressBook.contracts.router],
      }),
    ).toBe(0n);

    const intent = await executor.ledger.trades.get(report.intentId);
    expect(intent).toMatchObject({ status: 'confirmed', strategyId: 'dca-celo', kind: 'swap', amountIn: parseUnits('250', 18) });
    expect(intent?.failure).toBeUndefined();
    // Typed columns: the checked call and the outcome read from the receipt's logs.
    expect(intent?.call).toMatchObject({
      target: fork.addressBook.contracts.router.toLowerCase(),
      spender: fork.addressBook.contracts.router.toLowerCase(),
      expectedOut: report.expectedOut,
      minOut: report.minOut,
    });
    expect(intent?.settlement).toMatchObject({ amountOut: report.amountOut, reportedOut: report.amountOut, txHash: report.txHash });
    const attempts = await executor.ledger.attempts.ofTrade(report.intentId);
    expect(attempts.map((a) => [a.purpose, a.status, a.nonce])).toEqual([
      ['approve', 'mined', nonceBefore],
      ['trade', 'mined', nonceBefore + 1],
    ]);
    const receipt = await fork.publicClient.getTransactionReceipt({ hash: attempts[1]?.hash as `0x${string}` });
    const [event] = parseEventLogs({ abi: routerAbi, eventName: 'Swap', logs: receipt.logs });
    expect(event?.args.outputAmount).toBe(report.amountOut);
    expect(event?.args.to).toBe(me());
    // The signed call: our minimum, and an expected output the router can never cap the user at.
    const signed = decodeFunctionData({ abi: routerAbi, data: (await fork.publicClient.getTransaction({ hash: attempts[1]?.hash as `0x${string}` })).input });
    expect(signed.functionName).toBe('swapExactInputForOutput');
    const payload = (signed.args as readonly [{ minOutputAmount: bigint; expectedOutputAmount: bigint; to: string }])[0];
    expect(payload).toMatchObject({ minOutputAmount: report.minOut, expectedOutputAmount: maxUint256, to: me() });
  });

  it('never runs a slot twice', async () => {
    const executor = await makeExecutor();
    expect((await runTrade(executor, swap())).status).toBe('confirmed');
    const nonce = await fork.publicClient.getTransactionCount({ address: me() });
    const again = await runTrade(executor, swap());
    expect(again.status).toBe('skipped');
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonce);
  });

  it('dry-run: simulates and records the would-be outcome, signs nothing', async () => {
    const executor = await makeExecutor({ settings: { dryRun: true } });
    const nonce = await fork.publicClient.getTransactionCount({ address: me() });
    const usd = await fork.balanceOf(fork.token('cUSD'), me());
    const report = await runTrade(executor, swap({ amountIn: parseUnits('1000', 18) }));
    expect(report.status).toBe('dry-run');
    expect(report.simulatedOut).toBe(report.expectedOut);
    expect(await executor.ledger.trades.get(report.intentId)).toMatchObject({
      status: 'dry-run',
      simulatedOut: report.simulatedOut,
      call: { minOut: report.minOut },
    });
    expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonce);
    expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usd);
  });
});

describe('executing deposits and withdrawals end to end', () => {
  it('deposits into the gauge and withdraws back to a token, each paying exactly the recorded outcome', async () => {
    const executor = await makeExecutor();
    const gauge = fork.addressBook.contracts.gauges['CELO/cUSD']?.address as Address;
    const celo = fork.token('CELO');
    const [celoBefore, gaugeBefore] = [await fork.balanceOf(celo, me()), await fork.balanceOf(gauge, me())];
    const deposit = await runTrade(executor, {
      ...swap({ strategyId: 'compound' }),
      kind: 'deposit',
      tokenIn: celo,
      tokenOut: gauge,
      amountIn: parseUnits('8000', 18),
    });
    expect(deposit.status, deposit.reason).toBe('confirmed');
    expect(deposit.amountOut).toBe(deposit.expectedOut);
    expect(await fork.balanceOf(gauge, me())).toBe(gaugeBefore + (deposit.amountOut as bigint));
    // Leftovers of the split come back; all but a sliver of the CELO went in.
    const celoSpent = celoBefore - (await fork.balanceOf(celo, me()));
    expect(celoSpent).toBeLessThanOrEqual(parseUnits('8000', 18));
    expect(celoSpent).toBeGreaterThan(parseUnits('7999', 18));

    const usd = fork.token('cUSD');
    const usdBefore = await fork.balanceOf(usd, me());
    const withdraw = await runTrade(executor, {
      ...swap({ strategyId: 'exit' }),
      kind: 'withdraw',
      tokenIn: gauge,
      tokenOut: usd,
      amountIn: deposit.amountOut as bigint,
    });
    expect(withdraw.status, withdraw.reason).toBe('confirmed');
    expect(withdraw.amountOut).toBe(withdraw.expectedOut);
    expect(await fork.balanceOf(usd, me())).toBe(usdBefore + (withdraw.amountOut as bigint));
    expect(await fork.balanceOf(gauge, me())).toBe(gaugeBefore);
  });
});

describe('a node without eth_simulateV1', () => {
  it('approves first, then simulates the trade with eth_call and eth_estimateGas, and trades exactly once', async () => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl, ['eth_simulateV1', 'eth_sendRawTransactionSync']);
    try {
      const executor = await makeExecutor({ rpcUrl: proxy.url });
      const [usdBefore, nonceBefore] = [await fork.balanceOf(fork.token('cUSD'), me()), await fork.publicClient.getTransactionCount({ address: me() })];
      const report = await runTrade(executor, swap({ strategyId: 'no-simulate' }));
      expect(report.status, report.reason).toBe('confirmed');
      expect(report.stages.map((s) => s.stage)).toEqual(['quote', 'check', 'approve', 'check', 'sign', 'broadcast', 'follow', 'settle']);
      expect(report.simulatedOut).toBe(report.expectedOut);
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('250', 18));
      expect((await executor.ledger.attempts.ofTrade(report.intentId)).map((a) => [a.purpose, a.status, a.nonce])).toEqual([
        ['approve', 'mined', nonceBefore],
        ['trade', 'mined', nonceBefore + 1],
      ]);
    } finally {
      await proxy.close();
    }
  });
});

/**
 * What a trade costs the node, counted by a proxy in front of it: one request that reads and simulates everything the
 * checks need, one send whose answer is the receipt, one that judges the receipt and reads the balances to compare.
 * (Once warm: the route's facts, decimals and the price average's start are read once per process.)
 */
describe('round trips to the node per trade', () => {
  it.each([
    ['an exact approval and its trade', 'exact' as const, ['approve', 'trade']],
    ['a trade on an unlimited approval', 'unlimited' as const, ['trade']],
  ])('%s: three requests, the simulation in the first, the receipts in the second', async (_name, approvals, purposes) => {
    const proxy = await startRpcProxy(fork.addressBook.rpcUrl);
    try {
      const executor = await makeExecutor({ rpcUrl: proxy.url, settings: { approvals } });
      const warm = await runTrade(executor, swap({ strategyId: `warm-${approvals}` }));
      expect(warm.status, warm.reason).toBe('confirmed');
      const [requestsBefore, usdBefore] = [proxy.requests(), await fork.balanceOf(fork.token('cUSD'), me())];

      const report = await runTrade(executor, swap({ strategyId: `counted-${approvals}` }));
      expect(report.status, report.reason).toBe('confirmed');
      const requests = proxy.log().slice(requestsBefore);
      expect(requests, requests.map((calls) => calls.join(', ')).join('\n')).toHaveLength(3);
      const [checks, sends, settlement] = requests as [string[], string[], string[]];
      expect(checks).toEqual(expect.arrayContaining(['eth_simulateV1', 'eth_getBlockByNumber', 'eth_getTransactionCount', 'eth_maxPriorityFeePerGas']));
      expect(sends).toEqual(purposes.map(() => 'eth_sendRawTransactionSync'));
      expect(settlement).toEqual(expect.arrayContaining(['eth_getBlockByNumber', 'eth_getBalance']));
      // And the trade is what it says: exactly the amount left, the receipt's output arrived.
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('250', 18));
      const attempts = await executor.ledger.attempts.ofTrade(report.intentId);
      expect(attempts.map((a) => [a.purpose, a.status])).toEqual(purposes.map((purpose) => [purpose, 'mined']));
      expect((await executor.ledger.trades.get(report.intentId))?.settlement?.amountOut).toBe(report.amountOut);
    } finally {
      await proxy.close();
    }
  });
});
