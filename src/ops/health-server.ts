/**
 * The daemon's HTTP port (METRICS_PORT, on 127.0.0.1 unless METRICS_HOST says otherwise): /healthz, /metrics,
 * the status page at / with its assets, and the JSON it reads (/api/status, /api/strategies/<id>), which
 * scripts may read too. With ROUTEKEEPER_STATUS_TOKEN set, everything but the page's static files asks for
 * `Authorization: Bearer <token>`, and /healthz without it says only up or down.
 * Whatever reaches the port is untrusted: any request target gets an answer (400 when malformed) and a failing
 * handler a 500, never the process's end; a `Host` that is not a loopback name or one of the configured names is
 * refused (a web page that rebinds its own name to 127.0.0.1 cannot read the status); a bind beyond loopback
 * needs the token or an explicit word that the port is open; every answer forbids sniffing and foreign content; one
 * client asking without pause gets 429, and a connection is held to a time and a size (src/http-guards.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.ts';
import { isLoopbackHost } from '../loopback.ts';
import {
  type ClientRate,
  ClientLimit,
  type ConnectionLimits,
  defaultConnectionLimits,
  limitConnections,
  serverOptionsFor,
  servesHost,
} from '../http-guards.ts';
import { toJson } from '../json.ts';
import type { Metrics } from './metrics.ts';

export type Health = () => { ok: boolean; details: Record<string, unknown> };

/** What the status page's data endpoints answer with, once the daemon's ledger is open. */
export type StatusApi = {
  report(): Promise<unknown>;
  /** undefined: no such strategy. */
  strategy(id: string): Promise<unknown>;
};

const webDir = fileURLToPath(new URL('../../web/', import.meta.url));
const uplot = createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js');

/** The page's files: a fixed list, so no request names a path on disk. */
const assets: Record<string, { file: string; type: string }> = {
  '/': { file: `${webDir}status.html`, type: 'text/html; charset=utf-8' },
  '/assets/status.js': { file: `${webDir}status.js`, type: 'text/javascript; charset=utf-8' },
  '/assets/status.css': { file: `${webDir}status.css`, type: 'text/css; charset=utf-8' },
  '/assets/uPlot.iife.min.js': { file: uplot, type: 'text/javascript; charset=utf-8' },
  '/assets/uPlot.min.css': { file: uplot.replace(/uPlot\.iife\.min\.js$/, 'uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the request carries the token (compared in constant time). */
function authorized(request: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = request.headers.authorization ?? '';
  const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  return timingSafeEqual(digest(given), digest(token));
}

/** Sent with every answer: nothing is sniffed, framed elsewhere, or loaded from anywhere but this port. */
const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
} as const;

const json = (response: ServerResponse, status: number, body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    ...securityHeaders,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
};

/** The path of an origin-form request target (`/path?query`), or undefined for anything else. */
function pathOf(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

export class StatusServerConfigError extends ConfigError {
  override name = 'StatusServerConfigError';
}

export type HealthServerOptions = {
  port: number;
  host?: string;
  metrics: Metrics;
  health: Health;
  token?: string;
  /** Host names served besides the loopback ones (a container's service name, say); '*' serves any. */
  allowedHosts?: readonly string[];
  /** Serve a bind beyond loopback without a token: the operator says the port is open on purpose. */
  open?: boolean;
  /** A handler's failure, for the log (the answer says only that it failed). */
  onError?: (error: unknown) => void;
  /** How much one client (an address) may ask (default: statusPerClient). */
  perClient?: ClientRate;
  /** See ConnectionLimits (default: defaultConnectionLimits). */
  connections?: ConnectionLimits;
};

/** One client's share of the status port: far above a page's or a scraper's polls, far below a flood. */
export const statusPerClient: ClientRate = { requestsPerSecond: 100, burst: 200 };

export async function startHealthServer(options: HealthServerOptions) {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && options.token === undefined && !options.open) {
    throw new StatusServerConfigError(
      `METRICS_HOST ${host} is beyond this machine and ROUTEKEEPER_STATUS_TOKEN is not set: anyone who reaches the port would read every wallet and plan. Set the token, or ROUTEKEEPER_STATUS_OPEN=true to serve it open on purpose`,
    );
  }
  // A loopback name or address is this machine's; a rebinding page's Host is its own name.
  const hostAllowed = servesHost(options.allowedHosts);
  let status: StatusApi | undefined;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hostAllowed(request.headers.host)) {
      return json(response, 403, { error: `host '${request.headers.host ?? ''}' is not served here (a loopback name, or one of METRICS_ALLOWED_HOSTS)` });
    }
    const path = pathOf(request.url);
    if (path === undefined) return json(response, 400, { error: 'the request target must be a path, such as /api/status' });
    if (request.method !== 'GET') return json(response, 405, { error: 'only GET' });
    if (path === '/healthz') {
      const { ok, details } = options.health();
      // Without the token, up or down only: the reasons name strategies and the node's troubles.
      return json(response, ok ? 200 : 503, { status: ok ? 'ok' : 'unhealthy', ...(authorized(request, options.token) && details) });
    }
    if (path === '/favicon.ico') {
      response.writeHead(204, securityHeaders).end();
      return;
    }
    const asset = assets[path];
    if (asset) {
      const body = await readFile(asset.file).catch(() => undefined);
      if (!body) return json(response, 500, { error: `${path} is missing from the installation` });
      response.writeHead(200, { ...securityHeaders, 'content-type': asset.type, 'cache-control': 'no-cache' }).end(body);
      return;
    }
    if (path !== '/metrics' && !path.startsWith('/api/')) return json(response, 404, { error: 'try /, /api/status, /healthz or /metrics' });
    if (!authorized(request, options.token)) {
      response.setHeader('www-authenticate', 'Bearer');
      return json(response, 401, { error: 'this needs Authorization: Bearer <ROUTEKEEPER_STATUS_TOKEN>' });
    }
    if (path === '/metrics') {
      const text = await options.metrics.registry.metrics();
      response.writeHead(200, { ...securityHeaders, 'content-type': options.metrics.registry.contentType }).end(text);
      return;
    }
    if (!status) return json(response, 503, { error: 'starting: the ledger is not open yet' });
    if (path === '/api/status') return json(response, 200, toJson(await status.report()));
    const id = path.startsWith('/api/strategies/') ? decodedSegment(path.slice('/api/strategies/'.length)) : undefined;
    if (id === null) return json(response, 400, { error: 'the strategy id in the path is not valid percent-encoding' });
    const detail = id === undefined ? undefined : await status.strategy(id);
    if (detail === undefined) return json(response, 404, { error: id === undefined ? 'try /api/status or /api/strategies/<id>' : `no strategy '${id}'` });
    return json(response, 200, toJson(detail));
  }

  const perClient = new ClientLimit(options.perClient ?? statusPerClient);
  const limits = options.connections ?? defaultConnectionLimits;
  const server = createServer(serverOptionsFor(limits), (request, response) => {
    // A socket already gone has no address to count it under, and no one to answer.
    if (request.socket.remoteAddress === undefined) return void request.socket.destroy();
    const turn = perClient.take(request.socket.remoteAddress);
    if (!turn.ok) {
      response.setHeader('retry-after', String(Math.ceil(turn.retryAfterMs / 1000)));
      return json(response, 429, { error: 'too many requests from this client; try again after Retry-After' });
    }
    handle(request, response).catch((error: unknown) => {
      options.onError?.(error);
      if (!response.headersSent) json(response, 500, { error: 'the request failed inside routekeeper; the log says why' });
      else response.destroy();
    });
  });
  limitConnections(server, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    port,
    /** The address it listens on. */
    address,
    /** Serves the status page's data from now on. */
    serveStatus(api: StatusApi) {
      status = api;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A percent-encoded path segment, decoded; null when it is not valid percent-encoding. */
function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
