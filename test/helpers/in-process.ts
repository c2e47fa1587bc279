/**
 * The command line run inside the test's own process: what `routekeeper <args>` prints and returns, without the
 * second or so a child process costs to boot. For checks of what a command says and returns; what only a real
 * process shows (signals, exit by the default action, output written straight to a file descriptor) stays with
 * test/helpers/cli.ts. One at a time: the environment and the standard streams are the process's own.
 */
import { format } from 'node:util';
import { runCommandLine } from '../../src/cli/main.ts';

export async function runInProcess(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const savedEnv = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  const out = { stdout: '', stderr: '' };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture = (stream: 'stdout' | 'stderr') =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  // The test runner gives console its own streams: the console is captured as well.
  const consoles = { log: console.log, error: console.error, warn: console.warn };
  const line =
    (stream: 'stdout' | 'stderr') =>
    (...parts: unknown[]) =>
      void (out[stream] += `${format(...parts)}\n`);
  console.log = line('stdout');
  console.error = line('stderr');
  console.warn = line('stderr');
  try {
    const code = await runCommandLine(args);
    return { code, ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    Object.assign(console, consoles);
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
