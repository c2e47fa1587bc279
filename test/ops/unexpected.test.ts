/**
 * An error nothing caught (a rejected promise no one awaits, a throw in a callback) is a bug, and stops the
 * process gracefully: one line on stderr with registered secrets scrubbed, the same stop as a signal's (the abort
 * every wait listens to), and exit code 1. Run in a process of its own, as the handlers are the process's.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
const secretUrl = 'https://node.example/v3/0123456789abcdef0123456789abcdef';

function runScript(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('an unexpected failure', () => {
  it('in a graceful command: one scrubbed line, the graceful stop, exit 1', async () => {
    // The child's own timers are the stimulus: the failure it raises, and a line it would print only if it kept running.
    const { code, stdout, stderr } = await runScript(`
      const { takeOverSignals } = await import(${JSON.stringify(dist('ops/shutdown.js'))});
      const { registerSecretUrl } = await import(${JSON.stringify(dist('ops/secrets.js'))});
      registerSecretUrl(${JSON.stringify(secretUrl)});
      const shutdown = takeOverSignals({ graceful: true });
      setTimeout(() => Promise.reject(new Error('the node at ${secretUrl} answered nonsense\\nsecond line')), 10);
      const what = await shutdown.requested;
      console.log(JSON.stringify({ what, failed: shutdown.failed, aborted: shutdown.signal.aborted, reason: shutdown.signal.reason.message }));
      shutdown.release();
      process.exitCode = shutdown.failed ? 1 : 0;
    `);
    expect(stderr).toBe('routekeeper: unexpected failure: the node at https://node.example/*** answered nonsense; stopping\n');
    expect(JSON.parse(stdout)).toEqual({ what: 'an unexpected failure', failed: true, aborted: true, reason: 'stopped by an unexpected failure' });
    expect(code).toBe(1);
  });

  it('in a command that holds nothing, or a second one while stopping: exit 1 at once', async () => {
    // The child's own timers are the stimulus: the failure it raises, and a line it would print only if it kept running.
    const { code, stdout, stderr } = await runScript(`
      const { takeOverSignals } = await import(${JSON.stringify(dist('ops/shutdown.js'))});
      takeOverSignals({ graceful: false });
      setTimeout(() => { throw new Error('boom'); }, 10);
      setTimeout(() => console.log('still running'), 2_000);
    `);
    expect(stderr).toBe('routekeeper: unexpected failure: boom; stopping\n');
    expect(stdout).toBe('');
    expect(code).toBe(1);
  });
});
