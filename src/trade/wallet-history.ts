/**
 * What the wallet already did, read from one place: every "already filled, already spent, already opened, still held"
 * decision is taken from this reading, never from a column filter.
 *
 * The reading takes every row of the wallet on its chain: the trades its `wallet` column names and the trades its
 * signed transactions name (the transactions are complete from where the ledger's record of the wallet starts: the
 * proof before each signature, signed-history.ts, refuses a hole or a row that is not the wallet's). Each trade is
 * then proven by the wallet's tags before anything is read from it: its request's tag (which covers its strategy,
 * wallet, chain, kind, tokens, amounts, slot and claim time) and, once signed, its checked call's tag. A row that
 * fails is StoredRecordRefusedError, named: the strategy and the wallet pause, nothing is decided on it. Only then
 * are the trades sorted by what their tags vouch for: which strategy, which tokens, which slot.
 *
 * A trade never signed that ended refused, failed or as a dry run counts for nothing in any decision: it is left out
 * of the reading unproven (rows of versions before the tags among them).
 *
 * What a writer can still do to this reading: delete rows (a trade not yet signed stops; a signed one leaves a hole
 * the proof refuses), and set a state column (it can make a trade count as done, never as not done: what was signed
 * counts whatever its state says).
 */
import type { Address } from 'viem';
import { StoredRecordRefusedError } from '../chain/errors.ts';
import type { Wallet } from '../chain/wallet.ts';
import type { WalletRows } from '../ledger/trades.ts';
import type { TradeReads } from '../ledger/views.ts';
import type { Attempt } from '../model/attempt.ts';
import type { RecordTags } from '../model/record-tags.ts';
import type { TradeRecord, TradeState } from '../model/trade.ts';
import { spentOf } from '../model/kinds/registry.ts';
import type { SignedHistory } from './signed-history.ts';

/** One trade of the wallet, proven by its tags, with every transaction the wallet signed for it. */
export type PastTrade = { readonly record: TradeRecord; readonly attempts: readonly Attempt[] };

/** States whose amount is committed: checked or further, and not refused, failed or a dry run. */
const committedStates: readonly TradeState[] = ['checked', 'signed', 'broadcast', 'unknown', 'confirmed', 'anomaly'];

/** States in which a trade never signed ended without counting for anything. */
const endedUnsigned: readonly TradeState[] = ['refused', 'failed', 'dry-run'];

/** Whether a trade can count in a decision: one the wallet signed anything for, or one whose state is not an unsigned end. */
const counts = (past: PastTrade) => past.attempts.length > 0 || !endedUnsigned.includes(past.record.status);

/** What reading the wallet's history takes: its rows, the wallet (its tags), and the proof of its transactions. */
export type HistoryReads = { reads: Pick<TradeReads, 'trades'>; wallet: Wallet; history: SignedHistory };

/**
 * The wallet's history, read now: every transaction it signed, from where its record starts, is proven first, as before
 * a signature (signed-history.ts), then every trade by its tags (StoredRecordRefusedError names a row that fails).
 */
export async function readWalletHistory(deps: HistoryReads): Promise<WalletHistory> {
  const { wallet } = deps;
  const pending = await wallet.client.getTransactionCount({ address: wallet.address, blockTag: 'pending' });
  await deps.history.prove(pending);
  return WalletHistory.read(await deps.reads.trades.walletRows(wallet.address, wallet.chainId), wallet);
}

export class WalletHistory {
  readonly trades: readonly PastTrade[];

  private constructor(trades: readonly PastTrade[]) {
    this.trades = trades;
  }

  /**
   * The reading of `rows` for the wallet `owner`, each trade proven by its tags; StoredRecordRefusedError names the
   * first row that is not the wallet's word.
   */
  static async read(rows: WalletRows, owner: { address: Address; chainId: number; tags: RecordTags }): Promise<WalletHistory> {
    const trades = pastTradesOf(rows).filter(counts);
    for (const { record, attempts } of trades) {
      if (!(await owner.tags.requestWasTagged(record))) {
        throw new StoredRecordRefusedError(
          `trade ${record.id}, a row of wallet ${owner.address}, carries no tag of the wallet: its strategy, wallet, tokens, amounts or claim time were written or changed without its key; nothing is decided on it`,
        );
      }
      if (attempts.some((attempt) => attempt.purpose !== 'approve') && !(await owner.tags.hasTaggedCall(record))) {
        throw new StoredRecordRefusedError(
          `trade ${record.id}, signed by wallet ${owner.address}, has no checked call of the wallet's tag: its call was written or changed without its key; nothing is decided on it`,
        );
      }
    }
    return new WalletHistory(trades);
  }

  /** The trades of a strategy, as their tags say. */
  ofStrategy(strategyId: string): PastTrade[] {
    return this.trades.filter((past) => past.record.strategyId === strategyId);
  }

  /**
   * The trades that committed `token` (as an input, or as the second token of an add or a mint), of one strategy or
   * of the whole wallet: checked or further by their state, and any whose own transaction the wallet signed, whatever
   * their state says (a state set back does not give an amount back).
   */
  committed(token: Address, scope: { strategyId?: string; excludeId?: string }): PastTrade[] {
    return committedTrades(this.trades, token, scope);
  }
}

/** Each trade of the rows with its transactions (no tag proven yet: WalletHistory.read does that). */
export function pastTradesOf(rows: WalletRows): PastTrade[] {
  const attemptsOf = new Map<string, Attempt[]>();
  for (const attempt of rows.attempts) attemptsOf.set(attempt.intentId, [...(attemptsOf.get(attempt.intentId) ?? []), attempt]);
  return rows.trades.map((record) => ({ record, attempts: attemptsOf.get(record.id) ?? [] }));
}

/** See WalletHistory.committed. */
export function committedTrades(trades: readonly PastTrade[], token: Address, scope: { strategyId?: string; excludeId?: string }): PastTrade[] {
  return trades.filter(
    ({ record, attempts }) =>
      (scope.strategyId === undefined || record.strategyId === scope.strategyId) &&
      record.id !== scope.excludeId &&
      spentOf(record, token) > 0n &&
      (committedStates.includes(record.status) || attempts.some((attempt) => attempt.purpose === 'trade')),
  );
}
