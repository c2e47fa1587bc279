/**
 * The devnet world with Uniswap V3 deployed in it too (factory, QuoterV2, adapters, pools), once per run for the files
 * that fork it (`useDevnetFork({ uniswapV3: true })`). Its pools are deployed with the rest of the world (a day before
 * now), so that their oracles hold a day's history. Only its saved chain is kept.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { AddressBook } from '../../src/config/address-book.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { oncePerRun } from './once-per-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    devnetWithUniswapV3: AddressBook;
    devnetWithUniswapV3StateFile: string;
  }
}

export default async function setup(project: TestProject) {
  const world = await oncePerRun('uniswap-v3', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'routekeeper-devnet-v3-'));
    const devnet = await startDevnet({ uniswapV3: true });
    const stateFile = join(directory, 'state-uniswap-v3.json');
    try {
      await devnet.saveState(stateFile);
    } finally {
      await devnet.stop();
    }
    return { value: { addressBook: devnet.addressBook, stateFile }, stop: () => rm(directory, { recursive: true, force: true }) };
  });
  project.provide('devnetWithUniswapV3', world.value.addressBook);
  project.provide('devnetWithUniswapV3StateFile', world.value.stateFile);
  return () => world.release();
}
