/**
 * The balance check after a trade, followed long after it was mined (a daemon taking a wallet over): a node that no
 * longer keeps an old block's state lets the receipt settle it, the skip recorded with why; a node that claims
 * so of a recent block is not believed (the check fails, to be tried again).
 */
import { erc20Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ChainClient } from '../../src/chains.ts';
import { checkBalanceChanges } from '../../src/trade/balances.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { TradeRecord } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { swapTrade, testExecutor } from '../helpers/engine.ts';

const fork = useDevnetFork({ routing: true });

/** The devnet's node, except that it has lost the state of every block but the latest (as a pruned node). */
function prunedNode(client: ChainClient): ChainClient {
  const gone = () => Promise.reject(new Error('missing trie node 9c1a… (path ) state 0x… is not available'));
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'readContract' || key === 'getBalance' || key === 'getTransactionCount') return gone;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe('the balance check of a trade followed late', () => {
  it('is skipped, with why, when the node no longer keeps the block; not for a recent block', async () => {
    const executor = await testExecutor(fork);
    try {
      const report = await runTrade(executor, swapTrade(fork, 'late', '1'));
      expect(report.status, report.reason).toBe('confirmed');
      const record = (await executor.ledger.trades.get(report.intentId)) as TradeRecord;
      const receipt = await fork.publicClient.getTransactionReceipt({ hash: report.txHash as `0x${string}` });
      const mined = { blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, effectiveGasPrice: receipt.effectiveGasPrice };
      const client = executor.wallet.client;
      // Its approval shares the block: both are the trade's own.
      const own = { ownHashes: (await executor.ledger.attempts.ofTrade(report.intentId)).map((attempt) => attempt.hash) };

      // The node that has the state: the balances agree with what was signed.
      const honest = await checkBalanceChanges(client, record, mined, own);
      expect(
        honest.ok,
        JSON.stringify(honest, (_key, value) => (typeof value === 'bigint' ? String(value) : value)),
      ).toBe(true);
      // What it read after the trade is handed on (the metrics use it): the wallet's balances at the trade's block.
      const me = record.wallet;
      expect(honest.after).toEqual({
        blockNumber: receipt.blockNumber,
        tokens: [
          {
            token: record.tokenIn,
            balance: await fork.publicClient.readContract({
              address: record.tokenIn,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [me],
              blockNumber: receipt.blockNumber,
            }),
          },
          {
            token: record.tokenOut,
            balance: await fork.publicClient.readContract({
              address: record.tokenOut,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [me],
              blockNumber: receipt.blockNumber,
            }),
          },
        ],
        native: await fork.publicClient.getBalance({ address: me, blockNumber: receipt.blockNumber }),
      });
      // A node that says the state of a block mined a moment ago is gone is not believed.
      await expect(checkBalanceChanges(prunedNode(client), record, mined, own)).rejects.toThrow(/missing trie node/);
      // Long after: the state is gone for good, and the check says so instead of waiting forever.
      await fork.testClient.mine({ blocks: 20 });
      // The distance the message names is the chain's: at least the 20 blocks just mined (21 was once seen in a pair of
      // runs: the message counts whatever the chain holds).
      const skipped = await checkBalanceChanges(prunedNode(client), record, mined, own);
      const ago = (await fork.publicClient.getBlockNumber()) - receipt.blockNumber;
      expect(ago).toBeGreaterThanOrEqual(20n);
      expect(skipped).toEqual({
        ok: 'skipped',
        why: `the node no longer has the state of block ${receipt.blockNumber} (${ago} blocks ago) to compare the balances`,
      });
    } finally {
      await executor.close();
    }
  });
});

/**
 * A confirmed trade alone in its block (the router approved by a first one), and what its balance check is given: the
 * trade as recorded, its receipt, what was mined and its own transaction.
 */
async function tradeAlone(executor: Awaited<ReturnType<typeof testExecutor>>, strategy: string) {
  const warm = await runTrade(executor, swapTrade(fork, strategy, 'warm'));
  expect(warm.status, warm.reason).toBe('confirmed');
  const report = await runTrade(executor, swapTrade(fork, strategy, '1'));
  expect(report.status, report.reason).toBe('confirmed');
  const record = (await executor.ledger.trades.get(report.intentId)) as TradeRecord;
  const receipt = await fork.publicClient.getTransactionReceipt({ hash: report.txHash as `0x${string}` });
  const mined = { blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, effectiveGasPrice: receipt.effectiveGasPrice };
  return { record, receipt, mined, own: { ownHashes: [receipt.transactionHash] } };
}

/**
 * The devnet's node, except that its first `times` answers about the wallet at `blockNumber` come from a state that
 * already holds more: one more transaction counted and some native coin gone (anvil answers so when asked about its
 * head while it mines the next block).
 */
function racingNode(client: ChainClient, blockNumber: bigint, times: number): ChainClient {
  const left = { count: times, balance: times };
  const ahead = (key: 'count' | 'balance', args: { blockNumber?: bigint }) => args.blockNumber === blockNumber && left[key]-- > 0;
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'getTransactionCount')
        return async (args: { blockNumber?: bigint }) => (await target.getTransactionCount(args as never)) + (ahead('count', args) ? 1 : 0);
      if (key === 'getBalance')
        return async (args: { blockNumber?: bigint }) => (await target.getBalance(args as never)) - (ahead('balance', args) ? 10n ** 15n : 0n);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe('the balance check of a block the node is still building on', () => {
  it('reads again when the count disagrees with the block; a node that keeps answering so is skipped, never an anomaly', async () => {
    const executor = await testExecutor(fork, { settings: { approvals: 'unlimited' } });
    try {
      const { record, receipt, mined, own } = await tradeAlone(executor, 'race');

      // Once: the second read is the block's, and the trade checks out.
      const once = await checkBalanceChanges(racingNode(executor.wallet.client, receipt.blockNumber, 1), record, mined, own);
      expect(once.ok).toBe(true);
      expect(once.after?.native).toBe(await fork.publicClient.getBalance({ address: record.wallet, blockNumber: receipt.blockNumber }));
      // Every time: the check says why it could not compare, and concludes nothing.
      expect(await checkBalanceChanges(racingNode(executor.wallet.client, receipt.blockNumber, 2), record, mined, own)).toEqual({
        ok: 'skipped',
        why: `the node's count of the wallet's transactions moved by 2 in block ${receipt.blockNumber}, which lists 1: its state is not that block's`,
      });
    } finally {
      await executor.close();
    }
  });
});

/**
 * The devnet's node, except that its first `times` answers of the wallet's `token` balance at `blockNumber` come from a
 * state in which `less` more has left it, while its count of the wallet's transactions is the block's own (anvil
 * answers some reads of one batch so when it mines the next block meanwhile).
 */
function balanceAheadNode(client: ChainClient, blockNumber: bigint, token: `0x${string}`, less: bigint, times: number): ChainClient {
  let left = times;
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'readContract') {
        return async (args: { address: `0x${string}`; functionName: string; blockNumber?: bigint }) => {
          const answer = (await target.readContract(args as never)) as bigint;
          const ahead =
            args.functionName === 'balanceOf' && args.address.toLowerCase() === token.toLowerCase() && args.blockNumber === blockNumber && left-- > 0;
          return ahead ? answer - less : answer;
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

describe('the balance check of a block whose reads disagree', () => {
  it('concludes an anomaly only when the balances read again say so too', async () => {
    const executor = await testExecutor(fork, { settings: { approvals: 'unlimited' } });
    try {
      const { record, receipt, mined, own } = await tradeAlone(executor, 'reread');
      const less = 5n * 10n ** 18n;
      const held = await fork.publicClient.readContract({
        address: record.tokenIn,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [record.wallet],
        blockNumber: receipt.blockNumber,
      });

      // Once: the first read had 5 more gone than was signed; the second is the block's own, and the trade checks out.
      const once = await checkBalanceChanges(balanceAheadNode(executor.wallet.client, receipt.blockNumber, record.tokenIn, less, 1), record, mined, own);
      expect(once.ok).toBe(true);
      expect(once.after?.tokens[0]).toEqual({ token: record.tokenIn, balance: held });
      // Every time: the balances say it, and it is an anomaly.
      const always = await checkBalanceChanges(balanceAheadNode(executor.wallet.client, receipt.blockNumber, record.tokenIn, less, 2), record, mined, own);
      expect(always).toMatchObject({
        ok: false,
        anomaly: `balances after block ${receipt.blockNumber}: ${record.amountIn + less} of ${record.tokenIn} left the wallet; ${record.amountIn} was signed`,
      });
      expect(always.after?.tokens[0]).toEqual({ token: record.tokenIn, balance: held - less });
    } finally {
      await executor.close();
    }
  });
});
