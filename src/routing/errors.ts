/**
 * Why the service refuses a request, in its own terms: each refusal has a kind and a JSON body, and nothing in the
 * service speaks HTTP but `statusOf`, the one edge from a refusal to a status (answer.ts).
 */
import { noRouteMessage } from '../routing-api/schemas.ts';

export type ErrorBody = { error: string; field?: string; tokens?: string[] };

export type RefusalKind =
  | 'invalid-request'
  | 'unsupported-tokens'
  | 'no-route'
  | 'no-endpoint'
  | 'method-not-allowed'
  | 'not-acceptable'
  | 'api-key-required'
  | 'unknown-api-key'
  | 'no-signer'
  | 'chain-unavailable';

/** A request the service refuses: which kind of refusal, and the JSON body that says why. */
export class RoutingRequestError extends Error {
  override name = 'RoutingRequestError';
  constructor(
    readonly kind: RefusalKind,
    readonly body: ErrorBody,
  ) {
    super(body.error);
  }
}

/** The one edge from a refusal to the HTTP status it is answered with. */
export function statusOf(kind: RefusalKind): number {
  switch (kind) {
    case 'invalid-request':
    case 'unsupported-tokens':
    case 'no-route':
      return 400;
    case 'api-key-required':
    case 'unknown-api-key':
      return 401;
    case 'no-endpoint':
      return 404;
    case 'method-not-allowed':
      return 405;
    case 'not-acceptable':
      return 406;
    case 'chain-unavailable':
    case 'no-signer':
      return 503;
  }
}

export const badRequest = (field: string, message: string) => new RoutingRequestError('invalid-request', { error: `Invalid ${field}: ${message}`, field });

export const unsupportedTokens = (field: string, tokens: string[]) =>
  new RoutingRequestError('unsupported-tokens', { error: 'Unsupported tokens', field, tokens });

export const noRoute = (why?: string) => new RoutingRequestError('no-route', { error: why ? `${noRouteMessage}: ${why}` : noRouteMessage });

/** What the service needs from the chain could not be read now: the client may ask again. */
export const chainUnavailable = (what: string) => new RoutingRequestError('chain-unavailable', { error: what });
