import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The ENV of the Dockerfile's final stage, as the container sees it. */
function containerEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const [, block] of finalStage.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)) {
    for (const [, name, value] of (block as string).matchAll(/(\w+)=(\S+)/g)) env[name as string] = value as string;
  }
  return env;
}

/** Runs `command` (exec'd, so signals reach the daemon itself) until its first confirmed trade, then stops it. */
async function firstTradeOf(command: string, extraEnv: Record<string, string> = {}) {
  {
    const child = spawn('sh', ['-c', `exec ${command}`], {
      cwd: root,
      detached: true, // its own process group, so cleanup can end everything it started
      env: {
        ...process.env,
        ...extraEnv,
        RPC_URL: '',
        ROUTING_SERVICE_URL: '',
        ROUTEKEEPER_CONFIG: '',
        ROUTEKEEPER_PRIVATE_KEY: '',
        ROUTEKEEPER_DATA_DIR: mkdtempSync(join(tmpdir(), 'routekeeper-start-')),
        METRICS_PORT: '0',
        METRICS_HOST: '127.0.0.1',
      },
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // The first trade comes about 6 s after the start alone and 14 s beside a second copy of the suite; once, with
      // both copies compiling the Solidity (a core each for a minute) at that moment, not within 60 s: the world is
      // deployed afresh at every start. The ceiling is for a start that never trades, not a measure of speed.
      await waitFor(() => /"status":"confirmed"/.test(output), 'a first trade', 150_000, { explain: () => output, pollMs: 100 });
      expect(output).toContain('EMBEDDED DEVNET: a local chain with test tokens. No real funds are used.');
      const filled = output.split('\n').find((line) => line.includes('"status":"confirmed"')) as string;
      expect(JSON.parse(filled)).toMatchObject({ status: 'confirmed', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toMatch(/"msg":"stopped by SIGTERM: (nothing is left open|\d+ trades? left open, settled at the next start)/);
    } finally {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // the whole group is already gone, as it should be
      }
    }
  }
}

describe('npm start', () => {
  it('with no configuration, starts the embedded devnet and reaches a first executed trade', async () => {
    // Exactly the command of package.json's "start" script.
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    await firstTradeOf(scripts.start);
  }, 180_000);
});

describe('the container image', () => {
  it('runs compiled code under tini, keeps .env out of the build, and refuses to start without RPC_URL unless --devnet is asked for', async () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(finalStage).not.toMatch(/g\+\+|make|python3/);
    expect(finalStage).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/routekeeper.js"]');
    expect(readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['.env', '.env.*', 'data', 'node_modules']));
    const env = containerEnv();
    expect(env).toMatchObject({ ROUTEKEEPER_REQUIRE_RPC_URL: 'true', ROUTEKEEPER_DATA_DIR: '/data', METRICS_HOST: '0.0.0.0' });
    // The container's environment (its data directory and listen address aside) with `run --devnet`: the demo.
    const { ROUTEKEEPER_DATA_DIR: _dataDir, METRICS_HOST: _host, ...asInContainer } = env;
    await firstTradeOf('node bin/routekeeper.js run --devnet', asInContainer);
  }, 180_000);
});
