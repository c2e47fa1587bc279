import { noRouteMessage } from '../routing-api/schemas.ts';

export type ErrorBody = { error: string; field?: string; tokens?: string[] };

/** A request the service refuses, with the HTTP status and JSON body to answer. */
export class RoutingRequestError extends Error {
  override name = 'RoutingRequestError';
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error);
  }
}

export const badRequest = (field: string, message: string) => new RoutingRequestError(400, { error: `Invalid ${field}: ${message}`, field });

export const unsupportedTokens = (field: string, tokens: string[]) => new RoutingRequestError(400, { error: 'Unsupported tokens', field, tokens });

export const noRoute = (why?: string) => new RoutingRequestError(400, { error: why ? `${noRouteMessage}: ${why}` : noRouteMessage });
