/**
 * What can go wrong when asking the Token Routing Service, as types. Retryable: the service was busy,
 * slow or down. Not retryable: the request or the answer is wrong, and asking again would not change it.
 */
import { RoutekeeperError, type RoutekeeperErrorOptions } from '../errors.ts';

export type ServiceErrorOptions = RoutekeeperErrorOptions & { status?: number };

export class ServiceError extends RoutekeeperError {
  override name = 'ServiceError';
  readonly status: number | undefined;
  constructor(shortMessage: string, options: ServiceErrorOptions = {}) {
    super(shortMessage, options);
    this.status = options.status;
  }
}

/** The service found no route between the tokens (or none that pays anything for this amount). */
export class NoRouteError extends ServiceError {
  override name = 'NoRouteError';
}

/** The service refused the request's parameters; `field` names the one it objected to, when it said. */
export class BadRequestError extends ServiceError {
  override name = 'BadRequestError';
  readonly field: string | undefined;
  constructor(shortMessage: string, options: ServiceErrorOptions & { field?: string } = {}) {
    super(shortMessage, options);
    this.field = options.field;
  }
}

/** The API key was refused. */
export class UnauthorizedError extends ServiceError {
  override name = 'UnauthorizedError';
}

/** HTTP 429. `retryAfterMs` is the service's Retry-After, when it sent one. */
export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
  override readonly retryable = true;
  readonly retryAfterMs: number | undefined;
  constructor(shortMessage: string, options: ServiceErrorOptions & { retryAfterMs?: number } = {}) {
    super(shortMessage, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** 5xx, or the service could not be reached at all. */
export class ServiceUnavailableError extends ServiceError {
  override name = 'ServiceUnavailableError';
  override readonly retryable = true;
}

/** No complete answer within the request's timeout. */
export class TimeoutError extends ServiceError {
  override name = 'TimeoutError';
  override readonly retryable = true;
}

/** The service answered 200 with something that is not a valid quote; `field` is the path that is wrong. */
export class InvalidQuoteError extends ServiceError {
  override name = 'InvalidQuoteError';
  readonly field: string | undefined;
  constructor(shortMessage: string, options: ServiceErrorOptions & { field?: string } = {}) {
    super(shortMessage, options);
    this.field = options.field;
  }
}
