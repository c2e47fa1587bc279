import { type Address, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { encodeSwapCall } from '../../src/contracts/calldata.ts';
import type { SwapPayload } from '../../src/contracts/payload.ts';
import {
  checkBudget,
  checkContractsAllowed,
  checkDeadline,
  checkPrice,
  checkReadyTransaction,
  checkSwapQuote,
  checkThreshold,
  minimumFromPrice,
  minimumOutput,
} from '../../src/guard/guards.ts';
import { GuardRefusal } from '../../src/model/guard-refusal.ts';
import type { SwapRoute } from '../../src/routing-api/schemas.ts';

const A = '0x00000000000000000000000000000000000000aa' as Address;
const B = '0x00000000000000000000000000000000000000bb' as Address;
const ROUTER = '0xa730B463395f5ca07EcE5cefeccF7f45e1E2C9Bf' as Address;
const ME = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as Address;

const route = (overrides: Partial<SwapRoute['details']> = {}, expectedOut = 500n): SwapRoute => ({
  expectedOut,
  routerAddress: ROUTER,
  details: {
    path: [A, B],
    pairs: [zeroAddress],
    extras: ['0x'],
    inputAmount: 1000n,
    expectedOutputAmount: 500n,
    deadline: 1000,
    partner: 0,
    sig: '0x',
    ...overrides,
  },
});

const refusal = (work: () => void) => {
  try {
    work();
  } catch (error) {
    if (error instanceof GuardRefusal) return error.reason;
    throw error;
  }
  return 'accepted';
};

describe('guards', () => {
  it('accept only known routers, OneClickFarms and gauges', () => {
    const known = { routers: [ROUTER], oneClickFarms: [A], gauges: [{ address: B, pool: A }] };
    expect(refusal(() => checkContractsAllowed(known, { router: ROUTER, oneClickFarm: A, gauge: B }))).toBe('accepted');
    expect(refusal(() => checkContractsAllowed(known, { router: A }))).toBe('contract-not-allowed');
    expect(refusal(() => checkContractsAllowed(known, { router: ROUTER, oneClickFarm: B }))).toBe('contract-not-allowed');
    expect(refusal(() => checkContractsAllowed(known, { gauge: A }))).toBe('contract-not-allowed');
  });

  it('refuse a swap quote for other tokens, another amount, or two expected outputs', () => {
    const asked = { tokenIn: A, tokenOut: B, amountIn: 1000n };
    expect(refusal(() => checkSwapQuote(asked, route()))).toBe('accepted');
    expect(refusal(() => checkSwapQuote(asked, route({ path: [B, B] })))).toBe('quote-mismatch');
    expect(refusal(() => checkSwapQuote(asked, route({ path: [A, A] })))).toBe('quote-mismatch');
    expect(refusal(() => checkSwapQuote(asked, route({ inputAmount: 999n })))).toBe('quote-mismatch');
    expect(refusal(() => checkSwapQuote(asked, route({}, 600n)))).toBe('quote-mismatch');
  });

  it('bound the deadline on both sides of the chain time', () => {
    const bounds = { minSeconds: 30, maxSeconds: 1800 };
    expect(refusal(() => checkDeadline([1100n], 1000n, bounds))).toBe('accepted');
    expect(refusal(() => checkDeadline([1029n], 1000n, bounds))).toBe('deadline');
    expect(refusal(() => checkDeadline([2801n], 1000n, bounds))).toBe('deadline');
  });

  it('compute the minimum output from our slippage, never below the reference less slippage, raised to the threshold', () => {
    expect(minimumOutput(1_000_000n, 30)).toBe(997_000n);
    expect(minimumOutput(999n, 10)).toBe(998n); // 998.001 rounded down
    expect(minimumOutput(1_000_000n, 30, { threshold: 999_000n })).toBe(999_000n);
    expect(minimumOutput(1_000_000n, 30, { threshold: 2_000_000n })).toBe(2_000_000n);
    // An under-quote does not lower the floor: the reference less slippage holds.
    expect(minimumOutput(500_000n, 30, { reference: 1_000_000n })).toBe(997_000n);
    expect(minimumOutput(1_010_000n, 30, { reference: 1_000_000n })).toBe(1_006_970n);
    expect(minimumOutput(1n, 30, { reference: 1_000_000n, threshold: 999_500n })).toBe(999_500n);
    expect(minimumOutput(1_000_000n, 0)).toBe(1_000_000n);
    expect(() => minimumOutput(1n, 10_001)).toThrow(RangeError);
    expect(refusal(() => checkThreshold(999n, 1000n))).toBe('threshold');
    expect(refusal(() => checkThreshold(1000n, 1000n))).toBe('accepted');
  });

  it('turn a human price limit into raw units with both decimals, rounding up', () => {
    // 10 USDC (6 decimals) at 2.5 CELO per USDC is 25 CELO (18 decimals).
    expect(minimumFromPrice(10_000_000n, '2.5', 6, 18)).toBe(25n * 10n ** 18n);
    // 1 CELO at 0.000166667 WETH per CELO.
    expect(minimumFromPrice(10n ** 18n, '0.000166667', 18, 18)).toBe(166_667_000_000_000n);
    // 3 wei at 0.5 is 1.5, which must round up to 2.
    expect(minimumFromPrice(3n, '0.5', 0, 0)).toBe(2n);
  });

  it('refuse a quote below the reference by more than the tolerance', () => {
    const reference = { amountOut: 1_000_000n, basis: 'test' };
    expect(refusal(() => checkPrice(990_000n, reference, 100))).toBe('accepted');
    expect(refusal(() => checkPrice(989_999n, reference, 100))).toBe('price');
    expect(refusal(() => checkPrice(980_000n, reference, 100))).toBe('price');
    expect(refusal(() => checkPrice(1n, reference, 100))).toBe('price');
    expect(refusal(() => checkPrice(2_000_000n, reference, 0))).toBe('accepted');
  });

  it('accept a ready-to-sign transaction only when it describes our call (its minimum and expected output are its own)', () => {
    const payload: SwapPayload = {
      path: [A, B],
      pairs: [zeroAddress],
      extras: ['0x'],
      inputAmount: 1000n,
      minOutputAmount: 497n,
      expectedOutputAmount: 500n,
      to: ME,
      deadline: 1000n,
      partner: 0n,
      sig: '0x',
    };
    const ours = { to: ROUTER, from: ME, payload };
    const txn = (p: SwapPayload, to = ROUTER) => ({ to, from: ME, data: encodeSwapCall(p), value: 0n });
    expect(refusal(() => checkReadyTransaction(txn(payload), ours))).toBe('accepted');
    expect(refusal(() => checkReadyTransaction(txn({ ...payload, to: A }), ours))).toBe('ready-transaction-mismatch');
    expect(refusal(() => checkReadyTransaction(txn({ ...payload, minOutputAmount: 0n, expectedOutputAmount: 1n }), ours))).toBe('accepted');
    expect(refusal(() => checkReadyTransaction(txn({ ...payload, inputAmount: 999n }), ours))).toBe('ready-transaction-mismatch');
    expect(refusal(() => checkReadyTransaction(txn({ ...payload, pairs: [A] }), ours))).toBe('ready-transaction-mismatch');
    expect(refusal(() => checkReadyTransaction(txn(payload, A), ours))).toBe('ready-transaction-mismatch');
    expect(refusal(() => checkReadyTransaction({ ...txn(payload), data: '0xdeadbeef' }, ours))).toBe('ready-transaction-mismatch');
    expect(refusal(() => checkReadyTransaction({ error: 'cannot build' }, ours))).toBe('accepted');
  });

  it('keep budgets per day and in total', () => {
    const budget = { token: A, perDay: 100n, total: 250n };
    expect(refusal(() => checkBudget(budget, 40n, 'strategy dca', (w) => (w === 'day' ? 60n : 60n)))).toBe('accepted');
    expect(refusal(() => checkBudget(budget, 41n, 'strategy dca', (w) => (w === 'day' ? 60n : 60n)))).toBe('budget');
    expect(refusal(() => checkBudget(budget, 10n, 'strategy dca', (w) => (w === 'day' ? 0n : 245n)))).toBe('budget');
  });
});
