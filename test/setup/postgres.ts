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

export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.remove();
}
