/**
 * What the chain layer reports and reads of a wallet's transactions, as typed facts: it holds no ledger. Sending,
 * following and replacing say what happened (a fact) or what must be kept before it happens (signed bytes before
 * they leave), and one module records it (trade/recorder.ts, the only writer of a trade's record); what they read
 * back are the transactions as stored.
 */
import type { Address, Hex } from 'viem';
import type { Attempt, NewAttempt, Fence, AttemptStatus } from '../model/attempt.ts';
import type { Fees } from './fees.ts';

/** Something the chain showed, or a decision taken on it, about one trade's transactions. */
/** A step of a transaction's life, for logs, metrics and tests. */
export type TxStage = 'signed' | 'broadcast' | 'replaced' | 'rebroadcast' | 'cancelled' | 'mined';

export type ChainFact =
  | { kind: 'rebroadcast'; hash: Hex }
  | ({ kind: 'replace' | 'cancel'; replaces: Hex; by: Hex | undefined; why: string } & Fees)
  | { kind: 'stuck-at-fee-cap'; hash: Hex; decision: 'keep waiting'; wouldNeed: bigint; cap: bigint | undefined; deadlinePassed: boolean }
  | { kind: 'waiting-behind'; nonce: number; behind: number | undefined }
  | { kind: 'receipt-not-in-chain'; hash: Hex; blockNumber: bigint; blockHash: Hex }
  | { kind: 'seen-in-block'; hash: Hex; blockNumber: bigint }
  | { kind: 'key-used-elsewhere'; wallet: Address; nonce: number; hash: Hex; blockNumber: bigint }
  | { kind: 'nonce-used-elsewhere'; wallet: Address; expected: number; onChain: number }
  | { kind: 'send-refused'; hash: Hex; stage: TxStage; error: string }
  | { kind: 'broadcast-uncertain'; hash: Hex; error: string };

/** Signed or sent, and not settled by the chain yet: a transaction that may still mine. */
export const isOpenAttempt = (attempt: Pick<Attempt, 'status'>): boolean => attempt.status === 'signed' || attempt.status === 'broadcast';

/** A transaction's receipt, as the journal keeps it. */
export type SettledReceipt = { status: Extract<AttemptStatus, 'mined' | 'reverted'>; blockNumber: bigint; gasUsed: bigint; effectiveGasPrice: bigint };

export interface TxJournal {
  /** A trade's transactions, as stored, in the order they were signed. */
  attemptsOf(intentId: string): Promise<Attempt[]>;
  /** The stored transaction of this hash, of any trade. */
  attemptByHash(hash: Hex): Promise<Attempt | undefined>;
  /** Signed bytes, kept (on disk) before any of them may leave, with the trade's move to `signed`; only under `fence`. */
  signed(attempts: readonly NewAttempt[], fence: Fence | undefined): Promise<Attempt[]>;
  /** Its bytes are about to leave. */
  sending(attempt: Attempt): Promise<void>;
  /** The node would not take it: it never left, or is gone from every pool. */
  dropped(attempt: Attempt, why: string): Promise<void>;
  /** A fork's node named the transaction with another hash than the one computed. */
  renamed(attempt: Attempt, hash: Hex): Promise<void>;
  /** One transaction of a nonce was mined (or reverted); the others at that nonce were replaced. Returns it as stored. */
  nonceSettled(mined: Attempt, receipt: SettledReceipt, replaced: readonly Attempt[]): Promise<Attempt>;
  /** A fact about the trade's transactions. */
  noted(intentId: string, fact: ChainFact): Promise<void>;
}
