/** Runs the real `routekeeper` binary as a child process. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const binPath = fileURLToPath(new URL('../../bin/routekeeper.js', import.meta.url));

/** The CLI processes of this test file still running, and whether each leads a group of its own. */
const running = new Map<ChildProcessWithoutNullStreams, boolean>();

// A test that fails midway leaves its daemon running, trading on and taking the CPU from the files after it: what a
// file started ends with the file. SIGTERM first: the daemon stops the node it started (in a session of its own, a
// kill of the daemon's group would not reach it); SIGKILL if it has not ended within 10 s.
afterAll(async () => {
  await Promise.all(
    [...running].map(async ([child, ownGroup]) => {
      const ended = new Promise((resolve) => child.once('exit', resolve));
      const signal = (name: NodeJS.Signals) => {
        try {
          if (ownGroup) process.kill(-(child.pid as number), name);
          else child.kill(name);
        } catch {
          // ended meanwhile
        }
      };
      signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([ended.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 10_000)))]);
      clearTimeout(timer);
      if (late) signal('SIGKILL');
    }),
  );
}, 20_000);

/** `ownGroup`: the child leads a process group of its own, as a shell's foreground job does (Ctrl-C signals it all). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { ownGroup?: boolean } = {}): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [binPath, ...args], { env: { ...process.env, ...env }, stdio: 'pipe', detached: options.ownGroup === true });
  running.set(child, options.ownGroup === true);
  child.on('exit', () => running.delete(child));
  return child;
}

/** Runs the CLI to completion and returns its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with the first full line the child writes to stdout. */
export function firstStdoutLine(child: ChildProcessWithoutNullStreams, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`no line on stdout within ${timeoutMs} ms`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(buffered.slice(0, newline));
      }
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code} before writing a line`)));
  });
}

/**
 * What a command run against an address book needs: the book as a file, a strategy file of one DCA from a wallet of
 * `privateKey`, the environment naming them (no RPC_URL, no ROUTING_SERVICE_URL: the book's node), and `doctor`'s
 * arguments over them (the hosted service at a closed port).
 */
export function bookFiles(book: object, privateKey: string, prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `routekeeper-${prefix}-`));
  const bookFile = join(dir, 'book.json');
  writeFileSync(bookFile, JSON.stringify(book));
  const config = join(dir, 'strategies.yaml');
  writeFileSync(
    config,
    'wallets:\n  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }\nstrategies:\n  - { id: dca, kind: dca, wallet: main, every: 1h, sell: { token: cUSD, amount: "5" }, buy: USDC }\n',
  );
  const env = { RPC_URL: '', ROUTING_SERVICE_URL: '', ROUTEKEEPER_CONFIG: '', ROUTEKEEPER_PRIVATE_KEY: privateKey, ROUTEKEEPER_DATA_DIR: join(dir, 'data') };
  const doctor = ['doctor', '--config', config, '--address-book', bookFile, '--hosted-service', 'http://127.0.0.1:9'];
  return { bookFile, config, env, doctor };
}
