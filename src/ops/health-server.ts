/**
 * The daemon's HTTP port (METRICS_PORT, on 127.0.0.1 unless METRICS_HOST says otherwise): /healthz, /metrics,
 * the status page at / with its assets, and the JSON it reads (/api/status, /api/strategies/<id>), which
 * scripts may read too. With ROUTEKEEPER_STATUS_TOKEN set, everything but /healthz and the page's static
 * files asks for `Authorization: Bearer <token>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
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

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(typeof body === 'string' ? body : JSON.stringify(body));
};

export async function startHealthServer(options: { port: number; host?: string; metrics: Metrics; health: Health; token?: string }) {
  let status: StatusApi | undefined;
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'GET') return json(response, 405, { error: 'only GET' });
    if (path === '/healthz') {
      const { ok, details } = options.health();
      return json(response, ok ? 200 : 503, { status: ok ? 'ok' : 'unhealthy', ...details });
    }
    if (path === '/favicon.ico') {
      response.writeHead(204);
      return response.end();
    }
    const asset = assets[path];
    if (asset) {
      const body = await readFile(asset.file).catch(() => undefined);
      if (!body) return json(response, 500, { error: `${path} is missing from the installation` });
      response.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
      return response.end(body);
    }
    if (path !== '/metrics' && !path.startsWith('/api/')) return json(response, 404, { error: 'try /, /api/status, /healthz or /metrics' });
    if (!authorized(request, options.token)) {
      response.setHeader('www-authenticate', 'Bearer');
      return json(response, 401, { error: 'this needs Authorization: Bearer <ROUTEKEEPER_STATUS_TOKEN>' });
    }
    if (path === '/metrics') {
      response.writeHead(200, { 'content-type': options.metrics.registry.contentType });
      return response.end(await options.metrics.registry.metrics());
    }
    if (!status) return json(response, 503, { error: 'starting: the ledger is not open yet' });
    try {
      if (path === '/api/status') return json(response, 200, toJson(await status.report()));
      const id = path.startsWith('/api/strategies/') ? decodeURIComponent(path.slice('/api/strategies/'.length)) : undefined;
      const detail = id === undefined ? undefined : await status.strategy(id);
      if (detail === undefined) return json(response, 404, { error: id === undefined ? 'try /api/status or /api/strategies/<id>' : `no strategy '${id}'` });
      return json(response, 200, toJson(detail));
    } catch (error) {
      return json(response, 500, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
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
