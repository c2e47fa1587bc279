import type { Address } from 'viem';
import { RoutekeeperError } from '../errors.ts';
import type { RefusalReason } from './refusal-reasons.ts';

export type { RefusalReason };

/** A guard said no: nothing is signed, `reason` says which guard and `field` which part of the answer. */
export class GuardRefusal extends RoutekeeperError {
  override name = 'GuardRefusal';
  constructor(
    readonly reason: RefusalReason,
    shortMessage: string,
    details?: string,
    /** The part of the service's answer that was refused, e.g. `details.pairs[1]`. */
    readonly field?: string,
    /**
     * The pool whose state now refused the hop (closed, past a limit, moved, unpriced), when the route's other pools
     * were not at fault: another route may avoid it (src/trade/pipeline.ts asks for one).
     */
    readonly venue?: Address,
  ) {
    super(shortMessage, { details });
  }
}
