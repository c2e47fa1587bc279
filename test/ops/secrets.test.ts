import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/json.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { createNotifier } from '../../src/ops/notifier.ts';
import { redactUrl, registerSecretUrl, scrub } from '../../src/ops/secrets.ts';
import { runCli } from '../helpers/cli.ts';

const secretUrl = 'https://celo-mainnet.example.io/v3/SECRETKEY123?token=ALSOSECRET';

describe('secret URLs', () => {
  it('are shown by host only', () => {
    expect(redactUrl(secretUrl)).toBe('https://celo-mainnet.example.io/***');
    expect(redactUrl('https://user:pass@node.example.io')).toBe('https://node.example.io/***');
    expect(redactUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
    expect(redactUrl('not a url')).toBe('***');
  });

  it('never reach the logs, the ledger or a webhook once registered', async () => {
    registerSecretUrl(secretUrl);
    const failure = `HTTP request failed. URL: ${secretUrl} Request body: {"method":"eth_chainId"}`;
    expect(scrub(failure)).toBe('HTTP request failed. URL: https://celo-mainnet.example.io/*** Request body: {"method":"eth_chainId"}');

    let logged = '';
    const logger = createLogger({ pretty: false, destination: new Writable({ write: (chunk, _encoding, done) => ((logged += chunk), done()) }) });
    logger.error({ error: failure, nested: { url: secretUrl } }, `node failed: ${failure}`);
    logger.error(new Error(failure));
    expect(logged).toContain('celo-mainnet.example.io/***');
    expect(logged).not.toContain('SECRETKEY123');
    expect(logged).not.toContain('ALSOSECRET');

    const ledger = await Ledger.open(join(mkdtempSync(join(tmpdir(), 'routekeeper-secrets-')), 'ledger.sqlite'));
    try {
      const trade = { id: 's:1', strategyId: 's', slot: '1', wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', chainId: 42220, kind: 'swap', tokenIn: '0x00000000000000000000000000000000000000aa', tokenOut: '0x00000000000000000000000000000000000000bb', amountIn: 1n, slippageBps: 50 } as const;
      await ledger.trades.claimSlot(trade);
      await ledger.trades.fail('s:1', { reason: failure, errorClass: 'NodeUnavailableError', retryable: true });
      await ledger.events.record('node-error', { message: failure }, 's:1');
      await ledger.pauses.pause({ scope: 'strategy', key: 's', reason: failure });
      const stored = toJson([(await ledger.trades.get('s:1')), await ledger.events.list('s:1'), await ledger.pauses.all()]);
      expect(stored).toContain('celo-mainnet.example.io/***');
      expect(stored).not.toContain('SECRETKEY123');
    } finally {
      await ledger.close();
    }

    let delivered = '';
    const server = createServer((request, response) => {
      request.on('data', (chunk) => (delivered += chunk));
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const notifier = createNotifier([{ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }], logger);
      notifier.notify('failed', { reason: failure });
      await notifier.flush();
      expect(delivered).toContain('celo-mainnet.example.io/***');
      expect(delivered).not.toContain('SECRETKEY123');
    } finally {
      server.close();
    }
  });

  it('an unreachable RPC_URL with a key in its path is one line on stderr, exit 1, without the key', async () => {
    const result = await runCli(['check'], { RPC_URL: 'http://127.0.0.1:9/v3/SECRETKEY123', ROUTEKEEPER_CONFIG: 'config/strategies.yaml', ROUTEKEEPER_PRIVATE_KEY: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('cannot reach the chain at http://127.0.0.1:9/***');
    expect(result.stderr + result.stdout).not.toContain('SECRETKEY123');
  });
});
