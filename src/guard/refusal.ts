import { RoutekeeperError } from '../errors.ts';

export type RefusalReason =
  | 'contract-not-allowed'
  | 'quote-mismatch'
  | 'deadline'
  | 'threshold'
  | 'ready-transaction-mismatch'
  | 'fee-cap'
  | 'budget'
  | 'simulation';

/** A guard said no: nothing is signed, and `reason` says which guard. */
export class GuardRefusal extends RoutekeeperError {
  override name = 'GuardRefusal';
  constructor(
    readonly reason: RefusalReason,
    shortMessage: string,
    details?: string,
  ) {
    super(shortMessage, { details });
  }
}
