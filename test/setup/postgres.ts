/**
 * One real PostgreSQL for the whole run, started once the first file that needs it is queued (the ledger helpers'
 * users). Each ledger test works in a schema or a database of its own; see test/helpers/ledgers.ts.
 */
import type { TestProject } from 'vitest/node';
import { oncePerRun } from './once-per-run.ts';
import { startEarlyForWholeRun, startPostgresServer } from './whole-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject) {
  startEarlyForWholeRun(project);
  const postgres = await oncePerRun('postgres', startPostgresServer);
  project.provide('postgresUrl', postgres.value);
  return () => postgres.release();
}
