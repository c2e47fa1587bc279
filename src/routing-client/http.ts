/**
 * One HTTP GET to the routing service, turned into JSON or a typed ServiceError. This is the edge where
 * raw fetch failures and status codes become types; nothing above it looks at statuses or messages.
 */
import { errorBodySchema, noRouteMessage } from '../routing-api/schemas.ts';
import { BadRequestError, InvalidQuoteError, NoRouteError, RateLimitedError, ServiceUnavailableError, TimeoutError, UnauthorizedError } from './errors.ts';

/** The largest answer read from the service: a route is a few kilobytes; more is refused unread. */
export const maxAnswerBytes = 256 * 1024;

export type GetJsonOptions = {
  headers: Record<string, string>;
  timeoutMs: number;
  /** The caller's own cancellation; an abort by it is rethrown as is, never retried. */
  signal?: AbortSignal;
};

export async function getJson(url: URL, options: GetJsonOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const where = `${url.origin}${url.pathname}`;
  const failed = (error: unknown, stage: string) => {
    if (options.signal?.aborted) return options.signal.reason;
    if (timeout.aborted) return new TimeoutError(`the routing service did not answer ${where} within ${options.timeoutMs} ms`, { cause: error });
    return new ServiceUnavailableError(`the routing service could not be reached at ${where} (${stage})`, { cause: error });
  };

  let response: Response;
  let text: string;
  try {
    // A redirect would carry the API key (a header) to wherever it points: the service answers here or not at all.
    response = await fetch(url, { headers: options.headers, signal, redirect: 'manual' });
  } catch (error) {
    throw failed(error, 'connect');
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    throw new InvalidQuoteError(`the routing service answered ${where} with a redirect (HTTP ${response.status}), which is not followed`, {
      status: response.status,
    });
  }
  try {
    text = await boundedText(response, maxAnswerBytes);
  } catch (error) {
    if (error instanceof InvalidQuoteError) throw error;
    throw failed(error, 'reading the answer');
  }

  if (response.ok) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new InvalidQuoteError(`the routing service answered ${where} with a body that is not JSON`, {
        status: response.status,
        cause: error,
        details: excerpt(text),
      });
    }
  }
  throw errorFor(response, text, where);
}

function errorFor(response: Response, text: string, where: string) {
  const status = response.status;
  const body = parseErrorBody(text);
  const said = body?.error ?? excerpt(text);
  const options = { status, details: said };
  if (status === 429) {
    return new RateLimitedError(`the routing service is rate-limiting us (${where})`, {
      ...options,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
  if (status === 401 || status === 403) return new UnauthorizedError(`the routing service refused our API key (${status})`, options);
  if (status >= 500) return new ServiceUnavailableError(`the routing service failed with HTTP ${status} at ${where}`, options);
  if (body?.error?.toLowerCase().startsWith(noRouteMessage.toLowerCase())) {
    return new NoRouteError(`the routing service found no route: ${body.error}`, { status });
  }
  if (body?.error === 'Unsupported tokens') {
    return new BadRequestError(`the routing service does not support token ${body.tokens?.join(', ') ?? ''}`.trim(), { ...options, field: body.field });
  }
  return new BadRequestError(`the routing service refused the request (HTTP ${status}): ${said}`, { ...options, field: body?.field });
}

function parseErrorBody(text: string) {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The answer's body as text, refused (InvalidQuoteError) once it passes `limit` bytes: never read whole into memory. */
async function boundedText(response: Response, limit: number): Promise<string> {
  const tooLarge = () => new InvalidQuoteError(`the routing service's answer is larger than ${limit} bytes; it is not read`, { status: response.status });
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
