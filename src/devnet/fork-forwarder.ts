/**
 * A fork's node reached through this process: anvil is given a loopback address of ours for `--fork-url`, and the
 * requests it makes there are sent on to the real node. A node URL often carries its API key, and a command line is
 * readable by every user of the machine (`ps`); the real URL never leaves this process.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Whether a node URL carries more than its origin (user info, a path, a query): what may be a key. */
export function hasSecretPart(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '' || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search !== '';
}

/** A loopback URL that forwards JSON-RPC POSTs to `target`; `close` stops it. */
export async function startForwarder(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks), redirect: 'error' })
        .then(async (answer) => {
          const body = Buffer.from(await answer.arrayBuffer());
          response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
        })
        .catch(() => {
          // The node's own failure, without its URL: anvil reports the request failed, and nothing names the key.
          if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"the forked node could not be reached"}');
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
