/**
 * `routekeeper run` as a child process, its status port given what a hostile web page or a stranger on the network
 * sends: a malformed target (`GET //` once ended the process), an absolute one, a foreign Host, a request larger
 * than any the page sends, /healthz without the token. Each gets an answer; the daemon stays up and healthy.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { daemonHome, dcaYaml, spawnDaemon, type DaemonProcess } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { rawGet, rawRequest, statusLine } from '../helpers/raw-http.ts';

const fork = useDevnetFork({ routing: true });
const token = 'a-token-of-sixteen-chars';
let daemon: DaemonProcess | undefined;
afterAll(async () => {
  daemon?.child.kill('SIGTERM');
  await daemon?.exited;
});

const statusOf = async (port: number, request: string) => statusLine(await rawRequest(port, request));
const get = rawGet;

describe('the status port of a running daemon', () => {
  it('answers malformed, foreign and oversized requests, and the daemon stays up', async () => {
    const home = daemonHome(fork, 'status-port');
    daemon = spawnDaemon(home, home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '1', every: '1h' }], { start: '2099-01-01T00:00:00Z' })), {
      ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
      ROUTEKEEPER_STATUS_TOKEN: token,
    });
    const port = await daemon.port();
    expect(await statusOf(port, get('//'))).toBe('HTTP/1.1 404 Not Found');
    expect(await statusOf(port, get('http://['))).toBe('HTTP/1.1 400 Bad Request');
    expect(await statusOf(port, get('/api/status', 'attacker.example'))).toBe('HTTP/1.1 403 Forbidden');
    expect(await statusOf(port, get(`/${'x'.repeat(100_000)}`))).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    // /healthz without the token: up or down, nothing else; with it, the details.
    await daemon.waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200, 'a healthy daemon');
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
    const detailed = (await (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<
      string,
      unknown
    >;
    expect(detailed).toMatchObject({ status: 'ok', mode: 'network', chainId: fork.addressBook.chainId, reasons: [] });
    // Still running, still serving.
    expect(daemon.child.exitCode).toBeNull();
    expect(daemon.stderr()).toBe('');
    expect((await fetch(`http://127.0.0.1:${port}/api/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
