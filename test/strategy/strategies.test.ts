import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { decideCompound } from '../../src/strategy/compound.ts';
import { decideDca } from '../../src/strategy/dca.ts';
import { decideLimit } from '../../src/strategy/limit.ts';
import { decideRebalance } from '../../src/strategy/rebalance.ts';
import type { CompoundStrategy, DcaStrategy, LimitStrategy, RebalanceStrategy } from '../../src/strategy/types.ts';

const token = (symbol: string, n: number, decimals = 18) => ({ symbol, decimals, address: `0x${n.toString(16).padStart(40, '0')}` as Address });
const CELO = token('CELO', 1);
const cUSD = token('cUSD', 2);
const USDC = token('USDC', 3, 6);
const RWD = token('RWD', 4);
const GAUGE = '0x00000000000000000000000000000000000000aa' as Address;
const common = { wallet: 'main', schedule: { everyMs: 30_000, jitterMs: 0, catchUp: 'once' as const, firstRun: 'now' as const }, slippageBps: 30 };
const e18 = 10n ** 18n;

describe('dca', () => {
  const dca: DcaStrategy = { ...common, id: 'dca', kind: 'dca', sell: cUSD, amount: 10n * e18, buy: CELO, minPrice: '1.8' };
  it('sells the fixed amount with its price limit (1.8 CELO per cUSD: at least 18 CELO) when the balance allows', () => {
    expect(decideDca(dca, { sellBalance: 10n * e18 }).trades).toEqual([
      { key: 'buy', kind: 'swap', tokenIn: cUSD.address, tokenOut: CELO.address, amountIn: 10n * e18, minAmountOut: 18n * e18 },
    ]);
    expect(decideDca({ ...dca, minPrice: undefined }, { sellBalance: 10n * e18 }).trades[0]?.minAmountOut).toBeUndefined();
  });
  it('does nothing, and says why, when the balance is short', () => {
    const decision = decideDca(dca, { sellBalance: 9n * e18 });
    expect(decision.trades).toEqual([]);
    expect(decision.note).toBe('holds 9 cUSD, needs 10');
  });
});

describe('limit', () => {
  const limit: LimitStrategy = {
    ...common,
    id: 'tp',
    kind: 'limit',
    sell: CELO,
    amount: 100n * e18,
    buy: USDC,
    takeProfit: '0.6',
    stopLoss: '0.4',
    repeat: false,
  };
  const seen = { now: 1_000, sellBalance: 1000n * e18, fills: 0 };
  it('takes profit at or above the target, never accepting less than the target on chain', () => {
    const decision = decideLimit(limit, { ...seen, referenceOut: 60_000_000n });
    expect(decision.trades).toEqual([
      { key: 'take-profit', kind: 'swap', tokenIn: CELO.address, tokenOut: USDC.address, amountIn: 100n * e18, minAmountOut: 60_000_000n },
    ]);
  });
  it('stops the loss at or below the stop', () => {
    expect(decideLimit(limit, { ...seen, referenceOut: 40_000_000n }).trades).toEqual([
      { key: 'stop-loss', kind: 'swap', tokenIn: CELO.address, tokenOut: USDC.address, amountIn: 100n * e18 },
    ]);
  });
  it('waits in between, and stops once filled, expired, or short of funds', () => {
    expect(decideLimit(limit, { ...seen, referenceOut: 59_999_999n }).note).toBe('waiting: worth 59.999999 USDC');
    expect(decideLimit(limit, { ...seen, referenceOut: 70_000_000n, fills: 1 }).trades).toEqual([]);
    expect(decideLimit({ ...limit, repeat: true }, { ...seen, referenceOut: 70_000_000n, fills: 3 }).trades).toHaveLength(1);
    expect(decideLimit({ ...limit, expiresMs: 1_000 }, { ...seen, referenceOut: 70_000_000n }).note).toBe('expired');
    expect(decideLimit(limit, { ...seen, sellBalance: 99n * e18, referenceOut: 70_000_000n }).trades).toEqual([]);
    expect(decideLimit(limit, { ...seen, referenceOut: undefined }).note).toBe('no reference price');
  });
});

describe('rebalance', () => {
  const rebalance: RebalanceStrategy = {
    ...common,
    id: 'rb',
    kind: 'rebalance',
    targets: [
      { token: CELO, weight: 50 },
      { token: USDC, weight: 30 },
      { token: cUSD, weight: 20 },
    ],
    quote: cUSD,
    driftBps: 500,
    minTrade: 5n * e18,
  };
  it('within the drift threshold, does nothing', () => {
    const decision = decideRebalance(rebalance, {
      quoteBalance: 210n * e18,
      holdings: [
        { token: CELO.address, balance: 960n * e18, value: 480n * e18 },
        { token: USDC.address, balance: 310_000_000n, value: 310n * e18 },
        { token: cUSD.address, balance: 210n * e18, value: 210n * e18 },
      ],
    });
    expect(decision.trades).toEqual([]);
    expect(decision.note).toBe('within drift: the largest is 200 bps of 500');
  });
  it('a holding it cannot value (no price) is not worth zero: no trade, rather than buying more of it', () => {
    const decision = decideRebalance(rebalance, {
      quoteBalance: 200n * e18,
      holdings: [
        { token: CELO.address, balance: 1400n * e18, value: undefined },
        { token: USDC.address, balance: 100_000_000n, value: 100n * e18 },
        { token: cUSD.address, balance: 200n * e18, value: 200n * e18 },
      ],
    });
    expect(decision).toEqual({ trades: [], note: 'cannot value CELO in cUSD (no reference price): no trade' });
  });
  it('sells the overweight token for the quote token first, then buys the underweight one', () => {
    // Worth 1000 cUSD: CELO 700 (target 500), USDC 100 (target 300), cUSD 200 (target 200).
    const decision = decideRebalance(rebalance, {
      quoteBalance: 200n * e18,
      holdings: [
        { token: CELO.address, balance: 1400n * e18, value: 700n * e18 },
        { token: USDC.address, balance: 100_000_000n, value: 100n * e18 },
        { token: cUSD.address, balance: 200n * e18, value: 200n * e18 },
      ],
    });
    expect(decision.trades).toEqual([
      { key: 'sell-CELO', kind: 'swap', tokenIn: CELO.address, tokenOut: cUSD.address, amountIn: 400n * e18 },
      { key: 'buy-USDC', kind: 'swap', tokenIn: cUSD.address, tokenOut: USDC.address, amountIn: 200n * e18 },
    ]);
  });
  it('scales buys down to the funds the sells and the quote balance provide', () => {
    const twoWay: RebalanceStrategy = {
      ...rebalance,
      targets: [
        { token: CELO, weight: 1 },
        { token: USDC, weight: 1 },
      ],
    };
    // Worth 1000: CELO 1000, USDC 0; selling 500 of CELO value funds the 500 USDC buy, plus 0 quote balance.
    const decision = decideRebalance(twoWay, {
      quoteBalance: 0n,
      holdings: [
        { token: CELO.address, balance: 2000n * e18, value: 1000n * e18 },
        { token: USDC.address, balance: 0n, value: 0n },
      ],
    });
    expect(decision.trades.map((t) => [t.key, t.amountIn])).toEqual([
      ['sell-CELO', 1000n * e18],
      ['buy-USDC', 500n * e18],
    ]);
  });
  it('skips trades below the minimum size', () => {
    const decision = decideRebalance(
      { ...rebalance, driftBps: 10, minTrade: 100n * e18 },
      {
        quoteBalance: 200n * e18,
        holdings: [
          { token: CELO.address, balance: 1060n * e18, value: 530n * e18 },
          { token: USDC.address, balance: 270_000_000n, value: 270n * e18 },
          { token: cUSD.address, balance: 200n * e18, value: 200n * e18 },
        ],
      },
    );
    expect(decision.trades).toEqual([]);
  });
});

describe('compound', () => {
  const compound: CompoundStrategy = {
    ...common,
    id: 'cmp',
    kind: 'compound',
    gauge: { address: GAUGE, pool: GAUGE, rewardToken: RWD },
    valueToken: cUSD,
    minRewardValue: e18,
  };
  const seen = { now: 1_000, earned: 50n * e18, position: 10n * e18 };
  it('claims and deposits exactly what the claim paid when rewards beat gas by the minimum', () => {
    expect(decideCompound(compound, { ...seen, earnedValue: 10n * e18, gasCostValue: 9n * e18 }).trades).toEqual([
      { key: 'claim', kind: 'claim', tokenIn: GAUGE, tokenOut: RWD.address, amountIn: 50n * e18 },
      { key: 'deposit', kind: 'deposit', tokenIn: RWD.address, tokenOut: GAUGE, amountIn: 'previous-output' },
    ]);
  });
  it('waits while rewards net of gas are below the minimum', () => {
    const decision = decideCompound(compound, { ...seen, earnedValue: 10n * e18, gasCostValue: 9n * e18 + 1n });
    expect(decision.trades).toEqual([]);
    expect(decision.note).toMatch(/below 1 cUSD/);
  });
  it('exits the whole position once the exit time is reached', () => {
    const exiting = { ...compound, exit: { to: USDC, atMs: 1_000 } };
    expect(decideCompound(exiting, { ...seen, earnedValue: 0n, gasCostValue: 0n }).trades).toEqual([
      { key: 'exit', kind: 'withdraw', tokenIn: GAUGE, tokenOut: USDC.address, amountIn: 10n * e18 },
    ]);
    expect(decideCompound({ ...compound, exit: { to: USDC, atMs: 2_000 } }, { ...seen, earnedValue: 10n * e18, gasCostValue: 0n }).trades[0]?.kind).toBe(
      'claim',
    );
    expect(decideCompound(exiting, { ...seen, position: 0n, earnedValue: 0n, gasCostValue: 0n }).note).toBe('exited: no position left');
  });
});
