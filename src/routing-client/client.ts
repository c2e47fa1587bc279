/**
 * The Token Routing Service client: one function per endpoint, bigint amounts in and out, every answer
 * validated against the shared schemas. Requests are rate-limited per (base URL, API key), retried with
 * backoff when the failure may pass, and identical requests in flight share one HTTP call.
 * The API key travels only in the X-API-KEY header: it is in no error, URL or log line.
 */
import type { Address } from 'viem';
import type { z } from 'zod';
import { InvalidQuoteError, RateLimitedError } from './errors.ts';
import { getJson } from './http.ts';
import { type RateLimit, defaultRateLimitFor, limiterFor } from './limiter.ts';
import { type RetryContext, type RetryPolicy, defaultRetryPolicy, withRetries } from './retry.ts';
import {
  type EarnRoute,
  type SplitRoute,
  type SwapRoute,
  defaultChainId,
  earnRouteSchema,
  healthSchema,
  splitRouteSchema,
  swapRouteSchema,
} from '../routing-api/schemas.ts';
import { productionServiceUrl } from '../routing-api/endpoints.ts';

export type RoutingClientConfig = {
  baseUrl?: string;
  apiKey?: string;
  /** The secret a service started by this process knows its own daemon by (sent as X-Routekeeper-Client). */
  clientToken?: string;
  chainId?: number;
  timeoutMs?: number;
  rateLimit?: RateLimit;
  retry?: RetryPolicy;
  onRetry?: (context: RetryContext & { endpoint: string }) => void;
};

type CommonParams = {
  tokenIn: Address;
  tokenOut: Address;
  /** Deadline as the service reads `deadlineMs`: a duration in ms below 1e9, else an absolute Unix time. */
  deadlineMs?: number;
  chainId?: number;
  maxHops?: number;
  /** Protocol ids the route must not use. */
  exclude?: readonly string[];
  /** Pools the route must not use (this project's service's extension: another may ignore it). */
  excludePools?: readonly Address[];
  signal?: AbortSignal;
};

export type SwapRouteParams = CommonParams & {
  amountIn: bigint;
  /** Transaction originator: the service then adds a ready-to-sign `txn`. */
  from?: Address;
  to?: Address;
  slippageBps?: number;
  includeTxn?: boolean;
  priceImpact?: boolean;
};

export type EarnRouteParams = CommonParams & { inputAmount: bigint };

export type RoutingClient = ReturnType<typeof createRoutingClient>;

export function createRoutingClient(config: RoutingClientConfig = {}) {
  const baseUrl = config.baseUrl ?? productionServiceUrl;
  const chainId = config.chainId ?? defaultChainId;
  const timeoutMs = config.timeoutMs ?? 10_000;
  const retry = config.retry ?? defaultRetryPolicy;
  const limiter = limiterFor(baseUrl, config.apiKey, config.rateLimit ?? defaultRateLimitFor(baseUrl));
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}),
    // The service started by this process knows its own daemon by this secret (routing/server.ts: ownClientToken).
    ...(config.clientToken ? { 'x-routekeeper-client': config.clientToken } : {}),
  };
  const inFlight = new Map<string, Promise<unknown>>();

  /** GET `endpoint` with `query`, validated by `schema`; shared with identical calls already in flight. */
  function request<S extends z.ZodType>(endpoint: string, query: Record<string, string | undefined>, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    const url = new URL(endpoint, baseUrl);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
    const key = url.toString();
    const pending = inFlight.get(key);
    if (pending) return pending as Promise<z.output<S>>;

    const call = withRetries(
      () =>
        limiter.schedule(() =>
          getJson(url, { headers, timeoutMs, signal }).catch((error: unknown) => {
            // Every request to this service slows down, not only this one's retry.
            if (error instanceof RateLimitedError) limiter.rateLimited(error.retryAfterMs);
            throw error;
          }),
        ),
      retry,
      { signal, onRetry: (context) => config.onRetry?.({ ...context, endpoint }) },
    ).then((body) => validate(schema, body, endpoint));
    inFlight.set(key, call);
    const forget = () => inFlight.delete(key);
    call.then(forget, forget);
    return call;
  }

  const common = (params: CommonParams) => ({
    tokenIn: params.tokenIn,
    tokenOut: params.tokenOut,
    deadlineMs: params.deadlineMs?.toString(),
    chainId: String(params.chainId ?? chainId),
    maxHops: params.maxHops?.toString(),
    exclude: params.exclude?.join(','),
    excludePools: params.excludePools && params.excludePools.length > 0 ? params.excludePools.join(',') : undefined,
  });

  return {
    baseUrl,
    chainId,
    /** The limiter every client of this service and key shares (its rate, and whether a 429 holds it now). */
    limiter,

    /** GET /routes: a swap route from tokenIn to tokenOut. */
    /** Our service's extension: the amount shared among routes through disjoint pools, to be sent in one block. */
    getSplitRoutes(params: SwapRouteParams): Promise<SplitRoute> {
      return request(
        '/routes/split',
        { ...common(params), amountIn: params.amountIn.toString(), slippage: params.slippageBps?.toString() },
        splitRouteSchema,
        params.signal,
      );
    },

    getSwapRoute(params: SwapRouteParams): Promise<SwapRoute> {
      return request(
        '/routes',
        {
          ...common(params),
          amountIn: params.amountIn.toString(),
          from: params.from,
          to: params.to,
          slippage: params.slippageBps?.toString(),
          includeTxn: params.includeTxn?.toString(),
          priceImpact: params.priceImpact?.toString(),
        },
        swapRouteSchema,
        params.signal,
      );
    },

    /** GET /earn/deposit: from a token into an LP or gauge position. */
    getDepositRoute(params: EarnRouteParams): Promise<EarnRoute> {
      return request('/earn/deposit', { ...common(params), inputAmount: params.inputAmount.toString() }, earnRouteSchema, params.signal);
    },

    /** GET /earn/withdraw: from an LP or gauge position to a token. */
    getWithdrawRoute(params: EarnRouteParams): Promise<EarnRoute> {
      return request('/earn/withdraw', { ...common(params), inputAmount: params.inputAmount.toString() }, earnRouteSchema, params.signal);
    },

    /** GET /: whether the service is up. */
    health(options: { signal?: AbortSignal } = {}) {
      return request('/', {}, healthSchema, options.signal);
    },
  };
}

/** Parses an answer; a violation becomes an InvalidQuoteError naming the first wrong field. */
function validate<S extends z.ZodType>(schema: S, body: unknown, endpoint: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const field = issue?.path.join('.') || '(answer)';
  throw new InvalidQuoteError(`the routing service's answer to ${endpoint} is invalid at ${field}: ${issue?.message ?? 'unknown problem'}`, {
    field,
    details: parsed.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`).join('; '),
  });
}
