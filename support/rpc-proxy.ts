/**
 * A fault-injecting JSON-RPC proxy in front of a node. By default it forwards everything; a test changes its
 * `faults` at any time to make the node lie or fail:
 *  - `refuse`: methods answered as a node without them would (-32601, method not found);
 *  - `intercept`: answer a call itself (the node never sees it), e.g. swallow a send or make up a receipt;
 *  - `rewrite`: change the node's answer, e.g. withhold receipts or report a lower nonce;
 *  - `afterForward`: the node got the request, but the caller gets an HTTP 502 or no answer at all;
 *  - `down`: the node cannot be reached (HTTP 503 for every request, nothing forwarded);
 *  - `latencyMs`: every request is held that long first, as by a node far away.
 * Single calls and batches alike; every call is counted by method.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RpcCall = { jsonrpc: string; id: number | string; method: string; params?: unknown[] };
export type RpcAnswer = { jsonrpc: '2.0'; id: number | string; result?: unknown; error?: { code: number; message: string } };

export type RpcFaults = {
  refuse?: readonly string[];
  /** May take its time (a promise): the request's answer waits for it. */
  intercept?: (call: RpcCall) => RpcAnswer | undefined | Promise<RpcAnswer | undefined>;
  rewrite?: (call: RpcCall, answer: RpcAnswer) => RpcAnswer;
  afterForward?: (calls: readonly RpcCall[]) => 'http-502' | 'hang' | undefined;
  down?: boolean;
  /** Every request waits this long before it is handled: a node as far away as a real one (benchmarks). */
  latencyMs?: number;
};

export const answer = (call: RpcCall, result: unknown): RpcAnswer => ({ jsonrpc: '2.0', id: call.id, result });

export async function startRpcProxy(upstream: string, refuse: readonly string[] = []) {
  const faults: RpcFaults = { refuse };
  const calls = new Map<string, number>();
  /** HTTP requests received: round trips (a batch is one). */
  let requests = 0;
  /** Each request's calls, in order: a method, with an eth_call's target and selector. */
  const log: string[][] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      // The fault itself: a slow node.
      if (faults.latencyMs) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
      if (faults.down) {
        response.writeHead(503, { 'content-type': 'text/plain' });
        response.end('node down');
        return;
      }
      requests++;
      const parsed = JSON.parse(body) as RpcCall | RpcCall[];
      const batch = Array.isArray(parsed) ? parsed : [parsed];
      for (const call of batch) calls.set(call.method, (calls.get(call.method) ?? 0) + 1);
      log.push(batch.map(describeCall));
      const answers = new Map<RpcCall['id'], RpcAnswer>();
      const forwarded: RpcCall[] = [];
      for (const call of batch) {
        const own = faults.refuse?.includes(call.method)
          ? { jsonrpc: '2.0' as const, id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } }
          : await faults.intercept?.(call);
        if (own) answers.set(call.id, own);
        else forwarded.push(call);
      }
      try {
        if (forwarded.length > 0) {
          const upstreamAnswer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forwarded) });
          const byId = new Map(((await upstreamAnswer.json()) as RpcAnswer[]).map((a) => [a.id, a]));
          for (const call of forwarded) {
            const got = byId.get(call.id) as RpcAnswer;
            answers.set(call.id, faults.rewrite ? faults.rewrite(call, got) : got);
          }
        }
      } catch {
        response.writeHead(502).end();
        return;
      }
      const after = forwarded.length > 0 ? faults.afterForward?.(forwarded) : undefined;
      if (after === 'hang') {
        hanging.add(() => response.destroy());
        return;
      }
      if (after === 'http-502') {
        response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
        return;
      }
      const replies = batch.map((call) => answers.get(call.id));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(Array.isArray(parsed) ? replies : replies[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults,
    /** How many calls of a method the proxy received. */
    count: (method: string) => calls.get(method) ?? 0,
    /** Every method called so far, with how often; and how many HTTP requests (round trips) carried them. */
    calls: () => new Map(calls),
    requests: () => requests,
    /** The calls of every request so far, one list per round trip. */
    log: () => log.map((request) => [...request]),
    close: () =>
      new Promise<void>((resolve) => {
        for (const end of hanging) end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `eth_call to:0x1234…:selector`, or the bare method, for reading a log of requests. */
function describeCall(call: RpcCall): string {
  if (call.method !== 'eth_call') return call.method;
  const [request] = (call.params ?? []) as [{ to?: string; data?: string; input?: string }?];
  // A call with no target runs the code it carries: a deployless multicall.
  if (!request?.to) return 'eth_call deployless';
  return `eth_call ${request.to.slice(0, 8)}:${(request.data ?? request.input ?? '').slice(0, 10)}`;
}
