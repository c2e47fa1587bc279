import { RoutekeeperError } from '../errors.ts';

/** A node named by RPC_URL (or the address book) does not answer at start-up: a runtime failure, exit 1. */
export class ChainUnreachableError extends RoutekeeperError {
  override name = 'ChainUnreachableError';
  override readonly retryable = true;
}

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

/**
 * A nonce of the wallet was used by a transaction routekeeper did not sign (or the node counts more transactions
 * than the ledger signed): the key is in use elsewhere. The wallet is paused until a person looks.
 */
export class KeyUsedElsewhereError extends RoutekeeperError {
  override name = 'KeyUsedElsewhereError';
}

/**
 * The trade's fate is not known: no receipt we can trust, and no proof that none of its transactions mined. The
 * trade stays `unknown` (it counts against budgets and blocks its strategy) until the chain shows what happened.
 */
export class OutcomeUnknownError extends RoutekeeperError {
  override name = 'OutcomeUnknownError';
  override readonly retryable = true;
}

/**
 * A stored row that claims to authorize a signature or a send failed its proof: bytes not signed by the wallet, a
 * hash, chain id or nonce that is not the row's, a call that is none of the trade's own, a request or checked call
 * without the wallet's tag, or a trade that no strategy of the file asks for. Nothing is signed or sent for it; the
 * trade becomes an anomaly and its strategy and wallet are paused until a person looks.
 */
export class StoredRecordRefusedError extends RoutekeeperError {
  override name = 'StoredRecordRefusedError';
}
