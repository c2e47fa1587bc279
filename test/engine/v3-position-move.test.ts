/**
 * A V3 position re-ranged and exited in one transaction, all or nothing, through routekeeper's position mover
 * (src/contracts/solidity/V3RangeMover.sol, deployed on the devnet as a user deploys it), end to end on the devnet: the
 * real position manager, a busy pool that keeps Uniswap's default one observation, our routing service. The wallet
 * signs one transaction; the new NFT is the wallet's, the old one comes back emptied (or is burned), and the wallet
 * gets exactly what the mover says is left. A move that cannot meet its minimums when mined moves nothing; a lying
 * route and a mover whose code is not ours are refused before anything is signed.
 */
import { type Address, type Hex, encodePacked, erc20Abi, isAddressEqual, parseEventLogs } from 'viem';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { describe, expect, it } from 'vitest';
import { positionManagerAbi, uniswapV3PoolAbi } from '../../src/contracts/abi.ts';
import { initialWorldPrices, reportWorldPrices } from '../../src/devnet/oracle.ts';
import { V3RangeMover } from '../../src/contracts/solidity-code.ts';
import { heldPosition } from '../../src/engine/held-position.ts';
import { runStrategy } from '../../src/engine/runner.ts';
import { toJson } from '../../src/json.ts';
import { statusReport } from '../../src/status/report.ts';
import type { TradeReport } from '../../src/model/trade.ts';
import type { V3PositionStrategy } from '../../src/strategy/types.ts';
import { readWalletHistory } from '../../src/trade/wallet-history.ts';
import {
  cusdCeloPool,
  oneObservationPool,
  openPosition,
  positionManagerOf,
  positionStrategy,
  readPosition,
  swapInPool,
  tradeBusily,
} from '../../support/positions.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { testExecutor, useTestExecutor } from '../helpers/engine.ts';
import { startQuoteProxy } from '../helpers/quote-proxy.ts';
import { trader } from '../helpers/routing.ts';
import { waitFor } from '../helpers/wait.ts';

const e18 = 10n ** 18n;

describe('a V3 position moved in one transaction', () => {
  const fork = useDevnetFork({ uniswapV3: true, routing: true });
  const executor = useTestExecutor(fork, { eachTest: true });

  const me = () => trader(fork).address;
  const info = (symbol: string) => ({ symbol, address: fork.token(symbol), decimals: 18 });
  const view = (client = executor().wallet.client) => ({ client, prices: executor().prices, wallet: me(), nativeToken: info('CELO'), now: Date.now });
  const holdings = (pool: { token0: string; token1: string }) =>
    Promise.all([fork.balanceOf(fork.token(pool.token0), me()), fork.balanceOf(fork.token(pool.token1), me())]);
  const nonce = () => fork.publicClient.getTransactionCount({ address: me() });
  const ownerOf = (tokenId: bigint) =>
    fork.publicClient.readContract({ address: positionManagerOf(fork).address, abi: positionManagerAbi, functionName: 'ownerOf', args: [tokenId] });
  const keep = (oldPosition: 'keep' | 'burn' = 'keep'): Partial<V3PositionStrategy> => ({ keepInRange: { outsideMs: 3_600_000, oldPosition } });

  /** Account 1 sells `amount` of `symbol` in `pool` by the devnet's V3 adapter, its two transactions sent, not mined, at a high tip. */
  async function sellFirst(symbol: string, amount: bigint, pool: Address) {
    const { address, wallet } = trader(fork, 1);
    const adapter = fork.addressBook.contracts.adapters.uniswapV3 as Address;
    const [sold, bought] = [fork.token(symbol), fork.token(symbol === 'CELO' ? 'WETH' : 'CELO')];
    const tip = { maxPriorityFeePerGas: 50_000_000_000n, maxFeePerGas: 200_000_000_000n, gas: 600_000n };
    await wallet.writeContract({ address: sold, abi: erc20Abi, functionName: 'transfer', args: [adapter, amount], ...tip });
    await wallet.writeContract({
      address: adapter,
      abi: artifacts.UniswapV3Adapter.abi,
      functionName: 'swap',
      args: [sold, bought, address, encodePacked(['address'], [pool])],
      ...tip,
    });
  }

  /** A position on the busy one-observation CELO/WETH pool, out of range for more than an hour with swaps every five minutes. */
  async function outOfRangeOnBusyPool() {
    const busy = oneObservationPool(fork);
    const celoIs0 = busy.token0 === 'CELO';
    const [celo, weth] = [2_000n * e18, (2_000n * e18) / 6_000n];
    const opened = await openPosition(fork, busy, { halfWidthTicks: 120, amount0: celoIs0 ? celo : weth, amount1: celoIs0 ? weth : celo });
    await tradeBusily(fork, busy, { seconds: 3_600, everySeconds: 300, usd: 200 });
    // CELO falls out of the range: sold in the pool, and the world's price (the feeds) follows it there, as arbitrage
    // would bring the two together; the trading goes on for an hour and ten minutes.
    await swapInPool(fork, busy, { account: 1, sell: celoIs0 ? 'token0' : 'token1', amount: 40_000n * e18 });
    const [sqrtPriceX96] = await fork.publicClient.readContract({ address: busy.address, abi: uniswapV3PoolAbi, functionName: 'slot0' });
    const token0InToken1 = (Number(sqrtPriceX96) / 2 ** 96) ** 2;
    const wethUsd = initialWorldPrices.WETH as number;
    const celoUsd = celoIs0 ? token0InToken1 * wethUsd : wethUsd / token0InToken1;
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { ...initialWorldPrices, CELO: celoUsd });
    await tradeBusily(fork, busy, { seconds: 4_200, everySeconds: 300, usd: 200 });
    return { busy, opened };
  }

  it('re-ranges a position of a busy one-observation pool in one transaction once out of range for the window, and keeps the new NFT', async () => {
    const { busy, opened } = await outOfRangeOnBusyPool();
    const strategy = positionStrategy(fork, opened.tokenId, keep(), busy);
    const { liquidity, uncollected } = await readPosition(fork, opened.tokenId);
    const [before, nonceBefore] = [await holdings(busy), await nonce()];

    await executor().ledger.strategies.describe([{ id: strategy.id, kind: strategy.kind, walletName: 'main', wallet: me(), definition: toJson(strategy) }]);
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status, trade.reason])).toEqual([['move-position', 'confirmed', undefined]]);
    expect(run.note).toMatch(/^re-range: the price has been (below|above) \[-?\d+, -?\d+\) for 60 min; new range \[-?\d+, -?\d+\)$/);
    const [move] = run.trades as [TradeReport];
    // One transaction signed, nothing else.
    expect(await nonce()).toBe(nonceBefore + 1);
    const receipt = await fork.publicClient.getTransactionReceipt({ hash: move.txHash as Hex });
    expect(isAddressEqual(receipt.to as Address, positionManagerOf(fork).address)).toBe(true);

    // The old position: emptied of all its liquidity and fees, and back in the wallet.
    expect(move.moved?.freed0 !== undefined && move.moved.amount0 - (move.moved.freed0 ?? 0n)).toBe(uncollected.amount0);
    expect(move.moved?.amount1 !== undefined && move.moved.amount1 - (move.moved.freed1 ?? 0n)).toBe(uncollected.amount1);
    const emptied = await readPosition(fork, opened.tokenId);
    expect([emptied.liquidity, emptied.uncollected.amount0, emptied.uncollected.amount1, emptied.owner]).toEqual([0n, 0n, 0n, me()]);
    expect(liquidity).toBeGreaterThan(0n);

    // The new one: the wallet's, the same width, around the reference, holding what the move put in.
    const newId = move.moved?.positionId as bigint;
    const opening = await readPosition(fork, newId);
    expect(opening.owner).toBe(me());
    expect(opening.tickUpper - opening.tickLower).toBe(opened.tickUpper - opened.tickLower);
    expect(opening.liquidity).toBe(move.moved?.liquidity);
    expect(opening.tickLower <= opening.tick && opening.tick < opening.tickUpper).toBe(true);

    // The wallet got exactly what was left: collected, less sold, plus bought, less what the mint took.
    const sold0 = move.trade.amountIn > 0n;
    const stored = await executor().ledger.trades.get(move.intentId);
    const sold = sold0 ? move.trade.amountIn : stored?.kind === 'move-position' ? stored.amountIn1 : 0n;
    const bought = move.amountOut ?? 0n;
    const left = [
      (move.moved?.amount0 ?? 0n) - (sold0 ? sold : 0n) + (sold0 ? 0n : bought) - (move.moved?.added0 ?? 0n),
      (move.moved?.amount1 ?? 0n) - (sold0 ? 0n : sold) + (sold0 ? bought : 0n) - (move.moved?.added1 ?? 0n),
    ];
    const after = await holdings(busy);
    expect([after[0] - before[0], after[1] - before[1]]).toEqual(left);
    // The mover keeps nothing.
    const mover = fork.addressBook.contracts.v3RangeMover as Address;
    expect([await fork.balanceOf(fork.token(busy.token0), mover), await fork.balanceOf(fork.token(busy.token1), mover)]).toEqual([0n, 0n]);

    // The status counts one re-range: what the liquidity freed as removed, the rest it collected as fees.
    const lp = (await statusReport(executor().ledger)).strategies.find((candidate) => candidate.id === 'lp');
    const freed = [move.moved?.freed0 ?? 0n, move.moved?.freed1 ?? 0n];
    expect(lp?.position).toMatchObject({
      reRanges: 1,
      removed: { count: 1, token0: { raw: freed[0]?.toString() }, token1: { raw: freed[1]?.toString() } },
      collected: { token0: { raw: uncollected.amount0.toString() }, token1: { raw: uncollected.amount1.toString() } },
    });

    // From then on the strategy keeps the new NFT, found from the move's receipt.
    expect(await heldPosition(strategy, { client: fork.publicClient, wallet: executor().wallet, history: await readWalletHistory(executor()) })).toEqual({
      positionId: newId,
      via: { mintTx: move.txHash },
    });
  });

  it('exits in one transaction, the other token sold into the one the file names', async () => {
    const pool = cusdCeloPool(fork);
    const opened = await openPosition(fork, pool, { halfWidthTicks: 1_200, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    const { liquidity } = await readPosition(fork, opened.tokenId);
    const into = info('cUSD');
    const intoIs0 = pool.token0 === 'cUSD';
    const before = await holdings(pool);
    const strategy = positionStrategy(fork, opened.tokenId, { exit: { atMs: Date.now() - 1_000, to: into } });
    const run = await runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status, trade.reason])).toEqual([['move-position', 'confirmed', undefined]]);
    const [move] = run.trades as [TradeReport];
    const stored = await executor().ledger.trades.get(move.intentId);
    if (stored?.kind !== 'move-position') throw new Error('no move stored');
    // It sells the other token only.
    expect(intoIs0 ? [stored.amountIn, stored.amountIn1 > 0n] : [stored.amountIn1, stored.amountIn > 0n]).toEqual([0n, true]);
    const after = await holdings(pool);
    const [gainedInto, gainedOther] = intoIs0 ? [after[0] - before[0], after[1] - before[1]] : [after[1] - before[1], after[0] - before[0]];
    const collected = intoIs0 ? [move.moved?.amount0 ?? 0n, move.moved?.amount1 ?? 0n] : [move.moved?.amount1 ?? 0n, move.moved?.amount0 ?? 0n];
    const sold = intoIs0 ? stored.amountIn1 : stored.amountIn;
    // All of the token asked, and what the sale of all the other paid: the route was asked for a little less (the
    // slippage's share), and the mover sold all it held.
    expect(gainedInto).toBe((collected[0] as bigint) + (move.amountOut ?? 0n));
    expect(gainedOther).toBe(0n);
    expect(sold < (collected[1] as bigint)).toBe(true);
    const emptied = await readPosition(fork, opened.tokenId);
    expect([emptied.liquidity, emptied.owner, move.moved?.freed0 !== undefined]).toEqual([0n, me(), true]);
    expect(liquidity).toBeGreaterThan(0n);
  });

  it('burns the emptied NFT in the same transaction when the file says so', async () => {
    const pool = cusdCeloPool(fork);
    const opened = await openPosition(fork, pool, { halfWidthTicks: 600, offsetTicks: 2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    await fork.testClient.increaseTime({ seconds: 4_200 });
    await fork.testClient.mine({ blocks: 1 });
    const run = await runStrategy(positionStrategy(fork, opened.tokenId, keep('burn')), 'slot-1', { executor: executor(), view: view() });
    expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([['move-position', 'confirmed']]);
    await expect(ownerOf(opened.tokenId)).rejects.toThrow();
    const receipt = await fork.publicClient.getTransactionReceipt({ hash: run.trades[0]?.txHash as Hex });
    const nfts = parseEventLogs({ abi: positionManagerAbi, eventName: 'Transfer', logs: receipt.logs }).map((event) => [
      event.args.from,
      event.args.to,
      event.args.tokenId,
    ]);
    const mover = fork.addressBook.contracts.v3RangeMover as Address;
    const newId = run.trades[0]?.moved?.positionId as bigint;
    expect(nfts).toEqual([
      [me(), mover, opened.tokenId],
      ['0x0000000000000000000000000000000000000000', me(), newId],
      [mover, '0x0000000000000000000000000000000000000000', opened.tokenId],
    ]);
    expect(await ownerOf(newId)).toBe(me());
  });

  it('moves nothing at all when its minimums are not met as it is mined: the pool pushed in the block before reverts it whole', async () => {
    const { busy, opened } = await outOfRangeOnBusyPool();
    const strategy = positionStrategy(fork, opened.tokenId, keep(), busy);
    const { liquidity } = await readPosition(fork, opened.tokenId);
    const before = await holdings(busy);
    await fork.testClient.setAutomine(false);
    try {
      const running = runStrategy(strategy, 'slot-1', { executor: executor(), view: view() });
      // The move waits in the node's pool; another trader's push, paying a higher tip, goes first in the block.
      await waitFor(
        async () => (await fork.publicClient.getTransactionCount({ address: me(), blockTag: 'pending' })) > (await nonce()),
        'the move to be sent',
        30_000,
      );
      // Another trader sells 40,000 CELO more in the pool, paying a tip far above the wallet's: first in the block.
      await sellFirst(busy.token0 === 'CELO' ? busy.token0 : busy.token1, 40_000n * e18, busy.address);
      await fork.testClient.mine({ blocks: 1 });
      await fork.testClient.setAutomine(true);
      const run = await running;
      expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([['move-position', 'failed']]);
      // Mined, and reverted whole: one transaction, no part of it kept.
      const receipt = await fork.publicClient.getTransactionReceipt({ hash: run.trades[0]?.txHash as Hex });
      expect([receipt.status, receipt.logs]).toEqual(['reverted', []]);
    } finally {
      await fork.testClient.setAutomine(true);
    }
    // Nothing moved: the position holds all it held, the NFT is the wallet's, and the wallet's tokens are as they were.
    const after = await readPosition(fork, opened.tokenId);
    expect([after.liquidity, after.owner]).toEqual([liquidity, me()]);
    expect(await holdings(busy)).toEqual(before);
  });

  /** A position of cUSD/CELO out of range for more than an hour (its range above the price from the start). */
  async function outOfRange() {
    const pool = cusdCeloPool(fork);
    const opened = await openPosition(fork, pool, { halfWidthTicks: 600, offsetTicks: 2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    await fork.testClient.increaseTime({ seconds: 4_200 });
    await fork.testClient.mine({ blocks: 1 });
    return { pool, opened };
  }

  it('refuses a lying route for the swap inside the move: nothing signed, the NFT and the wallet unchanged', async () => {
    const { pool, opened } = await outOfRange();
    const proxy = await startQuoteProxy(fork.addressBook.routingServiceUrl as string);
    const lied = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      proxy.setRewrite((body) => {
        const inflated = ((BigInt(body.expectedOut) * 3n) / 2n).toString();
        body.details.expectedOutputAmount = inflated;
        const { txn, ...rest } = body;
        return { ...rest, expectedOut: inflated };
      });
      const { liquidity } = await readPosition(fork, opened.tokenId);
      const [before, nonceBefore] = [await holdings(pool), await nonce()];
      const run = await runStrategy(positionStrategy(fork, opened.tokenId, keep(), pool), 'slot-1', { executor: lied, view: view(lied.wallet.client) });
      expect(run.trades.map((trade) => [trade.trade.kind, trade.status])).toEqual([['move-position', 'refused']]);
      expect(run.trades[0]?.refusedBy).toMatch(/^(near-reference|simulation|move-flows)$/);
      expect(await lied.ledger.attempts.ofTrade(run.trades[0]?.intentId as string)).toEqual([]);
      expect([await nonce(), await holdings(pool)]).toEqual([nonceBefore, before]);
      const still = await readPosition(fork, opened.tokenId);
      expect([still.liquidity, still.owner]).toEqual([liquidity, me()]);
    } finally {
      await lied.close();
      await proxy.close();
    }
  });

  it('refuses a mover whose code is not this build’s, read at every use: nothing signed, the NFT and the wallet unchanged', async () => {
    const { pool, opened } = await outOfRange();
    // The address book names another contract as the mover (the devnet's V3 adapter): its code differs.
    const book = { ...fork.addressBook, contracts: { ...fork.addressBook.contracts, v3RangeMover: fork.addressBook.contracts.adapters.uniswapV3 } };
    const other = await testExecutor(fork, { addressBook: book });
    try {
      const [before, nonceBefore] = [await holdings(pool), await nonce()];
      const run = await runStrategy(positionStrategy(fork, opened.tokenId, keep(), pool), 'slot-1', { executor: other, view: view(other.wallet.client) });
      expect(run.trades.map((trade) => [trade.trade.kind, trade.status, trade.refusedBy])).toEqual([['move-position', 'refused', 'mover-known']]);
      expect(run.trades[0]?.reason).toMatch(/^the position mover 0x[0-9a-fA-F]{40} does not hold this build's code: nothing is sent to it$/);
      expect([await nonce(), await holdings(pool), await ownerOf(opened.tokenId)]).toEqual([nonceBefore, before, me()]);
      expect((await fork.publicClient.getCode({ address: fork.addressBook.contracts.v3RangeMover as Address }))?.toLowerCase()).toBe(
        V3RangeMover.runtimeCode.toLowerCase(),
      );
    } finally {
      await other.close();
    }
  });
});
