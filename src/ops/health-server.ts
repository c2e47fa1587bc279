/** GET /healthz and GET /metrics on METRICS_PORT, on this machine only (127.0.0.1) unless a host is given. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

export type Health = () => { ok: boolean; details: Record<string, unknown> };

export async function startHealthServer(options: { port: number; host?: string; metrics: Metrics; health: Health }) {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method === 'GET' && path === '/healthz') {
      const { ok, details } = options.health();
      response.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: ok ? 'ok' : 'unhealthy', ...details }));
    } else if (request.method === 'GET' && path === '/metrics') {
      response.writeHead(200, { 'content-type': options.metrics.registry.contentType });
      response.end(await options.metrics.registry.metrics());
    } else {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'try /healthz or /metrics' }));
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
