import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('npm start', () => {
  it('with no configuration, starts the embedded devnet and reaches a first executed trade', async () => {
    // Exactly the command of package.json's "start" script (exec'd, so signals reach the daemon itself).
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const child = spawn('sh', ['-c', `exec ${scripts.start}`], {
      cwd: root,
      detached: true, // its own process group, so cleanup can end everything it started
      env: {
        ...process.env,
        RPC_URL: '',
        ROUTING_SERVICE_URL: '',
        ROUTEKEEPER_CONFIG: '',
        ROUTEKEEPER_PRIVATE_KEY: '',
        ROUTEKEEPER_DATA_DIR: mkdtempSync(join(tmpdir(), 'routekeeper-start-')),
        METRICS_PORT: '0',
      },
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const started = Date.now();
      while (!/"status":"confirmed"/.test(output)) {
        if (Date.now() - started > 60_000) throw new Error(`no trade within 60 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).toContain('EMBEDDED DEVNET: a local chain with test tokens. No real funds are used.');
      const filled = output.split('\n').find((line) => line.includes('"status":"confirmed"')) as string;
      expect(JSON.parse(filled)).toMatchObject({ status: 'confirmed', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('"msg":"stopped"');
    } finally {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // the whole group is already gone, as it should be
      }
    }
  }, 90_000);
});
