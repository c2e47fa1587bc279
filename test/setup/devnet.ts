import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { AddressBook } from '../../src/config/address-book.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared devnet, running for the whole run. */
    devnet: AddressBook;
    /** Its chain right after deployment, every block's state included: each test file starts a node of its own from it. */
    devnetStateFile: string;
  }
}

export default async function setup(project: TestProject) {
  const devnet = await startDevnet();
  const directory = await mkdtemp(join(tmpdir(), 'routekeeper-devnet-'));
  const stateFile = join(directory, 'state.json');
  await devnet.saveState(stateFile);
  project.provide('devnet', devnet.addressBook);
  project.provide('devnetStateFile', stateFile);
  return async () => {
    await devnet.stop();
    await rm(directory, { recursive: true, force: true });
  };
}
