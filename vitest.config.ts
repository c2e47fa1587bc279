import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * What a test file needs started before it runs, read from the helpers it calls: a devnet world (the plain one,
 * the one with Uniswap V3, or the whole one with Mento too) for `useDevnetFork`, the run's PostgreSQL for the ledger helpers. A file that needs
 * none of them, starts no process of its own and compiles nothing is the fast tier, `unit` (`npm run test:unit`):
 * pure logic, in seconds.
 */
type Need = 'devnet' | 'uniswap-v3' | 'mento' | 'postgres';

const setups: Record<Need, string> = {
  devnet: 'test/setup/devnet.ts',
  'uniswap-v3': 'test/setup/uniswap-v3.ts',
  mento: 'test/setup/mento.ts',
  postgres: 'test/setup/postgres.ts',
};

function needsOf(file: string): Need[] {
  const text = readFileSync(file, 'utf8');
  const forks = [...text.matchAll(/useDevnetFork\(([^)]*)\)/g)].map((call) => call[1] ?? '');
  const needs: Need[] = [];
  const world = (options: string) => (/mento:\s*true/.test(options) ? 'mento' : /uniswapV3:\s*true/.test(options) ? 'uniswap-v3' : 'devnet');
  if (forks.some((options) => world(options) === 'devnet') || /inject\('devnet/.test(text)) needs.push('devnet');
  if (forks.some((options) => world(options) === 'uniswap-v3')) needs.push('uniswap-v3');
  if (forks.some((options) => world(options) === 'mento')) needs.push('mento');
  if (/\b(freshLedger|freshDatabase|backends)\b|inject\('postgresUrl'\)/.test(text)) needs.push('postgres');
  return needs;
}

/** A file that starts processes of its own (a CLI, a daemon, a child) or compiles the Solidity: not the fast tier. */
const standsAlone = (file: string) => /helpers\/(cli|in-process|daemon-process)\.ts|node:child_process|devnet\/compile\.ts/.test(readFileSync(file, 'utf8'));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// One project per set of needs: each starts only what its files ask for, and only when one of them runs (a
// project's global setup runs only if it has files queued). A world two projects need is started once per run
// (test/setup/once-per-run.ts).
const projects = new Map<string, { needs: Need[]; files: string[] }>();
for (const file of testFiles('test')) {
  const needs = needsOf(file);
  const name = needs.length > 0 ? needs.join('+') : standsAlone(file) ? 'standalone' : 'unit';
  const project = projects.get(name) ?? { needs, files: [] };
  project.files.push(file);
  projects.set(name, project);
}

/** The projects whose files share a worker's module cache (see below). */
const sharesModules = new Set(['unit', 'devnet', 'uniswap-v3', 'postgres']);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on child processes, anvil or timers rather than the CPU: two at a time, even on 2 cores
    // (the default is one fewer than the cores).
    maxWorkers: 2,
    // viem and kysely are hundreds of small modules each, loaded again by every file: bundled once, a file loads in
    // about half the time (the suite's import total went from 92 s to 54 s; zod, yaml and the queues with them, to
    // 48 s). No other dependency the tests load imports them, so the tests and the code see one copy (instanceof
    // holds). pino is not: its bundle loses its stream's constants.
    deps: {
      optimizer: {
        ssr: { enabled: true, include: ['viem', 'viem/accounts', 'viem/actions', 'viem/chains', 'kysely', 'zod', 'yaml', 'p-queue', 'bottleneck', 'croner'] },
      },
    },
    projects: [...projects].map(([name, { needs, files }]) => ({
      extends: true,
      // A worker's files share one module cache in the projects below: each file loads in a fraction of the time (the
      // suite's import total went from 45 s to about 25 s). Each of their files starts its own chain, ledger and services
      // and keeps its state in itself. The others keep one per file: the files that start routekeeper as processes
      // (`standalone`) load little of it, and in `mento` and `devnet+postgres` a shared cache met a failure whose cause
      // is not known (one each in four runs); until it is, they stay apart.
      test: { name, include: files, globalSetup: needs.map((need) => setups[need]), ...(sharesModules.has(name) && { isolate: false }) },
    })),
  },
});
