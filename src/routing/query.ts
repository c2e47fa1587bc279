/**
 * A request's query string, validated by its schema before anything is read from the chain: the first parameter that
 * is wrong is named, in a 400 the client can show (a parameter given twice, one missing, one out of range, another
 * chain's id).
 */
import type { z } from 'zod';
import { badRequest } from './errors.ts';

/** Validates the query string; the error names the first parameter that is wrong. */
export function parseQuery<S extends z.ZodType>(schema: S, url: URL, chainId: number): z.output<S> {
  const raw: Record<string, string> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) throw badRequest(name, 'is given more than once');
    raw[name] = values[0] as string;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const field = issue?.path.join('.') || 'query';
    const missing = issue?.code === 'invalid_type' && raw[field] === undefined;
    throw badRequest(field, missing ? 'is required' : (issue?.message ?? 'is invalid'));
  }
  // Where the chain id is optional (GET /tokens), none asked is this service's.
  const query = parsed.data as z.output<S> & { chainId?: number };
  if (query.chainId !== undefined && query.chainId !== chainId)
    throw badRequest('chainId', `${query.chainId} is not supported; this service quotes chain ${chainId}`);
  return query;
}
