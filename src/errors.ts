/**
 * The one base class of routekeeper's errors: a short message a person can act on, optional details,
 * the cause, and whether trying again may help. Raw HTTP and RPC failures are mapped to subclasses once,
 * at the edge, so the rest of the code branches on types rather than on message text.
 */
export type RoutekeeperErrorOptions = {
  cause?: unknown;
  /** Longer context (what was asked, what came back); shown after the short message. */
  details?: string;
};

export class RoutekeeperError extends Error {
  override name = 'RoutekeeperError';
  readonly shortMessage: string;
  readonly details: string | undefined;
  /** True when the same call may succeed later (timeouts, rate limits, 5xx, nonce races). */
  readonly retryable: boolean = false;

  constructor(shortMessage: string, options: RoutekeeperErrorOptions = {}) {
    super(options.details ? `${shortMessage}\n\nDetails: ${options.details}` : shortMessage, { cause: options.cause });
    this.shortMessage = shortMessage;
    this.details = options.details;
  }

  /** The deepest cause (or the first one `predicate` accepts), as viem's BaseError.walk does. */
  walk(predicate?: (error: unknown) => boolean): unknown {
    let current: unknown = this;
    while (current instanceof Error) {
      if (predicate?.(current)) return current;
      if (current.cause === undefined) break;
      current = current.cause;
    }
    return predicate ? undefined : current;
  }
}

/** Configuration that cannot work: a bad environment variable, address book or strategy file. Names what is wrong. */
export class ConfigError extends RoutekeeperError {
  override name = 'ConfigError';
}
