/**
 * Where a trade may go from each state, and where one of its signed transactions (an attempt) may: the two tables
 * the trade and attempt stores enforce. Every update names the state it
 * moves to and is made only from a state this table allows (`UPDATE … WHERE status IN (…)`); an update that finds
 * the trade elsewhere changes nothing and throws, so an illegal or lost move is seen where it happens.
 */
import { RoutekeeperError } from '../errors.ts';
import type { AttemptStatus } from '../model/attempt.ts';
import type { TradeState } from '../model/trade.ts';

export const tradeTransitions: { readonly [from in TradeState]: readonly TradeState[] } = {
  // Claimed for its slot, then quoted and checked. The quote is not a state of its own: recording it cost a round
  // trip per run and told nothing, since a trade interrupted before its check is quoted anew either way. A pause
  // or a failure before the check ends it. From any open state, `anomaly`: a stored row that fails its
  // authentication, or bytes that are not ours (trade/stored.ts), is never acted on.
  claimed: ['checked', 'dry-run', 'refused', 'failed', 'anomaly'],
  // Checked again when another trade of the wallet signed meanwhile, or when an interrupted run resumes (nothing
  // was signed, so the quote and the checks are redone).
  checked: ['checked', 'signed', 'refused', 'failed', 'anomaly'],
  // Signed bytes are stored. `failed` only when nothing but an approval was signed (the store checks).
  signed: ['broadcast', 'unknown', 'failed', 'anomaly'],
  // Maybe in a mempool. `broadcast` again to record the simulation after an approval went first; `refused` only
  // when nothing but an approval was signed (a node without eth_simulateV1 approves before the last check).
  broadcast: ['broadcast', 'unknown', 'confirmed', 'anomaly', 'failed', 'refused'],
  // Only the chain settles it.
  unknown: ['unknown', 'confirmed', 'anomaly', 'failed'],
  confirmed: [],
  anomaly: [],
  refused: [],
  failed: [],
  'dry-run': [],
};

/** The states a transition table lets move to `to`. */
function statesLeadingTo<S extends string>(table: { readonly [from in S]: readonly S[] }, to: S): S[] {
  return (Object.keys(table) as S[]).filter((from) => table[from].includes(to));
}

/** The states a trade may move to `to` from. */
export const statesBefore = (to: TradeState): TradeState[] => statesLeadingTo(tradeTransitions, to);

/** A move the table does not allow, or one that found the trade in another state than the one it moved from. */
export class IllegalTransitionError extends RoutekeeperError {
  override name = 'IllegalTransitionError';
  readonly tradeId: string;
  readonly found: TradeState | undefined;
  readonly to: TradeState;

  constructor(tradeId: string, found: TradeState | undefined, to: TradeState, why?: string) {
    const where = found === undefined ? 'no such trade in the ledger' : `it is ${found}`;
    super(`trade ${tradeId} cannot move to ${to}: ${why ?? where}`, {
      details: found === undefined ? undefined : `from ${found} it may move to: ${tradeTransitions[found].join(', ') || 'nothing (settled)'}`,
    });
    this.tradeId = tradeId;
    this.found = found;
    this.to = to;
  }
}

/**
 * Where a signed transaction may go: from signed or sent (`broadcast`, sent again too) to what the chain made of its
 * nonce (mined, reverted, or replaced by another of its attempts) or to dropped (the node refused it, or the nonce
 * went to a transaction of another trade). A settled attempt never moves again, and nothing goes back to `signed`:
 * a writer who sets a mined transaction back to `broadcast` must not make the daemon follow or replace it again.
 */
export const attemptTransitions: { readonly [from in AttemptStatus]: readonly AttemptStatus[] } = {
  signed: ['broadcast', 'mined', 'reverted', 'replaced', 'dropped'],
  broadcast: ['broadcast', 'mined', 'reverted', 'replaced', 'dropped'],
  mined: [],
  reverted: [],
  replaced: [],
  dropped: [],
};

/** The statuses an attempt may move to `to` from. */
export const attemptStatusesBefore = (to: AttemptStatus): AttemptStatus[] => statesLeadingTo(attemptTransitions, to);

/** A move of an attempt the table does not allow: nothing was written. */
export class IllegalAttemptTransitionError extends RoutekeeperError {
  override name = 'IllegalAttemptTransitionError';
  readonly attemptId: number;
  readonly found: AttemptStatus | undefined;
  readonly to: AttemptStatus;

  constructor(attemptId: number, found: AttemptStatus | undefined, to: AttemptStatus) {
    super(`attempt ${attemptId} cannot move to ${to}: ${found === undefined ? 'no such attempt in the ledger' : `it is ${found}`}`, {
      details: found === undefined ? undefined : `from ${found} it may move to: ${attemptTransitions[found].join(', ') || 'nothing (settled)'}`,
    });
    this.attemptId = attemptId;
    this.found = found;
    this.to = to;
  }
}
