/**
 * The service's answers, as a function from a request to a status and a JSON body: the endpoints of the spec's API
 * (GET /routes, /earn/deposit, /earn/withdraw, /) and GET /tokens and /partners/volume. A refusal is thrown as a
 * RoutingRequestError of its kind anywhere below; `answer` is the one edge that turns it (and any other failure)
 * into a status and a body. Nothing here knows of sockets: server.ts carries requests to it.
 */
import type { Address } from 'viem';
import { z } from 'zod';
import { earnRouteQuerySchema, swapRouteQuerySchema } from '../routing-api/schemas.ts';
import type { ChainState } from './chain-state.ts';
import { type ErrorBody, RoutingRequestError, badRequest, chainUnavailable, statusOf } from './errors.ts';
import type { PartnerRegistry } from './partners.ts';
import type { PoolIndex } from './pool-index.ts';
import { parseQuery } from './query.ts';
import type { QuoteEngine } from './quotes.ts';

/** What of an HTTP request the service reads. */
export type ServiceRequest = { method: string; accept?: string; url: string; apiKey?: string };

export type ServiceAnswer = { status: number; body: unknown };

/** The parts that answer: the chain's state, the quote engine, the partners, and the chain's token names. */
export type AnswerParts = {
  chainId: number;
  index: PoolIndex;
  chainState: ChainState;
  engine: QuoteEngine;
  partners: PartnerRegistry;
  tokens?: Record<string, { address: Address; decimals: number }>;
  /** Where unexpected failures are reported (never with request headers). */
  onError(error: unknown): void;
};

const tokensQuerySchema = z.object({ chainId: z.coerce.number().int().positive().optional() });

/** The answer to one request; never throws. */
export async function answer(parts: AnswerParts, request: ServiceRequest): Promise<ServiceAnswer> {
  try {
    return await route(parts, request);
  } catch (error) {
    if (error instanceof RoutingRequestError) return { status: statusOf(error.kind), body: error.body };
    parts.onError(error);
    return { status: 500, body: { error: 'Internal error' } satisfies ErrorBody };
  }
}

async function route(parts: AnswerParts, request: ServiceRequest): Promise<ServiceAnswer> {
  if (request.method !== 'GET') throw new RoutingRequestError('method-not-allowed', { error: `Method ${request.method} not allowed; use GET` });
  if (!acceptsJson(request.accept)) throw new RoutingRequestError('not-acceptable', { error: 'This service answers application/json only' });
  const url = new URL(request.url, 'http://localhost');
  const { apiKey } = request;
  const { chainId, engine, partners } = parts;
  switch (url.pathname) {
    case '/':
      return health(parts);
    case '/routes':
    // Our extension: the amount shared among routes through disjoint pools (quotes.ts `split`).
    case '/routes/split': {
      const query = parseQuery(swapRouteQuerySchema, url, chainId);
      const partner = partners.resolve(apiKey);
      const market = await snapshot(parts);
      const body = url.pathname === '/routes' ? await engine.swap(market, query, partner) : await engine.split(market, query, partner);
      if (apiKey) partners.record(apiKey, query.tokenIn, query.amountIn);
      return { status: 200, body };
    }
    case '/earn/deposit':
    case '/earn/withdraw': {
      const query = parseQuery(earnRouteQuerySchema, url, chainId);
      const partner = partners.resolve(apiKey);
      const body =
        url.pathname === '/earn/deposit'
          ? await engine.deposit(await withPosition(parts, query.tokenOut, 'tokenOut'), query, partner)
          : await engine.withdraw(await withPosition(parts, query.tokenIn, 'tokenIn'), query, partner);
      if (apiKey) partners.record(apiKey, query.tokenIn, query.inputAmount);
      return { status: 200, body };
    }
    case '/tokens': {
      parseQuery(tokensQuerySchema, url, chainId);
      const { market } = await snapshot(parts);
      const named = new Map(Object.entries(parts.tokens ?? {}).map(([symbol, token]) => [token.address.toLowerCase(), { symbol, decimals: token.decimals }]));
      const tokens = market.tokens().map((address) => ({ address, chainId, ...named.get(address.toLowerCase()) }));
      return { status: 200, body: { tokens } };
    }
    case '/partners/volume': {
      if (!apiKey) throw new RoutingRequestError('api-key-required', { error: 'Send your X-API-KEY to see its volume' });
      const { partnerFees } = await snapshot(parts);
      return { status: 200, body: partners.usage(apiKey, (partner) => ('unreadable' in partnerFees ? undefined : partnerFees.get(partner))) };
    }
    default:
      throw new RoutingRequestError('no-endpoint', {
        error: `No endpoint ${url.pathname}; try /routes, /routes/split, /earn/deposit, /earn/withdraw, /tokens or /`,
      });
  }
}

/** `/`: alive, and what is left out of routes and why (views that revert, tokens nothing prices): for an operator, not a failure. */
async function health({ index, chainState }: AnswerParts): Promise<ServiceAnswer> {
  try {
    // The index's own head read: no more than one a block time, shared with the quotes.
    const pools = await index.current();
    const named = (reasons: ReadonlyMap<string, string>) => [...reasons].map(([pool, reason]) => ({ pool: pools.pools.get(pool)?.address ?? pool, reason }));
    const unroutable = named(pools.unroutable);
    const unpriced = named((await chainState.current()).unpriced);
    return { status: 200, body: { alive: true, state: 'ready', ...(unroutable.length > 0 && { unroutable }), ...(unpriced.length > 0 && { unpriced }) } };
  } catch {
    return { status: 503, body: { alive: true, state: 'restarting' } };
  }
}

/** A read of the chain for a quote; a failure is the chain's, and the client may ask again. */
async function chainRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw chainUnavailable(`Chain unavailable: ${(error as Error).message.split('\n')[0]}`);
  }
}

const snapshot = ({ chainState }: AnswerParts) => chainRead(() => chainState.current());

/** The latest block with the LP supply of the position `token` is, read for the quote that needs it. */
async function withPosition(parts: AnswerParts, token: Address, field: 'tokenIn' | 'tokenOut') {
  const base = await snapshot(parts);
  const position = parts.engine.positionOf(base.market, token);
  if (!position) throw badRequest(field, `${token} is not an LP or gauge token this service can route`);
  return chainRead(() => parts.chainState.withSupply(base, position.pool.address));
}

function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]?.trim().toLowerCase();
    return type === 'application/json' || type === 'application/*' || type === '*/*';
  });
}
