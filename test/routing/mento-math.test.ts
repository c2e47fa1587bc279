/**
 * Our Mento arithmetic (src/pools/mento/math.ts over the state src/pools/mento/state.ts reads) against Mento's
 * published build on the devnet: quotes equal to the wei to `Broker.getAmountOut` over sizes, both ways, on both
 * pricing modules, before and after a bucket reset; a real `swapIn` paying what `mentoSwap` says and leaving the
 * buckets and trading-limit state it predicts; and the swaps the Broker refuses (a trading limit, a halted rate
 * feed, a stale median) refused by the model with the same reason. Exchanges are found alike through a Broker of the
 * v2.2 line Celo runs and through one of the v2.6 line's shape (no `reserve()`).
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { mentoBrokerAbi } from '../../src/contracts/abi.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { type MentoExchangeState, bucketsAt, mentoAmountOut, mentoSwap } from '../../src/pools/mento/math.ts';
import { type MentoExchange, discoverMentoExchanges, readMentoStates } from '../../src/pools/mento/state.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { approve, trader } from '../helpers/routing.ts';

describe('Mento arithmetic against the published Broker and BiPoolManager', () => {
  const fork = useDevnetFork({ mento: true });
  const broker = () => fork.addressBook.contracts.mento?.broker as Address;

  async function exchanges(): Promise<MentoExchange[]> {
    return discoverMentoExchanges(
      fork.publicClient,
      broker(),
      fork.addressBook.contracts.mento?.exchangeProviders ?? [],
      await fork.publicClient.getBlockNumber(),
    );
  }

  /** The exchanges' states and the chain's time at the latest block. */
  async function latest(found: readonly MentoExchange[]): Promise<{ states: MentoExchangeState[]; now: bigint; blockNumber: bigint }> {
    const block = await fork.publicClient.getBlock({ blockTag: 'latest' });
    const states = await readMentoStates(fork.publicClient, found, block.number);
    for (const state of states) if ('unreadable' in state) throw new Error(state.unreadable);
    return { states: states as MentoExchangeState[], now: block.timestamp, blockNumber: block.number };
  }

  const named = (found: readonly MentoExchange[], asset0: string, asset1: string) => {
    const exchange = found.find((entry) => entry.asset0 === fork.token(asset0) && entry.asset1 === fork.token(asset1));
    if (!exchange) throw new Error(`no Mento exchange ${asset0}/${asset1}`);
    return exchange;
  };

  /** What the Broker's own view answers at a block; undefined where it reverts. */
  const brokerQuote = (exchange: MentoExchange, inIs0: boolean, amountIn: bigint, blockNumber: bigint) =>
    fork.publicClient
      .readContract({
        address: broker(),
        abi: mentoBrokerAbi,
        functionName: 'getAmountOut',
        args: [exchange.provider, exchange.exchangeId, inIs0 ? exchange.asset0 : exchange.asset1, inIs0 ? exchange.asset1 : exchange.asset0, amountIn],
        blockNumber,
      })
      .catch(() => undefined);

  /** Every exchange both ways over sizes from a wei to a sizeable share of its bucket, ours beside the Broker's. */
  async function compareQuotes(found: readonly MentoExchange[]): Promise<number> {
    const { states, now, blockNumber } = await latest(found);
    let compared = 0;
    for (const [i, exchange] of found.entries()) {
      const state = states[i] as MentoExchangeState;
      for (const inIs0 of [true, false]) {
        const decimals = inIs0 ? exchange.decimals0 : exchange.decimals1;
        const sizes = [1n, 999n, ...[1, 17, 1_000, 12_345, 250_000, 1_500_000].map((human) => parseUnits(String(human), decimals))];
        const onChain = await Promise.all(sizes.map((size) => brokerQuote(exchange, inIs0, size, blockNumber)));
        expect(sizes.map((size) => mentoAmountOut(state, inIs0, size, now))).toEqual(onChain);
        compared += sizes.length;
      }
    }
    return compared;
  }

  it('finds the three exchanges through the Broker, with their pricing modules, feeds and collateral', async () => {
    const found = await exchanges();
    expect(found.map((exchange) => [exchange.pricing, exchange.collateral0, exchange.collateral1])).toEqual([
      ['ConstantProduct', false, true],
      ['ConstantSum', false, true],
      ['ConstantProduct', false, false],
    ]);
    const usdc = named(found, 'cUSD', 'USDC');
    expect([usdc.decimals1, usdc.multiplier1]).toEqual([6, 10n ** 12n]);
    // Mento derives the USDC/USD feed's id from its name, as on Celo (../shared/reference/celo-mainnet.md).
    expect(usdc.rateFeed).toBe('0xA1A8003936862E7a15092A91898D69fa8bCE290c');
  });

  it("finds the same exchanges through a Broker of the v2.6 line, which has no reserve() but each provider's exchangeReserve", async () => {
    const { wallet } = trader(fork);
    const hash = await wallet.deployContract({ abi: artifacts.DevnetBrokerV26.abi, bytecode: artifacts.DevnetBrokerV26.bytecode, args: [broker()] });
    const v26 = (await fork.confirm(hash)).contractAddress as Address;
    const noReserve = await fork.publicClient.readContract({ address: v26, abi: mentoBrokerAbi, functionName: 'reserve' }).then(
      () => 'answers',
      () => 'reverts',
    );
    expect(noReserve).toBe('reverts');
    const through = await discoverMentoExchanges(
      fork.publicClient,
      v26,
      fork.addressBook.contracts.mento?.exchangeProviders ?? [],
      await fork.publicClient.getBlockNumber(),
    );
    // The same exchanges, Reserve and all; only the Broker they were found through differs.
    expect(through.map((exchange) => ({ ...exchange, broker: broker() }))).toEqual(await exchanges());
    expect(through.map((exchange) => exchange.reserve)).toEqual(through.map(() => fork.addressBook.mento?.reserve));
  });

  it('quotes both pricing modules, both ways, to the wei, before and after a bucket reset', async () => {
    const found = await exchanges();
    // No swap yet: every exchange's buckets are due for their first reset.
    expect(await compareQuotes(found)).toBe(48);
    const { wallet } = trader(fork);
    const celoExchange = named(found, 'cUSD', 'CELO');
    await approve(fork, { wallet }, fork.token('cUSD'), broker(), parseUnits('50000', 18));
    await fork.confirm(
      await wallet.writeContract({
        address: broker(),
        abi: mentoBrokerAbi,
        functionName: 'swapIn',
        args: [celoExchange.provider, celoExchange.exchangeId, fork.token('cUSD'), fork.token('CELO'), parseUnits('50000', 18), 0n],
      }),
    );
    const [afterSwap] = (await latest([celoExchange])).states as [MentoExchangeState];
    expect(afterSwap.bucket0).toBe(afterSwap.stablePoolResetSize + parseUnits('50000', 18));
    // The oracle moves 2% a minute later; the moved buckets stand until the reset is due (a median reported within the
    // reset frequency before it), then the quotes follow the new rate.
    await fork.testClient.setNextBlockTimestamp({ timestamp: afterSwap.lastBucketUpdate + 60n });
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.51 });
    const resetAt = afterSwap.lastBucketUpdate + afterSwap.resetFrequency;
    await fork.testClient.setNextBlockTimestamp({ timestamp: resetAt - 1n });
    await fork.testClient.mine({ blocks: 1 });
    const justBefore = await latest([celoExchange]);
    expect(bucketsAt(justBefore.states[0] as MentoExchangeState, justBefore.now)?.reset).toBe(false);
    expect(await compareQuotes([celoExchange])).toBe(16);
    await fork.testClient.setNextBlockTimestamp({ timestamp: resetAt });
    await fork.testClient.mine({ blocks: 1 });
    const atReset = await latest([celoExchange]);
    expect(bucketsAt(atReset.states[0] as MentoExchangeState, atReset.now)).toEqual({
      bucket0: afterSwap.stablePoolResetSize,
      bucket1: (afterSwap.stablePoolResetSize * 100n) / 51n,
      reset: true,
    });
    expect(await compareQuotes([celoExchange])).toBe(16);
  });

  it('pays in a real swapIn what it models, and leaves the buckets and trading limits it predicts', async () => {
    const found = await exchanges();
    const { address, wallet } = trader(fork);
    for (const [asset0, asset1, symbolIn, human] of [
      ['cUSD', 'CELO', 'CELO', '30000'],
      ['cUSD', 'USDC', 'cUSD', '90000'],
      ['cUSD', 'cEUR', 'cEUR', '20000'],
      // Less than one whole CELO out of the Reserve: the deployed Broker counts it +1 against CELO's limits, not -1.
      ['cUSD', 'CELO', 'cUSD', '0.4'],
    ] as const) {
      const exchange = named(found, asset0, asset1);
      const inIs0 = symbolIn === asset0;
      const [tokenIn, tokenOut] = inIs0 ? [exchange.asset0, exchange.asset1] : [exchange.asset1, exchange.asset0];
      const amountIn = parseUnits(human, inIs0 ? exchange.decimals0 : exchange.decimals1);
      const { states, now } = await latest([exchange]);
      // The swap lands in the next block, a second on.
      const landsAt = now + 1n;
      const modelled = mentoSwap(states[0] as MentoExchangeState, inIs0, amountIn, landsAt);
      if (!('amountOut' in modelled)) throw new Error(`the model refuses ${symbolIn} into ${asset0}/${asset1}: ${JSON.stringify(modelled.refused)}`);
      await approve(fork, { wallet }, tokenIn, broker(), amountIn);
      const before = await fork.balanceOf(tokenOut, address);
      await fork.testClient.setNextBlockTimestamp({ timestamp: landsAt });
      await fork.confirm(
        await wallet.writeContract({
          address: broker(),
          abi: mentoBrokerAbi,
          functionName: 'swapIn',
          args: [exchange.provider, exchange.exchangeId, tokenIn, tokenOut, amountIn, 0n],
        }),
      );
      expect((await fork.balanceOf(tokenOut, address)) - before).toBe(modelled.amountOut);
      const [after] = (await latest([exchange])).states as [MentoExchangeState];
      const pick = (state: MentoExchangeState) => ({
        buckets: [state.bucket0, state.bucket1],
        lastBucketUpdate: state.lastBucketUpdate,
        limits: [state.limit0, state.limit1],
        reserves: [state.reserve0, state.reserve1],
      });
      expect(pick(after)).toEqual(pick(modelled.state));
    }
  });

  it('refuses what swapIn refuses: past a trading limit, a halted rate feed, a stale median', async () => {
    const found = await exchanges();
    const { wallet } = trader(fork);
    const celoExchange = named(found, 'cUSD', 'CELO');
    const usdcExchange = named(found, 'cUSD', 'USDC');
    const swapReverts = async (exchange: MentoExchange, tokenIn: Address, tokenOut: Address, amountIn: bigint) => {
      await approve(fork, { wallet }, tokenIn, broker(), amountIn);
      return fork.publicClient
        .simulateContract({
          account: wallet.account,
          address: broker(),
          abi: mentoBrokerAbi,
          functionName: 'swapIn',
          args: [exchange.provider, exchange.exchangeId, tokenIn, tokenOut, amountIn, 0n],
        })
        .then(
          () => 'no revert',
          (error: Error) => error.message,
        );
    };
    // 100,001 CELO in over five minutes is past L0 (100,000 whole CELO into the Reserve).
    const overLimit = parseUnits('100001', 18);
    let { states, now } = await latest([celoExchange, usdcExchange]);
    expect(mentoSwap(states[0] as MentoExchangeState, false, overLimit, now + 1n)).toEqual({
      refused: { kind: 'limit', token: 1, breach: { limit: 'L0', headroom: 100_000n } },
    });
    expect(await swapReverts(celoExchange, fork.token('CELO'), fork.token('cUSD'), overLimit)).toContain('L0 Exceeded');
    // CELO's rate jumps 10%: the median-delta breaker halts Mento's trading on the feed; the rate still answers.
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.55 });
    ({ states, now } = await latest([celoExchange, usdcExchange]));
    expect(mentoSwap(states[0] as MentoExchangeState, true, parseUnits('10', 18), now + 1n)).toEqual({ refused: { kind: 'halted', tradingMode: 3 } });
    expect(await swapReverts(celoExchange, fork.token('cUSD'), fork.token('CELO'), parseUnits('10', 18))).toContain(
      'Trading is suspended for this reference rate',
    );
    // Six minutes without a report: the constant-sum exchange has no valid median, and neither quotes nor swaps.
    await fork.testClient.increaseTime({ seconds: 360 });
    await fork.testClient.mine({ blocks: 1 });
    ({ states, now } = await latest([celoExchange, usdcExchange]));
    const usdcState = states[1] as MentoExchangeState;
    expect(mentoAmountOut(usdcState, true, parseUnits('10', 18), now)).toBeUndefined();
    expect(mentoSwap(usdcState, true, parseUnits('10', 18), now + 1n)).toEqual({ refused: { kind: 'no-median' } });
    expect(await brokerQuote(usdcExchange, true, parseUnits('10', 18), await fork.publicClient.getBlockNumber())).toBeUndefined();
    expect(await swapReverts(usdcExchange, fork.token('cUSD'), fork.token('USDC'), parseUnits('10', 18))).toContain('no valid median');
  });
});
