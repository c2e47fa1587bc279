import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadAddressBook } from '../../src/config/address-book.ts';
import { readEnv } from '../../src/config/env.ts';
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
      const trade = {
        id: 's:1',
        strategyId: 's',
        slot: '1',
        wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        chainId: 42220,
        kind: 'swap',
        tokenIn: '0x00000000000000000000000000000000000000aa',
        tokenOut: '0x00000000000000000000000000000000000000bb',
        amountIn: 1n,
        slippageBps: 50,
      } as const;
      await ledger.trades.claimSlot(trade);
      await ledger.trades.fail('s:1', { reason: failure, errorClass: 'node', retryable: true });
      await ledger.events.record('send-refused', { error: failure }, 's:1');
      await ledger.pauses.pause({ scope: 'strategy', key: 's', reason: failure });
      const stored = toJson([await ledger.trades.get('s:1'), await ledger.events.list('s:1'), await ledger.pauses.all()]);
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
    const result = await runCli(['check'], {
      RPC_URL: 'http://127.0.0.1:9/v3/SECRETKEY123',
      ROUTEKEEPER_CONFIG: 'config/strategies.yaml',
      ROUTEKEEPER_PRIVATE_KEY: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('cannot reach the chain at http://127.0.0.1:9/***');
    expect(result.stderr + result.stdout).not.toContain('SECRETKEY123');
  });

  it('hold in every form a secret is printed: without its user:password, the key alone, an API key, an address book, a node error', async () => {
    const key = 'PATHKEY0123456789abcdef';
    const password = 'pa55word-of-the-node';
    registerSecretUrl(`https://user:${password}@node.example.org/v3/${key}`);
    // viem prints a URL without its user info, a form never given; a provider may echo the key alone.
    expect(scrub(`HTTP request failed. URL: https://node.example.org/v3/${key}`)).toBe('HTTP request failed. URL: https://node.example.org/***');
    expect(scrub(`invalid project id ${key}`)).toBe('invalid project id ***');
    expect(scrub(`password authentication failed: ${password}`)).toBe('password authentication failed: ***');
    // Short path segments are no keys: the rest of a message stays readable.
    expect(scrub('v3 of the API')).toBe('v3 of the API');

    readEnv({ ROUTING_API_KEY: 'routing-api-key-0123456789', RPC_URL: 'https://rpc.example.org/KEYFROMENV0123456789' });
    expect(scrub('the service refused routing-api-key-0123456789')).toBe('the service refused ***');
    expect(scrub('node at https://rpc.example.org/KEYFROMENV0123456789 failed')).toBe('node at https://rpc.example.org/*** failed');

    const dir = mkdtempSync(join(tmpdir(), 'routekeeper-secrets-'));
    const bookFile = join(dir, 'book.json');
    const book = {
      chainId: 1,
      rpcUrl: 'https://book-node.example.org/BOOKKEY0123456789',
      routingServiceUrl: 'https://routes.example.org/?apikey=SERVICEKEY0123456789',
      tokens: {},
      contracts: { router: `0x${'11'.repeat(20)}`, oneClickFarm: `0x${'22'.repeat(20)}`, adapters: {}, farms: {}, gauges: {} },
      pools: [],
      accounts: [],
    };
    writeFileSync(bookFile, JSON.stringify(book));
    loadAddressBook(bookFile);
    expect(scrub(`${book.rpcUrl} and ${book.routingServiceUrl} failed`)).toBe('https://book-node.example.org/*** and https://routes.example.org/*** failed');

    const ledger = await Ledger.open(join(dir, 'ledger.sqlite'));
    try {
      const trade = {
        id: 'e:1',
        strategyId: 'e',
        slot: '1',
        wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        chainId: 1,
        kind: 'swap',
        tokenIn: '0x00000000000000000000000000000000000000aa',
        tokenOut: '0x00000000000000000000000000000000000000bb',
        amountIn: 1n,
        slippageBps: 50,
      } as const;
      await ledger.trades.claimSlot(trade);
      await ledger.trades.commitChecked('e:1', { call: { target: trade.tokenIn, data: '0x', expectedOut: 1n, minOut: 1n }, status: 'checked' });
      const [attempt] = await ledger.trades.recordSigned([
        {
          intentId: 'e:1',
          purpose: 'trade',
          wallet: trade.wallet,
          chainId: 1,
          nonce: 0,
          maxFeePerGas: 1n,
          maxPriorityFeePerGas: 1n,
          gasLimit: 21_000n,
          rawTx: '0x02',
          hash: `0x${'ab'.repeat(32)}`,
        },
      ]);
      await ledger.attempts.update(attempt?.id as number, { status: 'dropped', error: `the node said: invalid key ${key}` });
      expect((await ledger.attempts.ofTrade('e:1'))[0]?.error).toBe('the node said: invalid key ***');
    } finally {
      await ledger.close();
    }
  });
});
