/** How the daemon reaches its nodes: Retry-After honoured, failing over between URLs, one chain for all. */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { commonChainOf, nodeTransport } from '../../src/chain/transport.ts';
import { isAbort } from '../../src/ops/abort.ts';
import { ConfigError } from '../../src/errors.ts';
import { startAnvil } from '../../src/devnet/anvil.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A node front that answers its first request with 429 and `Retry-After: 1`, then forwards; records arrival times. */
async function rateLimitedFront(upstream: string) {
  const arrivals: number[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      arrivals.push(performance.now());
      if (arrivals.length === 1) {
        response.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
        return;
      }
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

/** A node that takes every request and never answers (a proxy that swallows them); counts the requests. */
async function silentNode() {
  let requests = 0;
  const server: Server = createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('the node transport', () => {
  it('gives up on a request the node never answers, also while a shutdown signal is given, and ends it at the shutdown', async () => {
    const node = await silentNode();
    const running = new AbortController();
    const client = createPublicClient({ transport: nodeTransport([node.url], { signal: running.signal, timeoutMs: 200 }) });
    // Each try times out and is retried (three retries): the call fails, it does not wait forever.
    const error = await client.getBlockNumber({ cacheTime: 0 }).catch((thrown: unknown) => thrown);
    expect((error as Error).name).toBe('TimeoutError');
    expect(node.requests()).toBe(4);
    // With a long timeout, the shutdown ends the request in flight.
    const patient = createPublicClient({ transport: nodeTransport([node.url], { signal: running.signal, timeoutMs: 60_000 }) });
    const waiting = patient.getBlockNumber({ cacheTime: 0 }).catch((thrown: unknown) => thrown);
    await waitFor(() => node.requests() >= 5, 'the request to reach the node');
    running.abort(new Error('stopped by SIGTERM'));
    const stopped = await waiting;
    expect(isAbort(stopped)).toBe(true);
    expect((stopped as Error).message).toBe('stopped by SIGTERM');
  });

  it('waits as long as a 429 answer asks (Retry-After) before asking again', async () => {
    const front = await rateLimitedFront(fork.addressBook.rpcUrl);
    const client = createPublicClient({ transport: nodeTransport([front.url]) });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(await fork.publicClient.getBlockNumber());
    expect(front.arrivals).toHaveLength(2);
    expect((front.arrivals[1] as number) - (front.arrivals[0] as number)).toBeGreaterThanOrEqual(1_000);
  });

  it('fails over to the next URL when the first cannot be reached', async () => {
    const dead = 'http://127.0.0.1:9'; // discard port: nothing listens
    const client = createPublicClient({ transport: nodeTransport([dead, fork.addressBook.rpcUrl]) });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(await fork.publicClient.getBlockNumber());
  });

  it('refuses URLs that serve different chains, naming both', async () => {
    const other = await startAnvil({ chainId: 31337 });
    cleanups.push(other.stop);
    const same = await commonChainOf([fork.addressBook.rpcUrl, fork.addressBook.rpcUrl]);
    expect(same.chainId).toBe(42220);
    const mixed = commonChainOf([fork.addressBook.rpcUrl, other.rpcUrl]);
    await expect(mixed).rejects.toThrow(ConfigError);
    await expect(mixed).rejects.toThrow(
      new RegExp(
        `^RPC_URL names nodes of different chains: ${fork.addressBook.rpcUrl} serves chain 42220 \\(genesis 0x[0-9a-f]{64}\\), ${other.rpcUrl} chain 31337`,
      ),
    );
  });
});
