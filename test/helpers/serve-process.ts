/**
 * `routekeeper serve` as a process over a test file's devnet, given that devnet's address book less every pool (and
 * the devnet service's own settings): only the factories to find pools from. Every process started is ended after
 * the file's tests.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { firstStdoutLine, spawnCli } from './cli.ts';
import type { DevnetFork } from './devnet.ts';

export function useServeProcesses(fork: DevnetFork, name: string) {
  /** The file's directory, and in it the address book with no pools. */
  const home = { dir: '', bookFile: '' };
  const services: ChildProcessWithoutNullStreams[] = [];
  beforeAll(() => {
    home.dir = mkdtempSync(join(tmpdir(), `routekeeper-${name}-`));
    home.bookFile = join(home.dir, 'no-pools.json');
    const { routingServiceUrl: _url, routingService: _second, ...book } = fork.addressBook;
    writeFileSync(home.bookFile, JSON.stringify({ ...book, pools: [] }));
  });
  afterAll(() => {
    for (const child of services) child.kill('SIGTERM');
  });

  /** A process started elsewhere in the file, ended with the others. */
  const track = (child: ChildProcessWithoutNullStreams) => services.push(child);

  /** `serve` over the pool-less address book (a partner store of its own), once its `{"url"}` line is out. */
  async function serve(args: string[] = ['--no-cache'], env: Record<string, string> = {}) {
    const child = spawnCli(
      ['serve', '--address-book', home.bookFile, '--port', '0', '--partner-store', join(home.dir, `partners-${services.length}.sqlite`), ...args],
      { RPC_URL: '', ...env },
    );
    track(child);
    const { url } = JSON.parse(await firstStdoutLine(child)) as { url: string };
    const stop = async () => {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    };
    return { url, child, stop };
  }

  return { home, track, serve };
}
