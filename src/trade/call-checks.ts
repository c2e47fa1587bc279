/**
 * The checks every kind's list ends its signing part with, whatever it proposes: the allowances the batch read, the
 * fee cap, and the simulation of the exact transactions. Each kind's check state gives them its reads and what its
 * call's return value says it paid.
 */
import type { Hex } from 'viem';
import type { Approval, Preflight } from '../chain/preflight.ts';
import { checkFeeCap, checkSimulation } from '../guard/guards.ts';
import { neededApprovals } from './approvals.ts';
import { type NamedCheck, filledIn } from './check-runner.ts';
import type { CheckContext, Checked } from './check-types.ts';
import { simulatedCall } from './simulated.ts';

/**
 * What the three checks read and fill in, empty until they do: every kind's check state extends it (and adds its own
 * call, reference and minimums).
 */
export abstract class CallCheckFields {
  approvals: Approval[] = [];
  reads: Preflight | undefined;
  needed: Checked['approvals'] = [];
  fees: ReturnType<CheckContext['wallet']['fees']['fromBlock']> | undefined;
  gas: Checked['gas'] = {};
  simulatedOut: bigint | undefined;
}

/** What the three checks read and fill in of a kind's check state. */
export interface CallCheckState {
  readonly ctx: CheckContext;
  approvals: Approval[];
  reads: Preflight | undefined;
  needed: Checked['approvals'];
  fees: ReturnType<CheckContext['wallet']['fees']['fromBlock']> | undefined;
  gas: Checked['gas'];
  simulatedOut: bigint | undefined;
  /** The call's return value as the amount it pays (the trade kind's reading). */
  paid(returned: Hex): bigint;
  /** The least the simulation must pay (none: the call holds its own minimums, a position step's). */
  simulatedMinimum(): bigint | undefined;
}

const readsOf = (s: CallCheckState): Preflight => filledIn(s, 'reads');

export const callChecks = {
  /** What the batch read of the wallet: is the allowance short? (Approve first, on the nonce before the trade.) */
  allowance: { name: 'allowance', verify: (s) => void (s.needed = neededApprovals(s.approvals, readsOf(s))) },
  /** Gas is within the cap. */
  feeCap: {
    name: 'fee-cap',
    verify: (s) => {
      const reads = readsOf(s);
      s.fees = s.ctx.wallet.fees.fromBlock(reads.block.baseFeePerGas, reads.maxPriorityFeePerGas);
      checkFeeCap(s.fees.maxFeePerGas, s.ctx.settings.feeCap);
    },
  },
  /** The exact transactions, simulated together, succeed (and pay at least our minimum, where the call has one). */
  simulation: {
    name: 'simulation',
    verify: (s) => {
      const { gas, simulatedOut } = simulatedCall(readsOf(s), (returned) => s.paid(returned));
      s.gas = gas;
      s.simulatedOut = simulatedOut;
      const minimum = s.simulatedMinimum();
      if (simulatedOut !== undefined && minimum !== undefined) checkSimulation(simulatedOut, minimum);
    },
  },
} satisfies Record<string, NamedCheck<CallCheckState>>;
