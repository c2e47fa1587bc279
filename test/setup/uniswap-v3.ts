/**
 * The devnet world with Uniswap V3 deployed in it too (factory, QuoterV2, adapters, pools), once per run for the files
 * that fork it (`useDevnetFork({ uniswapV3: true })`). Its pools are deployed with the rest of the world (a day before
 * now), so that their oracles hold a day's history.
 */
import type { TestProject } from 'vitest/node';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { savedWorld } from './saved-world.ts';
import { startEarlyForWholeRun } from './whole-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    devnetWithUniswapV3: DeploymentAddressBook;
    devnetWithUniswapV3StateFile: string;
  }
}

export default async function setup(project: TestProject) {
  startEarlyForWholeRun(project);
  const world = await savedWorld('uniswap-v3', { uniswapV3: true });
  project.provide('devnetWithUniswapV3', world.value.addressBook);
  project.provide('devnetWithUniswapV3StateFile', world.value.stateFile);
  return () => world.release();
}
