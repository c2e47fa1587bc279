import { type Address, type Hex, parseUnits } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { knownSelectors } from '../../src/contracts/abi.ts';
import { resumeOpenTrades, runTrade } from '../../src/trade/pipeline.ts';
import { settle } from '../../src/trade/settle.ts';
import type { SwapTrade } from '../../src/model/trade.ts';
import { type DevnetFork, useDevnetFork, useOwnDevnet } from '../helpers/devnet.ts';
import { type TestExecutor, testExecutor } from '../helpers/engine.ts';
import { IllegalTransitionError } from '../../src/ledger/transitions.ts';
import { waitFor } from '../helpers/wait.ts';

const chains = { published: useDevnetFork({ routing: true }), tenant: useOwnDevnet({ swapEvent: 'tenant' }) };
const topics = { published: knownSelectors.swapEventTopic, tenant: knownSelectors.tenantSwapEventTopic };

const executors: TestExecutor[] = [];
afterEach(async () => {
  for (const chain of Object.values(chains)) await chain.testClient.setAutomine(true);
  for (const executor of executors.splice(0)) await executor.close();
});
const makeExecutor = async (chain: DevnetFork, options: Parameters<typeof testExecutor>[1] = {}) => {
  const executor = await testExecutor(chain, options);
  executors.push(executor);
  return executor;
};
const me = (chain: DevnetFork) => chain.addressBook.accounts[0]?.address as Address;
const swap = (chain: DevnetFork, slot: string): SwapTrade => ({
  id: `settle:${slot}`,
  strategyId: 'settle',
  slot,
  wallet: me(chain),
  chainId: chain.addressBook.chainId,
  kind: 'swap',
  tokenIn: chain.token('cUSD'),
  tokenOut: chain.token('CELO'),
  amountIn: parseUnits('120', 18),
  slippageBps: 50,
});

/** The router's log in the trade's receipt: which Swap version it is, and the CELO the wallet received. */
async function onChain(chain: DevnetFork, hash: Hex, before: bigint) {
  const receipt = await chain.publicClient.getTransactionReceipt({ hash });
  const routerLog = receipt.logs.find((log) => log.address.toLowerCase() === chain.addressBook.contracts.router.toLowerCase());
  return { topic: routerLog?.topics[0], received: (await chain.balanceOf(chain.token('CELO'), me(chain))) - before };
}

describe.each(['published', 'tenant'] as const)('settling a swap through a router emitting the %s Swap event', (version) => {
  const chain = chains[version];

  it('live: the ledger records what the Transfer logs paid the wallet, and the Swap event agrees', async () => {
    const executor = await makeExecutor(chain);
    const before = await chain.balanceOf(chain.token('CELO'), me(chain));
    const report = await runTrade(executor, swap(chain, `live-${version}`));
    expect(report.status, report.reason).toBe('confirmed');
    const { topic, received } = await onChain(chain, report.txHash as Hex, before);
    expect(topic).toBe(topics[version]);
    expect(received).toBeGreaterThan(0n);
    expect(report.amountOut).toBe(received);
    expect((await executor.ledger.trades.get(report.intentId))?.settlement).toMatchObject({
      amountOut: received,
      reportedOut: received,
      txHash: report.txHash,
    });
  });

  it('after a restart: a trade stopped while broadcast is settled from the stored state, to the same amount', async () => {
    const first = await makeExecutor(chain);
    await chain.testClient.setAutomine(false);
    const before = await chain.balanceOf(chain.token('CELO'), me(chain));
    const stop = new AbortController();
    const running = runTrade(first, swap(chain, `restart-${version}`), stop.signal);
    // Stop once the node holds the trade: the run ends, the trade stays `broadcast` in the ledger.
    await waitFor(async () => {
      const trade = (await first.ledger.attempts.ofTrade(`settle:restart-${version}`)).find((a) => a.purpose === 'trade');
      return trade && chain.publicClient.getTransaction({ hash: trade.hash }).catch(() => undefined);
    }, 'the trade to reach the node');
    stop.abort();
    const stopped = await running;
    expect(stopped.status).toBe('broadcast');
    expect(await first.ledger.trades.get(stopped.intentId)).toMatchObject({ status: 'broadcast', failure: { retryable: true } });
    first.close();
    await chain.testClient.mine({ blocks: 1 });

    const second = await makeExecutor(chain, { ledgerFile: first.ledgerFile });
    const [resumed] = await resumeOpenTrades(second);
    expect(resumed?.status, resumed?.reason).toBe('confirmed');
    const { topic, received } = await onChain(chain, resumed?.txHash as Hex, before);
    expect(topic).toBe(topics[version]);
    expect(resumed?.amountOut).toBe(received);
    expect(await second.ledger.trades.get(stopped.intentId)).toMatchObject({ status: 'confirmed', settlement: { amountOut: received, reportedOut: received } });
    expect((await second.ledger.trades.get(stopped.intentId))?.failure).toBeUndefined();
  });
});

describe('a receipt that does not say what the wallet received', () => {
  const chain = chains.published;

  it('is recorded as an anomaly, never as a silent "confirmed"', async () => {
    const executor = await makeExecutor(chain);
    const report = await runTrade(executor, swap(chain, 'anomaly'));
    expect(report.status).toBe('confirmed');
    const record = await executor.ledger.trades.get(report.intentId);
    const [attempt] = (await executor.ledger.attempts.ofTrade(report.intentId)).filter((a) => a.purpose === 'trade');
    if (!record || !attempt) throw new Error('no trade recorded');
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: report.txHash as Hex });
    const celo = chain.token('CELO').toLowerCase();

    // The same mined transaction, sent for a trade that another ledger holds as broadcast (a settled trade is never
    // settled again), and a receipt without the output token's Transfer logs: the Swap event alone is not proof.
    const sentElsewhere = async () => {
      const other = await makeExecutor(chain);
      await other.ledger.trades.claimSlot(record);
      await other.ledger.trades.commitChecked(record.id, { call: record.call as NonNullable<typeof record.call>, status: 'checked' });
      const [copy] = await other.ledger.trades.recordSigned([attempt]);
      await other.ledger.trades.markBroadcast(record.id);
      const mined = await other.ledger.attempts.settleNonce(
        copy?.id as number,
        { status: 'mined', blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, effectiveGasPrice: receipt.effectiveGasPrice },
        [],
      );
      return { other, mined };
    };
    const first = await sentElsewhere();
    const noTransfer = { ...receipt, logs: receipt.logs.filter((log) => log.address.toLowerCase() !== celo) };
    const settled = await settle(first.other, record, { receipt: noTransfer, attempt: first.mined, cancelled: false });
    expect(settled.status).toBe('anomaly');
    expect(settled.reason).toBe(`the receipt shows no transfer of ${record.tokenOut} to the wallet (the router's Swap event says ${report.amountOut})`);
    expect(await first.other.ledger.trades.get(report.intentId)).toMatchObject({
      status: 'anomaly',
      anomaly: settled.reason,
      settlement: { txHash: report.txHash, reportedOut: report.amountOut },
    });
    expect((await first.other.ledger.trades.get(report.intentId))?.settlement?.amountOut).toBeUndefined();
    expect((await first.other.ledger.events.list(report.intentId)).filter((e) => e.kind === 'anomaly')).toHaveLength(1);
    // The trade settled as confirmed stays confirmed: a second verdict on it is refused, and nothing changes.
    await expect(settle(executor, record, { receipt: noTransfer, attempt, cancelled: false })).rejects.toThrow(IllegalTransitionError);
    expect(await executor.ledger.trades.get(report.intentId)).toEqual(record);

    // A receipt with no logs at all: no amount can be read.
    const second = await sentElsewhere();
    const bare = await settle(second.other, record, { receipt: { ...receipt, logs: [] }, attempt: second.mined, cancelled: false });
    expect(bare).toMatchObject({ status: 'anomaly', reason: `the receipt shows no transfer of ${record.tokenOut} to the wallet` });
  });
});
