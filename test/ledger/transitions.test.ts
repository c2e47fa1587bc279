import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { IllegalAttemptTransitionError, IllegalTransitionError, attemptTransitions, tradeTransitions } from '../../src/ledger/transitions.ts';
import type { AttemptStatus } from '../../src/model/attempt.ts';
import type { Trade, TradeState } from '../../src/model/trade.ts';
import { backends, freshLedger } from '../helpers/ledgers.ts';

const wallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as const;
const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
const call = { target: token, spender: token, data: '0x9acc65a9' as const, expectedOut: 100n, minOut: 99n };
const settlement = { txHash: '0xfeed' as const, blockNumber: 9n, gasUsed: 100n, effectiveGasPrice: 7n, amountOut: 100n };
const failure = { reason: 'because', retryable: false };
const states = Object.keys(tradeTransitions) as TradeState[];

let ledger: Ledger;

let made = 0;
const trade = (): Trade => {
  made++;
  return {
    id: `t:${made}`,
    strategyId: 't',
    slot: String(made),
    kind: 'swap',
    wallet,
    chainId: 1,
    tokenIn: token,
    tokenOut: token,
    amountIn: 1n,
    slippageBps: 30,
  };
};
let signed = 0;
const attempt = (intentId: string, purpose: 'approve' | 'trade' = 'trade') => ({
  intentId,
  purpose,
  wallet,
  chainId: 1,
  nonce: made,
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
  gasLimit: 21_000n,
  rawTx: '0x02' as const,
  hash: `0x${(++signed).toString(16).padStart(64, '0')}` as const,
});

/** A trade brought to `state` by legal moves only, with a trade transaction in flight from `signed` on. */
async function tradeIn(state: TradeState): Promise<string> {
  const { id } = ((await ledger.trades.claimSlot(trade())) as { record: { id: string } }).record;
  const path: Record<TradeState, (() => Promise<unknown>)[]> = {
    claimed: [],
    checked: [() => ledger.trades.commitChecked(id, { call, status: 'checked' })],
    'dry-run': [() => ledger.trades.commitChecked(id, { call, status: 'dry-run' })],
    signed: [() => ledger.trades.commitChecked(id, { call, status: 'checked' }), () => ledger.trades.recordSigned([attempt(id)])],
    broadcast: [],
    unknown: [],
    confirmed: [],
    anomaly: [],
    refused: [() => ledger.trades.refuse(id, failure)],
    failed: [() => ledger.trades.fail(id, failure)],
  };
  path.broadcast = [...path.signed, () => ledger.trades.markBroadcast(id)];
  path.unknown = [...path.broadcast, () => ledger.trades.markUnknown(id, failure)];
  path.confirmed = [...path.broadcast, () => ledger.trades.settle(id, settlement)];
  path.anomaly = [...path.broadcast, () => markAnomaly(id)];
  for (const step of path[state]) await step();
  expect((await ledger.trades.get(id))?.status).toBe(state);
  return id;
}

/**
 * An anomaly, with the event and the pauses it comes with; the pauses are lifted again, so that the moves of the
 * next trades (of the same strategy and wallet) are not held by them.
 */
async function markAnomaly(id: string): Promise<void> {
  await ledger.trades.markAnomaly({ id, strategyId: 't', wallet }, { reason: 'odd', event: { kind: 'anomaly', details: { reason: 'odd' } }, settlement });
  await ledger.pauses.lift('strategy', 't');
  await ledger.pauses.lift('wallet', wallet);
}

/** The store's one move into each state. */
const moveTo: Record<TradeState, ((id: string) => Promise<unknown>) | undefined> = {
  claimed: undefined,
  checked: (id) => ledger.trades.commitChecked(id, { call, status: 'checked' }),
  'dry-run': (id) => ledger.trades.commitChecked(id, { call, status: 'dry-run' }),
  signed: (id) => ledger.trades.recordSigned([attempt(id)]),
  broadcast: (id) => ledger.trades.markBroadcast(id),
  unknown: (id) => ledger.trades.markUnknown(id, failure),
  confirmed: (id) => ledger.trades.settle(id, settlement),
  anomaly: (id) => markAnomaly(id),
  refused: (id) => ledger.trades.refuse(id, failure),
  failed: (id) => ledger.trades.fail(id, failure),
};

const inFlight = new Set<TradeState>(['signed', 'broadcast', 'unknown']);
/** What the store allows: the table, but never `refused` or `failed` while a trade transaction may still be mined. */
function allowed(from: TradeState, to: TradeState): boolean {
  // Signed bytes are added to a trade already signed or sent (an approval first, a replacement) without a move.
  if (to === 'signed') return from === 'checked' || inFlight.has(from);
  if ((to === 'refused' || to === 'failed') && inFlight.has(from)) return false;
  return tradeTransitions[from].includes(to);
}

describe('the trade transition table', () => {
  it('has no way back to claimed, none out of a settled state, and a settled end from every open state', () => {
    for (const from of states) expect(tradeTransitions[from]).not.toContain('claimed');
    for (const settled of ['confirmed', 'anomaly', 'refused', 'failed', 'dry-run'] as const) expect(tradeTransitions[settled]).toEqual([]);
    const reachesEnd = (from: TradeState, seen = new Set<TradeState>()): boolean =>
      tradeTransitions[from].length === 0 || tradeTransitions[from].some((to) => !seen.has(to) && reachesEnd(to, new Set([...seen, from])));
    for (const from of states) expect(reachesEnd(from), from).toBe(true);
  });
});

describe.each(backends)('the trade store on %s', (backend) => {
  beforeAll(async () => {
    ledger = await Ledger.open(freshLedger(backend));
  });
  afterAll(() => ledger.close());

  for (const from of states) {
    it(`from ${from}: the store makes exactly the moves allowed, and refuses the others without changing the trade`, async () => {
      for (const to of states) {
        const move = moveTo[to];
        if (!move) continue;
        const id = await tradeIn(from);
        const before = await ledger.trades.get(id);
        const attemptsBefore = await ledger.attempts.ofTrade(id);
        if (allowed(from, to)) {
          await move(id);
          const after = (await ledger.trades.get(id))?.status;
          expect(after, `${from} → ${to}`).toBe(to === 'signed' && from !== 'checked' ? from : to);
        } else {
          const error = await move(id).then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(error, `${from} → ${to}`).toBeInstanceOf(IllegalTransitionError);
          expect((error as IllegalTransitionError).found, `${from} → ${to}`).toBe(from);
          expect((error as IllegalTransitionError).to).toBe(to);
          expect(await ledger.trades.get(id), `${from} → ${to}`).toEqual(before);
          expect(await ledger.attempts.ofTrade(id), `${from} → ${to}`).toEqual(attemptsBefore);
        }
      }
    });
  }

  it('ends a trade whose only signed transaction is an approval as refused or failed; one whose trade transaction was dropped as failed', async () => {
    for (const end of ['refused', 'failed'] as const) {
      const { id } = ((await ledger.trades.claimSlot(trade())) as { record: { id: string } }).record;
      await ledger.trades.commitChecked(id, { call, status: 'checked' });
      await ledger.trades.recordSigned([attempt(id, 'approve')]);
      await ledger.trades.markBroadcast(id);
      await moveTo[end]?.(id);
      expect((await ledger.trades.get(id))?.status).toBe(end);
    }
    const id = await tradeIn('broadcast');
    const [sent] = await ledger.attempts.ofTrade(id);
    await ledger.attempts.update(sent?.id as number, { status: 'dropped', error: 'rejected' });
    await ledger.trades.fail(id, { reason: 'the node took none of its transactions', retryable: false });
    expect((await ledger.trades.get(id))?.status).toBe('failed');
  });

  it('names a trade that does not exist', async () => {
    const error = await ledger.trades.markUnknown('no:such', failure).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as Error).message).toBe('trade no:such cannot move to unknown: no such trade in the ledger');
    const unchecked = await ledger.trades.commitChecked('no:such', { call, status: 'checked' }).catch((thrown: unknown) => thrown);
    expect((unchecked as Error).message).toBe('trade no:such cannot move to checked: no such trade in the ledger');
  });
});

const attemptStatuses = Object.keys(attemptTransitions) as AttemptStatus[];
const receipt = (status: 'mined' | 'reverted') => ({ status, blockNumber: 9n, gasUsed: 21_000n, effectiveGasPrice: 7n });

describe('the attempt transition table', () => {
  it('has no way back to signed, and none out of a settled status', () => {
    for (const from of attemptStatuses) expect(attemptTransitions[from]).not.toContain('signed');
    for (const settled of ['mined', 'reverted', 'replaced', 'dropped'] as const) expect(attemptTransitions[settled]).toEqual([]);
  });
});

describe.each(backends)('the attempt store on %s', (backend) => {
  beforeAll(async () => {
    ledger = await Ledger.open(freshLedger(backend));
  });
  afterAll(() => ledger.close());

  /** A signed transaction of a trade of its own, and a way to sign another for the same trade. */
  type Made = { id: number; intentId: string; another: () => Promise<number> };
  async function signedAttempt(): Promise<Made> {
    const intentId = await tradeIn('signed');
    const another = async () => ((await ledger.trades.recordSigned([attempt(intentId)]))[0] as { id: number }).id;
    const [first] = await ledger.attempts.ofTrade(intentId);
    return { id: (first as { id: number }).id, intentId, another };
  }

  /** An attempt brought to `status` by legal moves only. */
  async function attemptIn(status: AttemptStatus): Promise<Made> {
    const made = await signedAttempt();
    if (status === 'broadcast' || status === 'dropped')
      await ledger.attempts.update(made.id, { status, ...(status === 'dropped' && { error: 'refused by the node' }) });
    if (status === 'mined' || status === 'reverted') await ledger.attempts.settleNonce(made.id, receipt(status), []);
    if (status === 'replaced') await ledger.attempts.settleNonce(await made.another(), receipt('mined'), [made.id]);
    return made;
  }

  /** The store's one move into each status (a replacement settles another attempt of the trade, mined, beside it). */
  const moveTo = (to: AttemptStatus, made: Made): Promise<unknown> | undefined => {
    if (to === 'broadcast' || to === 'dropped')
      return ledger.attempts.update(made.id, { status: to, ...(to === 'dropped' && { error: 'refused by the node' }) });
    if (to === 'mined' || to === 'reverted') return ledger.attempts.settleNonce(made.id, receipt(to), []);
    if (to === 'replaced') return made.another().then((other) => ledger.attempts.settleNonce(other, receipt('mined'), [made.id]));
    return undefined;
  };

  for (const from of attemptStatuses) {
    it(`from ${from}: the store makes exactly the moves allowed, and refuses the others without changing an attempt`, async () => {
      for (const to of attemptStatuses) {
        const made = await attemptIn(from);
        const { intentId } = made;
        const before = await ledger.attempts.ofTrade(intentId);
        const moved = moveTo(to, made);
        if (!moved) continue;
        if (attemptTransitions[from].includes(to)) {
          await moved;
          expect((await ledger.attempts.ofTrade(intentId)).find((a) => a.id === made.id)?.status, `${from} → ${to}`).toBe(to);
        } else {
          const error = await moved.then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(error, `${from} → ${to}`).toBeInstanceOf(IllegalAttemptTransitionError);
          expect((error as IllegalAttemptTransitionError).found, `${from} → ${to}`).toBe(from);
          expect((error as IllegalAttemptTransitionError).to).toBe(to);
          // Nothing written: the attempt as it was, and a replacement's mined attempt (rolled back with it) still signed.
          const after = await ledger.attempts.ofTrade(intentId);
          expect(
            after.filter((a) => before.some((b) => b.id === a.id)),
            `${from} → ${to}`,
          ).toEqual(before);
          for (const added of after.filter((a) => !before.some((b) => b.id === a.id))) expect(added.status, `${from} → ${to}`).toBe('signed');
        }
      }
    });
  }
});
