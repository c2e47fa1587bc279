/**
 * The ledger side of the chain layer's journal (chain/journal.ts): the one place where what sending, following and
 * replacing report becomes rows: a trade's attempts and the events about them.
 */
import type { ChainFact, TxJournal } from '../chain/journal.ts';
import type { Ledger } from './ledger.ts';

export function ledgerJournal(ledger: Ledger): TxJournal {
  return {
    attemptsOf: (intentId) => ledger.attempts.ofTrade(intentId),
    attemptByHash: (hash) => ledger.attempts.byHash(hash),
    highestNonce: (wallet, chainId) => ledger.attempts.highestNonce(wallet, chainId),
    signed: (attempts, fence) => ledger.trades.recordSigned(attempts, { fence }),
    sending: (attempt) => ledger.attempts.update(attempt.id, { status: 'broadcast' }),
    dropped: (attempt, why) => ledger.attempts.update(attempt.id, { status: 'dropped', error: why }),
    renamed: (attempt, hash) => ledger.attempts.correctHash(attempt.id, hash),
    nonceSettled: (mined, receipt, replaced) => ledger.attempts.settleNonce(mined.id, receipt, replaced.map((attempt) => attempt.id)),
    noted: (intentId, fact: ChainFact) => {
      const { kind, ...details } = fact;
      return ledger.events.record(kind, details, intentId);
    },
  };
}
