/**
 * The plain devnet world, deployed once per run for the files that fork it (`useDevnetFork()`): its chain, every
 * block's state included, saved for each file to start a node of its own from. The node stays up for the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { oncePerRun } from './once-per-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared devnet, running for the whole run. */
    devnet: DeploymentAddressBook;
    /** Its chain right after deployment, every block's state included: each test file starts a node of its own from it. */
    devnetStateFile: string;
  }
}

export default async function setup(project: TestProject) {
  const world = await oncePerRun('devnet', async () => {
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
  });
  project.provide('devnet', world.value.addressBook);
  project.provide('devnetStateFile', world.value.stateFile);
  return () => world.release();
}
