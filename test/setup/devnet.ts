/**
 * The plain devnet world, deployed once per run for the files that fork it (`useDevnetFork()`): its chain, every
 * block's state included, saved for each file to start a node of its own from. The node stays up for the run.
 */
import type { TestProject } from 'vitest/node';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { oncePerRun } from './once-per-run.ts';
import { startDevnetWorld, startEarlyForWholeRun } from './whole-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared devnet, running for the whole run. */
    devnet: DeploymentAddressBook;
    /** Its chain right after deployment, every block's state included: each test file starts a node of its own from it. */
    devnetStateFile: string;
  }
}

export default async function setup(project: TestProject) {
  startEarlyForWholeRun(project);
  const world = await oncePerRun('devnet', startDevnetWorld);
  project.provide('devnet', world.value.addressBook);
  project.provide('devnetStateFile', world.value.stateFile);
  return () => world.release();
}
