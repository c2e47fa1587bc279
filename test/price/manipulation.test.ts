/**
 * Prices no single pool can move within the trade. RWD has no feed: the daemon prices it through the RWD/CELO
 * pool, the only pool of RWD, and its trades swap in that same pool. An attacker who buys RWD there in the block
 * before ours would set both the route's price and, with a spot reference, the reference too. With averages,
 * the moved pool is refused as manipulated; a move that lasts past the window is the new price, and trades.
 * On an L2, the sequencer uptime feed stops every trade while the sequencer is down and for a grace period after.
 */
import { type Address, createWalletClient, http, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportSequencer, reportWorldPrices } from '../../src/devnet/oracle.ts';
import { sequencerGracePeriodSeconds } from '../../src/devnet/world-spec.ts';
import { defaultPoolAverageOptions } from '../../src/price/pool-average.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { swapTrade, testExecutor } from '../helpers/engine.ts';
import { constantProductOut, readPool, reservesFrom } from '../helpers/uniswap.ts';

const fork = useDevnetFork({ routing: true });
const attacker = devnetAccount(9);
const me = () => fork.addressBook.accounts[0]?.address as Address;
const window = defaultPoolAverageOptions.windowSeconds;

let slot = 0;
const buyRwd = () => swapTrade(fork, 'buy-rwd', `${++slot}`, { tokenIn: fork.token('CELO'), tokenOut: fork.token('RWD'), amountIn: parseUnits('1000', 18) });

/** The attacker buys RWD with `celo` CELO straight from the RWD/CELO pool (minting itself the devnet's CELO). */
async function pushRwdUp(celo: bigint): Promise<void> {
  const pool = await readPool(fork, 'RWD/CELO');
  const [reserveCelo, reserveRwd] = reservesFrom(pool, fork.token('CELO'));
  const out = constantProductOut(celo, reserveCelo, reserveRwd);
  const wallet = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: attacker.account });
  await fork.confirm(
    await wallet.writeContract({ address: fork.token('CELO'), abi: artifacts.TestToken.abi, functionName: 'mint', args: [pool.address, celo], gas: 200_000n }),
  );
  const rwdIs0 = pool.token0.toLowerCase() === fork.token('RWD').toLowerCase();
  await fork.confirm(
    await wallet.writeContract({
      address: pool.address,
      abi: artifacts.UniswapV2Pair.abi,
      functionName: 'swap',
      args: rwdIs0 ? [out, 0n, attacker.address, '0x'] : [0n, out, attacker.address, '0x'],
      gas: 300_000n,
    }),
  );
}

async function walletState() {
  return Promise.all([
    fork.publicClient.getTransactionCount({ address: me() }),
    fork.balanceOf(fork.token('CELO'), me()),
    fork.balanceOf(fork.token('RWD'), me()),
  ]);
}

/** Lets chain time pass (the feeds re-reported, as the devnet's reporter does every minute). */
async function letTimePass(seconds: number) {
  await fork.testClient.increaseTime({ seconds });
  await fork.testClient.mine({ blocks: 1 });
  await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook);
}

describe('a pool moved just before the trade', () => {
  it('is refused as manipulated, with the spot and the average named, and nothing sent', async () => {
    const honest = await readPool(fork, 'RWD/CELO');
    await pushRwdUp(parseUnits('90000', 18));
    const executor = await testExecutor(fork);
    try {
      // What the route would pay now, against what it paid before the push: the price an attacker would set.
      const [celoNow, rwdNow] = reservesFrom(await readPool(fork, 'RWD/CELO'), fork.token('CELO'));
      const [celoBefore, rwdBefore] = reservesFrom(honest, fork.token('CELO'));
      const movedOut = constantProductOut(parseUnits('1000', 18), celoNow, rwdNow);
      const honestOut = constantProductOut(parseUnits('1000', 18), celoBefore, rwdBefore);
      expect(Number((movedOut * 1000n) / honestOut) / 10).toBeLessThan(85);

      const before = await walletState();
      const report = await runTrade(executor, buyRwd());
      expect(report.status, report.reason).toBe('refused');
      expect(report.refusal).toBe('manipulated');
      expect(report.reason).toMatch(/prices 0x\w+ at [\d.]+ of 0x\w+ now, [\d.]+% from its 10\.\d-minute average [\d.]+ \(tolerance 1%\)/);
      expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
      expect(await walletState()).toEqual(before);
    } finally {
      await executor.close();
    }
  });

  it('trades again once the move has held past the window, at the moved price', async () => {
    await pushRwdUp(parseUnits('90000', 18));
    const executor = await testExecutor(fork);
    try {
      // Half a window later the average is still far behind: refused.
      await letTimePass(window / 2);
      expect((await runTrade(executor, buyRwd())).refusal).toBe('manipulated');
      // A window and a half after the move (more than the 1.25 windows an average's start may lag, with room for a
      // chain running ahead of the wall clock), the move is the price.
      await letTimePass(window);
      const [celoReserve, rwdReserve] = reservesFrom(await readPool(fork, 'RWD/CELO'), fork.token('CELO'));
      const [, celoBefore, rwdBefore] = await walletState();
      const report = await runTrade(executor, buyRwd());
      expect(report.status, report.reason).toBe('confirmed');
      const paid = constantProductOut(parseUnits('1000', 18), celoReserve, rwdReserve);
      expect(report.amountOut).toBe(paid);
      expect(await fork.balanceOf(fork.token('CELO'), me())).toBe(celoBefore - parseUnits('1000', 18));
      expect(await fork.balanceOf(fork.token('RWD'), me())).toBe(rwdBefore + paid);
    } finally {
      await executor.close();
    }
  });
});

describe('the L2 sequencer', () => {
  const cusdToCelo = () => swapTrade(fork, 'sequencer', `${++slot}`);

  it('down: no trade, nothing sent', async () => {
    await reportSequencer(fork.addressBook.rpcUrl, fork.addressBook, 'down');
    const executor = await testExecutor(fork);
    try {
      const before = await walletState();
      const report = await runTrade(executor, cusdToCelo());
      expect(report.refusal, report.reason).toBe('sequencer');
      expect(report.reason).toContain('says the sequencer is down');
      expect(await walletState()).toEqual(before);
    } finally {
      await executor.close();
    }
  });

  it('just back: no trade within the grace period; after it, the trade goes through', async () => {
    await reportSequencer(fork.addressBook.rpcUrl, fork.addressBook, 'down');
    await reportSequencer(fork.addressBook.rpcUrl, fork.addressBook, 'up');
    const executor = await testExecutor(fork);
    try {
      const report = await runTrade(executor, cusdToCelo());
      expect(report.refusal, report.reason).toBe('sequencer');
      expect(report.reason).toMatch(new RegExp(`came back \\d+ s ago, within the ${sequencerGracePeriodSeconds} s grace period`));
      // The grace period and then some: a chain that mined many blocks in one second runs ahead of the wall clock,
      // and anvil's time jumps from the wall clock, not from the last block.
      await letTimePass(sequencerGracePeriodSeconds + 600);
      const cusdBefore = await fork.balanceOf(fork.token('cUSD'), me());
      const after = await runTrade(executor, cusdToCelo());
      expect(after.status, after.reason).toBe('confirmed');
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(cusdBefore - parseUnits('100', 18));
    } finally {
      await executor.close();
    }
  });
});
