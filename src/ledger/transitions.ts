/**
 * Where a trade may go from each state: the one table the trade store enforces. Every update names the state it
 * moves to and is made only from a state this table allows (`UPDATE … WHERE status IN (…)`); an update that finds
 * the trade elsewhere changes nothing and throws, so an illegal or lost move is seen where it happens.
 */
import { RoutekeeperError } from '../errors.ts';
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

/** The states a trade may move to `to` from. */
export function statesBefore(to: TradeState): TradeState[] {
  return (Object.keys(tradeTransitions) as TradeState[]).filter((from) => tradeTransitions[from].includes(to));
}

/** A move the table does not allow, or one that found the trade in another state than the one it moved from. */
export class IllegalTransitionError extends RoutekeeperError {
  override name = 'IllegalTransitionError';
  readonly tradeId: string;
  readonly found: TradeState | undefined;
  readonly to: TradeState;

  constructor(tradeId: string, found: TradeState | undefined, to: TradeState, why?: string) {
    const where = found === undefined ? 'no such trade in the ledger' : `it is ${found}`;
    super(`trade ${tradeId} cannot move to ${to}: ${why ?? where}`, { details: found === undefined ? undefined : `from ${found} it may move to: ${tradeTransitions[found].join(', ') || 'nothing (settled)'}` });
    this.tradeId = tradeId;
    this.found = found;
    this.to = to;
  }
}
