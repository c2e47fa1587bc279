/**
 * The bin run as a command (`npx routekeeper`, a global install) starts Node with its old space capped, as `npm start`
 * and the image do, unless NODE_OPTIONS sets a cap of its own; `exec` keeps it one process, so signals reach Node.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { binPath, firstStdoutLine } from '../helpers/cli.ts';

/** What a test started ends with its file, should the test fail before it stops it. */
const running = new Set<ChildProcessWithoutNullStreams>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

async function started(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcessWithoutNullStreams; commandLine: string[] }> {
  // Run as an executable file, through its first line, as a shell runs a command.
  const child = spawn(binPath, ['devnet', '--json'], { env: { ...process.env, ...env }, stdio: 'pipe' });
  running.add(child);
  child.once('exit', () => running.delete(child));
  await firstStdoutLine(child);
  return { child, commandLine: readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean) };
}

async function stopped(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('routekeeper as a command', () => {
  it('caps the heap at 256 MB in the one process it runs, and stops on a signal sent to that process', async () => {
    const { NODE_OPTIONS: _, ...withoutOptions } = process.env;
    const { child, commandLine } = await started({ ...withoutOptions, NODE_OPTIONS: '' });
    expect(commandLine.slice(0, 2)).toEqual([commandLine[0], '--max-old-space-size=256']);
    expect(commandLine[0]).toMatch(/node$/);
    expect(commandLine.slice(-3)).toEqual([binPath, 'devnet', '--json']);
    expect(await stopped(child)).toBe(0);
  });

  it('leaves the cap to NODE_OPTIONS when it sets one', async () => {
    const { child, commandLine } = await started({ NODE_OPTIONS: '--max-old-space-size=512' });
    expect(commandLine.some((argument) => argument.startsWith('--max-old-space-size'))).toBe(false);
    expect(readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')).toContain('NODE_OPTIONS=--max-old-space-size=512');
    expect(await stopped(child)).toBe(0);
  });
});
