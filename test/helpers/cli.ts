/** Runs the real `routekeeper` binary as a child process. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const binPath = fileURLToPath(new URL('../../bin/routekeeper.js', import.meta.url));

/** `ownGroup`: the child leads a process group of its own, as a shell's foreground job does (Ctrl-C signals it all). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { ownGroup?: boolean } = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [binPath, ...args], { env: { ...process.env, ...env }, stdio: 'pipe', detached: options.ownGroup === true });
}

/** Runs the CLI to completion and returns its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
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
