/**
 * After every trade the wallet's balances are compared with what was signed. A token whose Transfer event claims
 * more than it moves makes a receipt that looks right to every log reader: the balances catch it, the trade is an
 * anomaly, and its strategy and wallet are paused until a person lifts the pause.
 */
import { type Address, concatHex, createWalletClient, http, numberToHex, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import { defaultPoolAverageOptions } from '../../src/price/pool-average.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { SwapTrade } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { type TestExecutor, testExecutor } from '../helpers/engine.ts';
import { useQuoteProxy } from '../helpers/quote-proxy.ts';
import { constantProductOut } from '../helpers/uniswap.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const proxy = useQuoteProxy(fork);

const me = () => fork.addressBook.accounts[0]?.address as Address;
const deployer = devnetAccount(9);

async function send(request: Promise<`0x${string}`>) {
  return fork.confirm(await request);
}

/**
 * A token that pays its victim (our wallet) half of what its Transfer events claim, in a cUSD/LIE pool of the known
 * factory with a history as long as the price window, listed and priced in the user's own address book; the service
 * routes cUSD→LIE through it.
 */
async function lyingWorld(): Promise<{ executor: TestExecutor; lie: Address; out: bigint; trade: (slot: string) => SwapTrade }> {
  const owner = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: deployer.account });
  const lie = (await send(owner.deployContract({ abi: artifacts.LyingToken.abi, bytecode: artifacts.LyingToken.bytecode }))).contractAddress as Address;
  const usd = fork.token('cUSD');
  const factory = fork.addressBook.contracts.uniswapV2Factory as Address;
  // A cUSD/LIE pool of the known factory, at 1 LIE per cUSD; the route through it verifies.
  await send(owner.writeContract({ address: factory, abi: artifacts.UniswapV2Factory.abi, functionName: 'createPair', args: [usd, lie], gas: 5_000_000n }));
  const pool = (await fork.publicClient.readContract({
    address: factory,
    abi: artifacts.UniswapV2Factory.abi,
    functionName: 'getPair',
    args: [usd, lie],
  })) as Address;
  const depth = parseUnits('1000000', 18);
  await send(owner.writeContract({ address: usd, abi: artifacts.TestToken.abi, functionName: 'mint', args: [pool, depth], gas: 200_000n }));
  await send(owner.writeContract({ address: lie, abi: artifacts.LyingToken.abi, functionName: 'mint', args: [pool, depth], gas: 200_000n }));
  await send(owner.writeContract({ address: pool, abi: artifacts.UniswapV2Pair.abi, functionName: 'mint', args: [deployer.address], gas: 5_000_000n }));
  await send(owner.writeContract({ address: lie, abi: artifacts.LyingToken.abi, functionName: 'setVictim', args: [me()], gas: 200_000n }));
  // A pool prices a token only once it has a history as long as the price-average window.
  // (Twice the window: anvil's jump starts from the wall clock, which a chain of many blocks a second runs ahead of.)
  await fork.testClient.increaseTime({ seconds: 2 * defaultPoolAverageOptions.windowSeconds });
  await fork.testClient.mine({ blocks: 1 });

  // The user's own address book lists LIE and prices it through that pool against cUSD.
  const book = {
    ...fork.addressBook,
    tokens: { ...fork.addressBook.tokens, LIE: { address: lie, decimals: 18 } },
    priceSources: { ...fork.addressBook.priceSources, LIE: [{ kind: 'pool' as const, pool, quote: 'cUSD' }] },
  };
  const amountIn = parseUnits('100', 18);
  const out = constantProductOut(amountIn, depth, depth);
  // The service routes through that pool (the local service does not know it; the proxy writes the route).
  proxy.setRequestRewrite((url) => {
    url.searchParams.set('tokenOut', fork.token('CELO'));
    return url;
  });
  proxy.setRewrite((body) => {
    const { txn, ...rest } = body;
    return {
      ...rest,
      expectedOut: out.toString(),
      details: {
        ...body.details,
        path: [usd, lie],
        pairs: [fork.addressBook.contracts.adapters.uniswapV2],
        extras: [concatHex([pool, numberToHex(3, { size: 1 })])],
        expectedOutputAmount: out.toString(),
        partner: 0,
        sig: '0x',
      },
    };
  });
  const executor = await testExecutor(fork, { serviceUrl: proxy.url, addressBook: book });
  const trade = (slot: string): SwapTrade => ({
    id: `lying:${slot}`,
    strategyId: 'lying',
    slot,
    wallet: me(),
    chainId: book.chainId,
    kind: 'swap',
    tokenIn: usd,
    tokenOut: lie,
    amountIn,
    slippageBps: 50,
  });
  return { executor, lie, out, trade };
}

describe('a swap through a token that pays less than its receipt claims', () => {
  it('is an anomaly that pauses the strategy and the wallet, persisted until lifted', async () => {
    const { executor, lie, out, trade } = await lyingWorld();
    try {
      const lieBefore = await fork.balanceOf(lie, me());
      const report = await runTrade(executor, trade('1'));

      // The receipt's logs and the router's Swap event both say `out` arrived; half of it did.
      expect(report.status, report.reason).toBe('anomaly');
      expect(await fork.balanceOf(lie, me())).toBe(lieBefore + out / 2n);
      expect(report.reason).toContain(`the balance of ${lie} grew by ${out / 2n}, less than the minimum`);
      const record = await executor.ledger.trades.get(report.intentId);
      expect(record).toMatchObject({ status: 'anomaly', settlement: { amountOut: out, reportedOut: out } });
      expect((await executor.ledger.events.list(report.intentId)).map((event) => event.kind)).toContain('anomaly');

      // The strategy and the wallet are paused, in the ledger: the next trade is refused before it is quoted.
      expect((await executor.ledger.pauses.all()).map((pause) => [pause.scope, pause.key, pause.intentId])).toEqual([
        ['strategy', 'lying', report.intentId],
        ['wallet', me().toLowerCase(), report.intentId],
      ]);
      const nonce = await fork.publicClient.getTransactionCount({ address: me() });
      const next = await runTrade(executor, trade('2'));
      expect([next.status, next.refusal]).toEqual(['refused', 'paused']);
      expect(next.stages).toEqual([]);
      expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonce);

      // Lifting both pauses lets the strategy trade again (and a reopened ledger still holds them until then).
      expect(await executor.ledger.pauses.lift('strategy', 'lying')).toBe(true);
      expect(await executor.ledger.pauses.lift('wallet', me())).toBe(true);
      expect(await executor.ledger.pauses.for('lying', me())).toEqual([]);
    } finally {
      await executor.close();
      proxy.setRewrite(undefined);
      proxy.setRequestRewrite(undefined);
    }
  });
});

describe('two swaps through that token mined in one block (pipelined nonces)', () => {
  it('are checked together against the balances: both are anomalies, and the wallet is paused', async () => {
    const { executor, lie, trade } = await lyingWorld();
    try {
      const lieBefore = await fork.balanceOf(lie, me());
      await fork.testClient.setAutomine(false);
      const running = Promise.all([runTrade(executor, trade('a')), runTrade(executor, trade('b'))]);
      // Both trades and their approvals in the node's pool, then one block.
      await waitFor(
        async () => {
          const [latest, pending] = await Promise.all([
            fork.publicClient.getTransactionCount({ address: me() }),
            fork.publicClient.getTransactionCount({ address: me(), blockTag: 'pending' }),
          ]);
          return pending - latest >= 4;
        },
        'the two trades and their approvals in the pool',
        20_000,
      );
      await fork.testClient.mine({ blocks: 1 });
      const reports = await running;

      const claimed = reports.reduce((sum, report) => sum + (report.amountOut as bigint), 0n);
      // The logs claim `claimed` arrived in all; half of it did.
      expect(await fork.balanceOf(lie, me())).toBe(lieBefore + claimed / 2n);
      for (const report of reports) {
        expect(report.status, report.reason).toBe('anomaly');
        expect(report.reason).toContain(`for the wallet's 2 trades in block`);
        expect(report.reason).toContain(`the balance of ${lie} changed by ${claimed / 2n}; the trades' logs and signed amounts allow no less than ${claimed}`);
        expect(await executor.ledger.trades.get(report.intentId)).toMatchObject({ status: 'anomaly' });
      }
      expect((await executor.ledger.pauses.all()).map((pause) => [pause.scope, pause.key])).toEqual(
        expect.arrayContaining([
          ['strategy', 'lying'],
          ['wallet', me().toLowerCase()],
        ]),
      );
    } finally {
      await fork.testClient.setAutomine(true);
      await executor.close();
      proxy.setRewrite(undefined);
      proxy.setRequestRewrite(undefined);
    }
  });
});
