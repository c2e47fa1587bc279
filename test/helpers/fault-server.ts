/**
 * A scripted HTTP server for client tests: each request takes the next planned answer (the last one repeats),
 * and every request is recorded with its arrival time and headers.
 */
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PlannedAnswer = { status: number; body?: unknown; raw?: string; headers?: Record<string, string>; delayMs?: number } | { hang: true };

export type RecordedRequest = { at: number; url: string; headers: IncomingHttpHeaders };

export async function startFaultServer(plan: PlannedAnswer[]) {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    requests.push({ at: performance.now(), url: request.url ?? '', headers: request.headers });
    const answer = plan[Math.min(requests.length - 1, plan.length - 1)];
    if (!answer) throw new Error('fault server has no plan');
    if ('hang' in answer) {
      hanging.add(() => response.destroy());
      return;
    }
    const reply = () => {
      const text = answer.raw ?? JSON.stringify(answer.body ?? {});
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(text);
    };
    // The fault itself: a slow answer.
    if (answer.delayMs) setTimeout(reply, answer.delayMs);
    else reply();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A well-formed /routes answer, to be broken field by field. */
export function validSwapAnswer() {
  return {
    expectedOut: '498500000000000000',
    routerAddress: '0xa730B463395f5ca07EcE5cefeccF7f45e1E2C9Bf',
    details: {
      path: ['0x471EcE3750Da237f93B8E339c536989b8978a438', '0x765DE816845861e75A25fCA122bb6898B8B1282a'],
      pairs: ['0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6'],
      extras: ['0xcd9323f1ee7259e38e3247afb043effbbb7a28dd03'],
      inputAmount: '1000000000000000000',
      expectedOutputAmount: '498500000000000000',
      deadline: 1795213741,
      partner: 0,
      sig: '0x',
    },
  };
}
