/**
 * An order worked in slices through Mento's limits, on the devnet's real Mento: 700,000 USDC into cUSD. Mento v2's
 * cUSD/USDC exchange (5 bps) takes at most 250,000 USDC per 5 minutes, the v3 fixed-price pool (8 bps) 300,000; the
 * pools beyond cost more than 0.2% (the order's `maxImpactBps`). So the first slice goes out in parts, v2 to its
 * limit and the rest elsewhere; once both limits are reached, no slice fits, and the order waits for Mento's window
 * to pass (time moves a minute per round here, the oracle reporting as it goes) before it sells the rest through them.
 */
import { type Address, decodeFunctionData, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi } from '../../src/contracts/abi.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { runStrategy } from '../../src/engine/runner.ts';
import type { RunDeps } from '../../src/engine/run-types.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { dcaStrategy, useTestExecutor } from '../helpers/engine.ts';
import { trader } from '../helpers/routing.ts';

const fork = useDevnetFork({ routing: true, mento: true });
const executor = useTestExecutor(fork, { eachTest: true });
const me = () => trader(fork).address;
const usdc = (whole: string) => parseUnits(whole, 6);

describe("an order worked in slices through Mento's 5-minute limits", () => {
  it('the first slice takes v2 to its limit and the rest elsewhere; the next waits for the window, then goes through Mento again', async () => {
    const order = usdc('700000');
    const wallet = trader(fork).wallet;
    await fork.confirm(await wallet.writeContract({ address: fork.token('USDC'), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me(), order] }));
    const strategy = dcaStrategy(fork, {
      sell: { address: fork.token('USDC'), symbol: 'USDC', decimals: 6 },
      buy: { address: fork.token('cUSD'), symbol: 'cUSD', decimals: 18 },
      amount: order,
      maxPriceDeviationBps: 100,
      split: { maxImpactBps: 20, withinMs: 1_800_000, everyMs: 60_000 },
    });
    // A round: a minute passes on the chain, and the oracle reports (its reports expire after 5 minutes).
    let rounds = 0;
    const aMinuteLater = async () => {
      rounds++;
      await fork.testClient.increaseTime({ seconds: 60 });
      await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook);
    };
    const deps: RunDeps = {
      executor: executor(),
      view: { client: executor().wallet.client, prices: executor().prices, wallet: me(), now: Date.now },
      pace: aMinuteLater,
    };
    const [usdcBefore, cusdBefore] = [await fork.balanceOf(fork.token('USDC'), me()), await fork.balanceOf(fork.token('cUSD'), me())];
    const slot = '2026-11-28T20:00:00.000Z';
    const run = await runStrategy(strategy, slot, deps);
    expect(run.trades.map((trade) => [trade.status, trade.refusal])).toEqual(run.trades.map(() => ['confirmed', undefined]));

    // Which venue each part went through, and when it mined.
    const rows = (await executor().ledger.trades.all('dca')).filter((row) => row.slot.startsWith(slot));
    const adapters = fork.addressBook.contracts.adapters;
    const venueOf = (data: `0x${string}`) => {
      const [payload] = decodeFunctionData({ abi: routerAbi, data }).args as unknown as [{ pairs: readonly Address[] }];
      const pairs = payload.pairs.map((pair) => pair.toLowerCase());
      if (pairs.length === 1 && pairs[0] === adapters.mentoV2?.toLowerCase()) return 'mento v2';
      if (pairs.length === 1 && pairs[0] === adapters.mentoFpmm?.toLowerCase()) return 'mento v3 pool';
      return 'elsewhere';
    };
    const parts = await Promise.all(
      rows.map(async (row) => {
        const block = await fork.publicClient.getBlock({ blockNumber: row.settlement?.blockNumber as bigint });
        return { venue: venueOf(row.call?.data ?? '0x'), amountIn: row.amountIn, at: block.timestamp };
      }),
    ).then((all) => all.sort((a, b) => Number(a.at - b.at)));
    // Measured: v2 236,250 and the v3 pool 288,750 in the first slice; a minute later what room both had left and
    // 2,734 elsewhere; then nothing fits until the window has passed, and the rest goes through v2.
    const through = (venue: string, window: (at: bigint) => boolean) =>
      parts.filter((part) => part.venue === venue && window(part.at - (parts[0]?.at ?? 0n))).reduce((sum, part) => sum + part.amountIn, 0n);
    const inFirstWindow = (since: bigint) => since < 300n;
    // (The first slice's parts mine within seconds of each other; the next round is a minute later.)
    const first = parts.filter((part) => part.at - (parts[0]?.at ?? 0n) < 30n);
    expect(first.map((part) => part.venue).sort()).toEqual(['mento v2', 'mento v3 pool']);
    // Within the first 5 minutes, each Mento venue took up to its limit and no more: v2 to within a part of it.
    expect(through('mento v2', inFirstWindow) > usdc('249000') && through('mento v2', inFirstWindow) <= usdc('250000')).toBe(true);
    expect(through('mento v3 pool', inFirstWindow) <= usdc('300000')).toBe(true);
    // The rest waited for the window, and went through v2 again.
    expect(through('mento v2', (since) => since > 300n) > 0n).toBe(true);
    expect(parts.filter((part) => !inFirstWindow(part.at - (parts[0]?.at ?? 0n))).every((part) => part.at - (parts[0]?.at ?? 0n) > 300n)).toBe(true);
    expect(rounds).toBeGreaterThanOrEqual(5);
    // All of it sold, exactly once, within 0.2% of the reference (both stables at $1) in all.
    const bought = run.trades.reduce((sum, trade) => sum + (trade.amountOut ?? 0n), 0n);
    expect(usdcBefore - (await fork.balanceOf(fork.token('USDC'), me()))).toBe(order);
    expect((await fork.balanceOf(fork.token('cUSD'), me())) - cusdBefore).toBe(bought);
    expect(bought * 10_000n >= order * 10n ** 12n * 9_980n).toBe(true);
  });
});
