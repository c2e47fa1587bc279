/**
 * Which failure class an error that ended or interrupted a trade belongs to, from the error classes of the layers
 * that throw them (kept apart from the list itself, which the ledger reads).
 */
import { BaseError } from 'viem';
import { KeyUsedElsewhereError, OutcomeUnknownError, StoredRecordRefusedError, TransactionRevertedError } from '../chain/errors.ts';
import { NodeUnavailableError, NonceTooLowError, TransactionKnownError, TransactionRejectedError } from '../chain/node-errors.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import { LeaseLostError } from '../ledger/leases.ts';
import { isAbort } from '../ops/abort.ts';
import { NoRouteError, ServiceError } from '../routing-client/errors.ts';
import type { FailureClass } from '../model/failure-classes.ts';

/** The class of an error that ended or interrupted a trade. */
export function failureClassOf(error: unknown): FailureClass {
  if (isAbort(error)) return 'interrupted';
  if (error instanceof GuardRefusal) return 'refused';
  if (error instanceof StoredRecordRefusedError) return 'stored-record-refused';
  if (error instanceof KeyUsedElsewhereError) return 'key-used-elsewhere';
  if (error instanceof LeaseLostError) return 'lease-lost';
  if (error instanceof OutcomeUnknownError) return 'outcome-unknown';
  if (error instanceof TransactionRevertedError) return 'reverted';
  if (error instanceof TransactionRejectedError) return 'rejected';
  if (error instanceof NoRouteError) return 'no-route';
  if (error instanceof ServiceError) return 'service';
  if (error instanceof NodeUnavailableError || error instanceof NonceTooLowError || error instanceof TransactionKnownError) return 'node';
  // viem's own errors are a node's answers (or its silence) that no layer above mapped.
  if (error instanceof BaseError) return 'node';
  return 'unexpected';
}
