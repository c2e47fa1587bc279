import { describe, expect, it } from 'vitest';
import { HealthMonitor } from '../../src/ops/health.ts';
import { StatusServerConfigError, startHealthServer } from '../../src/ops/health-server.ts';
import { createMetrics } from '../../src/ops/metrics.ts';

describe('the health and metrics server', () => {
  it('listens on 127.0.0.1 unless told otherwise; beyond loopback only with a token or the word that it is open', async () => {
    const health = () => ({ ok: true, details: {} });
    await expect(startHealthServer({ port: 0, host: '0.0.0.0', metrics: createMetrics(), health })).rejects.toThrow(
      'METRICS_HOST 0.0.0.0 is beyond this machine and ROUTEKEEPER_STATUS_TOKEN is not set: anyone who reaches the port would read every wallet and plan. Set the token, or ROUTEKEEPER_STATUS_OPEN=true to serve it open on purpose',
    );
    await expect(startHealthServer({ port: 0, host: '0.0.0.0', metrics: createMetrics(), health })).rejects.toBeInstanceOf(StatusServerConfigError);
    const local = await startHealthServer({ port: 0, metrics: createMetrics(), health });
    const everywhere = await startHealthServer({ port: 0, host: '0.0.0.0', metrics: createMetrics(), health, open: true });
    try {
      expect(local.address).toBe('127.0.0.1');
      expect(everywhere.address).toBe('0.0.0.0');
      expect((await fetch(`http://127.0.0.1:${local.port}/healthz`)).status).toBe(200);
    } finally {
      await local.close();
      await everywhere.close();
    }
  });
});

describe('the status page and its data behind a bearer token', () => {
  it('asks /api and /metrics for the token, and leaves /healthz and the page itself open', async () => {
    const token = 'a-token-of-sixteen-chars';
    const server = await startHealthServer({ port: 0, metrics: createMetrics(), health: () => ({ ok: true, details: {} }), token });
    const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
    const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });
    try {
      expect((await fetch(url('/api/status'), bearer(token))).status).toBe(503);
      server.serveStatus({ report: async () => ({ version: 1, gas: 12n }), strategy: async (id) => (id === 'dca' ? { series: {} } : undefined) });
      for (const path of ['/api/status', '/api/strategies/dca', '/metrics']) {
        expect((await fetch(url(path))).status, path).toBe(401);
        expect((await fetch(url(path), bearer('a-token-of-sixteen-chart'))).status, path).toBe(401);
        expect((await fetch(url(path), bearer(token))).status, path).toBe(200);
      }
      expect(await (await fetch(url('/api/status'), bearer(token))).json()).toEqual({ version: 1, gas: '12' });
      expect((await fetch(url('/api/strategies/nope'), bearer(token))).status).toBe(404);
      expect((await fetch(url('/healthz'))).status).toBe(200);
      const page = await fetch(url('/'));
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'; script-src 'self';.* frame-ancestors 'none'/);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script src="/assets/status.js"></script>');
      expect((await fetch(url('/assets/uPlot.iife.min.js'))).status).toBe(200);
      expect((await fetch(url('/assets/../package.json'))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('what /healthz holds the daemon to', () => {
  const at = { now: 1_000_000 };
  const monitor = () => {
    const metrics = createMetrics();
    return { metrics, health: new HealthMonitor(['dca', 'limit'], { staleAfterMs: 60_000, failedRunsLimit: 3, now: () => at.now }, metrics.registry) };
  };

  it('is unhealthy until the chain and the routing service have been reached, and while either fails', async () => {
    const { health, metrics } = monitor();
    expect(health.report()).toMatchObject({ ok: false, reasons: ['chain: never reached', 'routing: never reached'] });
    health.reached('chain');
    health.reached('routing');
    expect(health.report()).toMatchObject({ ok: true, reasons: [] });
    at.now += 1_000;
    health.unreachable('routing', 'the routing service could not be reached at http://127.0.0.1:9/ (connect)');
    expect(health.report()).toMatchObject({
      ok: false,
      reasons: ['routing: last reached 1 s ago; last error: the routing service could not be reached at http://127.0.0.1:9/ (connect)'],
      components: { chain: { ok: true }, routing: { ok: false } },
    });
    expect(await metrics.registry.getSingleMetricAsString('routekeeper_component_up')).toContain('routekeeper_component_up{component="routing"} 0');
    at.now += 1_000;
    health.reached('routing');
    expect(health.report().ok).toBe(true);
    // Not reached for longer than the staleness bound: down, although no error was seen.
    at.now += 60_001;
    health.reached('routing');
    expect(health.report()).toMatchObject({ ok: false, reasons: ['chain: last reached 62 s ago'] });
  });

  it('is unhealthy while a strategy has failed its last N runs; one success heals it', async () => {
    const { health, metrics } = monitor();
    health.reached('chain');
    health.reached('routing');
    health.ran('dca', 'confirmed');
    health.ran('dca', 'failed before trading', 'quote: no route');
    health.ran('dca', 'failed', 'failed: reverted');
    expect(health.report().ok).toBe(true);
    health.ran('dca', 'unknown', 'unknown: outcome not known');
    expect(health.report()).toMatchObject({
      ok: false,
      reasons: ['strategy dca: its last 3 runs failed; last error: unknown: outcome not known'],
      strategies: { dca: { consecutiveFailures: 3, lastOutcome: 'unknown', lastSuccessAt: at.now }, limit: { consecutiveFailures: 0, ok: true } },
    });
    expect(await metrics.registry.getSingleMetricAsString('routekeeper_strategy_consecutive_failures')).toContain(
      'routekeeper_strategy_consecutive_failures{strategy="dca"} 3',
    );
    health.ran('dca', 'no trade');
    expect(health.report().ok).toBe(true);
  });
});
