/** A test fixture run as its own process (`node --import tsx`), its stdout lines collected as they come. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export type FixtureProcess = { child: ChildProcessWithoutNullStreams; lines: string[]; errors: () => string; exited: Promise<number | null> };

export function runFixture(fixture: string, env: Record<string, string>): FixtureProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], { env: { ...process.env, ...env }, stdio: 'pipe' });
  const lines: string[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  return { child, lines, errors: () => stderr, exited };
}
