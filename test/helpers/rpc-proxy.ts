/**
 * A JSON-RPC proxy in front of a node that answers the methods it is told to refuse as a node without them
 * would (-32601, method not found), single calls and batches alike, and forwards everything else.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Call = { jsonrpc: string; id: number | string; method: string; params?: unknown };

export async function startRpcProxy(upstream: string, refuse: readonly string[]) {
  const refused = (call: Call) => ({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } });
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      const parsed = JSON.parse(body) as Call | Call[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      const forwarded = calls.filter((call) => !refuse.includes(call.method));
      const answers = new Map<Call['id'], unknown>();
      if (forwarded.length > 0) {
        const upstreamAnswer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forwarded) });
        for (const answer of (await upstreamAnswer.json()) as { id: Call['id'] }[]) answers.set(answer.id, answer);
      }
      const replies = calls.map((call) => (refuse.includes(call.method) ? refused(call) : answers.get(call.id)));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(Array.isArray(parsed) ? replies : replies[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
