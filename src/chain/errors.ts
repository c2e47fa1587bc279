import { RoutekeeperError } from '../errors.ts';

/** The transaction was mined and reverted, or would revert when estimated; `reason` is the decoded revert string. */
export class TransactionRevertedError extends RoutekeeperError {
  override name = 'TransactionRevertedError';
  constructor(
    readonly reason: string,
    shortMessage: string,
    options: { cause?: unknown } = {},
  ) {
    super(shortMessage, options);
  }
}

/** Our nonce was used by a transaction we did not sign: the key is in use elsewhere. */
export class NonceConsumedError extends RoutekeeperError {
  override name = 'NonceConsumedError';
}

/** No receipt within the time we wait; the transaction may still be mined, so its intent stays open. */
export class ReceiptTimeoutError extends RoutekeeperError {
  override name = 'ReceiptTimeoutError';
  override readonly retryable = true;
}
