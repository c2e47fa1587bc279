/** A proxy in front of the local routing service that rewrites its JSON answers: a lying service, for guard tests. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { DevnetFork } from './devnet.ts';

// biome-ignore lint/suspicious/noExplicitAny: a lying service rewrites the answer's JSON freely, field by field
export type Rewrite = (body: Record<string, any>, path: string) => Record<string, any>;

export async function startQuoteProxy(upstream: string) {
  let rewrite: Rewrite | undefined;
  let rewriteRequest: ((url: URL) => URL) | undefined;
  const server = createServer(async (request, response) => {
    const asked = new URL(request.url ?? '/', upstream);
    const answer = await fetch(rewriteRequest ? rewriteRequest(asked) : asked, { headers: { accept: 'application/json' } });
    let text = await answer.text();
    if (answer.ok && rewrite) text = JSON.stringify(rewrite(JSON.parse(text), new URL(request.url ?? '/', upstream).pathname));
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setRewrite(next: Rewrite | undefined) {
      rewrite = next;
    },
    /** Changes what is asked upstream (a token the local service does not know, asked as one it does). */
    setRequestRewrite(next: ((url: URL) => URL) | undefined) {
      rewriteRequest = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type QuoteProxy = Awaited<ReturnType<typeof startQuoteProxy>>;

/** A rewriting proxy in front of the fork's routing service for this test file: started before its tests, closed after. */
export function useQuoteProxy(fork: DevnetFork): QuoteProxy {
  const proxy = {} as QuoteProxy;
  beforeAll(async () => {
    Object.assign(proxy, await startQuoteProxy(fork.addressBook.routingServiceUrl as string));
  });
  afterAll(() => proxy.close());
  return proxy;
}
