/**
 * The checks that can change with time, for a call already signed: run again before it is replaced (a new
 * signature). The deadline still leaves time; the exact call, simulated now, pays our minimum; and what the trade's
 * kind checks again (a swap: what it pays now against the oracle now).
 */
import { preflight } from '../chain/preflight.ts';
import { checkDeadline, checkSimulation } from '../guard/guards.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import type { Trade } from '../model/trade.ts';
import type { BuiltCall } from './call-types.ts';
import type { RecheckContext } from './kinds/kind.ts';
import { kindOf } from './kinds/registry.ts';

export type { RecheckContext } from './kinds/kind.ts';

export async function recheck(ctx: RecheckContext, trade: Trade, call: Pick<BuiltCall, 'target' | 'data' | 'minOut' | 'deadline'>): Promise<void> {
  const reads = await preflight(ctx.wallet.client, { from: trade.wallet, to: call.target, data: call.data });
  if (call.deadline !== undefined) checkDeadline([call.deadline], reads.block.timestamp, { ...ctx.settings.deadline, minSeconds: 0 });
  if (reads.call === 'unsimulated' || !reads.call.ok) {
    throw new GuardRefusal(
      'simulation',
      `a simulation of the exact transaction reverts: ${reads.call === 'unsimulated' ? 'not simulated' : reads.call.reason}`,
    );
  }
  const kind = kindOf(trade);
  const paysNow = kind.paid(reads.call.returned);
  checkSimulation(paysNow, call.minOut);
  await kind.recheck?.(ctx, trade, call, reads, paysNow);
}
