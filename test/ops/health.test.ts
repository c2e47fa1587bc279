import { describe, expect, it } from 'vitest';
import { startHealthServer } from '../../src/ops/health-server.ts';
import { createMetrics } from '../../src/ops/metrics.ts';

describe('the health and metrics server', () => {
  it('listens on 127.0.0.1 unless told otherwise', async () => {
    const health = () => ({ ok: true, details: {} });
    const local = await startHealthServer({ port: 0, metrics: createMetrics(), health });
    const everywhere = await startHealthServer({ port: 0, host: '0.0.0.0', metrics: createMetrics(), health });
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
