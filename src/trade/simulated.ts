/** What the preflight's simulation of the exact call says: its gas and what it returns, or the refusal of a revert. */
import type { Hex } from 'viem';
import type { Preflight } from '../chain/preflight.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';

/**
 * Nothing when the call was not simulated (its approval not mined yet, on a node that cannot simulate both).
 * `paid`: the trade kind's reading of its call's return value.
 */
export function simulatedCall(reads: Preflight, paid: (returned: Hex) => bigint): { gas: { trade?: bigint }; simulatedOut?: bigint } {
  if (reads.call === 'unsimulated') return { gas: {} };
  if (!reads.call.ok) throw new GuardRefusal('simulation', `a simulation of the exact transaction reverts: ${reads.call.reason}`);
  return { gas: { trade: reads.call.gasUsed }, simulatedOut: paid(reads.call.returned) };
}
