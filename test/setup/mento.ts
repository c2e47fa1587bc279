/**
 * The whole devnet world, Uniswap V3 and Mento v2 (Broker, exchanges, Reserve, breaker) deployed in it too, once per
 * run for the files that fork it (`useDevnetFork({ mento: true })`).
 */
import type { TestProject } from 'vitest/node';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { savedWorld } from './saved-world.ts';
import { startEarlyForWholeRun } from './whole-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    devnetWithMento: DeploymentAddressBook;
    devnetWithMentoStateFile: string;
  }
}

export default async function setup(project: TestProject) {
  startEarlyForWholeRun(project);
  const world = await savedWorld('mento', { uniswapV3: true, mento: true });
  project.provide('devnetWithMento', world.value.addressBook);
  project.provide('devnetWithMentoStateFile', world.value.stateFile);
  return () => world.release();
}
