import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One devnet for the whole run; each test file forks it (see test/helpers/devnet.ts). One PostgreSQL too; each
    // ledger test has a schema of its own (test/helpers/ledgers.ts).
    globalSetup: ['test/setup/devnet.ts', 'test/setup/postgres.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on child processes, anvil or timers rather than the CPU: two at a time, even on 2 cores
    // (the default is one fewer than the cores).
    maxWorkers: 2,
    // viem and kysely are hundreds of small modules each, loaded again by every file: bundled once, a file loads in
    // about half the time (the suite's import total went from 92 s to 54 s). No other dependency imports them, so
    // the tests and the code see one copy (instanceof holds).
    deps: { optimizer: { ssr: { enabled: true, include: ['viem', 'viem/accounts', 'viem/actions', 'viem/chains', 'kysely'] } } },
  },
});
