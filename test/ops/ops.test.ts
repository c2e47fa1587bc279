import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/ops/logger.ts';
import { createNotifier } from '../../src/ops/notifier.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ destination: stream, pretty: false, level: 'info' }) };
}

describe('logger', () => {
  it('redacts keys wherever they appear by name and writes amounts as strings', () => {
    const { lines, logger } = capture();
    logger.info({ privateKey: '0xsecret', wallet: { privateKey: '0xsecret2', address: '0xabc' }, apiKey: 'k-123', amountOut: 12345678901234567890n }, 'filled');
    expect(lines[0]).toMatchObject({
      msg: 'filled',
      privateKey: '[redacted]',
      wallet: { privateKey: '[redacted]', address: '0xabc' },
      apiKey: '[redacted]',
      amountOut: '12345678901234567890',
    });
    expect(JSON.stringify(lines)).not.toMatch(/0xsecret|k-123/);
  });
});

describe('webhook notifier', () => {
  it('posts JSON for the events a hook wants, retrying failures until delivered', async () => {
    const received: { event: string; strategy: string }[] = [];
    let calls = 0;
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        calls++;
        if (calls <= 2) {
          response.writeHead(503).end();
          return;
        }
        received.push(JSON.parse(body));
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const { logger } = capture();
    const notifier = createNotifier([{ url, events: ['filled'] }], logger, { attempts: 4 });
    notifier.notify('refused', { strategy: 'dca' });
    notifier.notify('filled', { strategy: 'dca', amountOut: 5n });
    await notifier.flush();
    server.close();
    expect(calls).toBe(3);
    expect(received).toEqual([expect.objectContaining({ event: 'filled', strategy: 'dca', amountOut: '5' })]);
  });

  it('gives up after its attempts and logs it, without throwing', async () => {
    const { lines, logger } = capture();
    const notifier = createNotifier([{ url: 'http://127.0.0.1:9/unreachable' }], logger, { attempts: 2 });
    notifier.notify('failed', { strategy: 'dca' });
    await notifier.flush();
    expect(lines).toEqual([expect.objectContaining({ msg: 'webhook not delivered', webhook: 'http://127.0.0.1:9' })]);
  });
});
