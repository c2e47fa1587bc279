/** What the preflight's simulation of the exact call says: its gas and what it returns, or the refusal of a revert. */
import type { Preflight } from '../chain/preflight.ts';
import { GuardRefusal } from '../guard/refusal.ts';
import type { TradeKind } from '../model/trade.ts';
import { returnedAmount } from './call.ts';

/** Nothing when the call was not simulated (its approval not mined yet, on a node that cannot simulate both). */
export function simulatedCall(reads: Preflight, kind: TradeKind): { gas: { trade?: bigint }; simulatedOut?: bigint } {
  if (reads.call === 'unsimulated') return { gas: {} };
  if (!reads.call.ok) throw new GuardRefusal('simulation', `a simulation of the exact transaction reverts: ${reads.call.reason}`);
  return { gas: { trade: reads.call.gasUsed }, simulatedOut: returnedAmount(kind, reads.call.returned) };
}
