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
    /** The same world with Uniswap V3 (factory, adapter, pools) deployed in it too, and its saved chain. */
    devnetWithUniswapV3: AddressBook;
    devnetWithUniswapV3StateFile: string;
  }
}

export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), 'routekeeper-devnet-'));
  // V3's pools are deployed with the rest of the world (a day before now), so that their oracles hold a day's history.
  const withUniswapV3 = await startDevnet({ uniswapV3: true });
  const stateFileWithUniswapV3 = join(directory, 'state-uniswap-v3.json');
  await withUniswapV3.saveState(stateFileWithUniswapV3);
  await withUniswapV3.stop();
  project.provide('devnetWithUniswapV3', withUniswapV3.addressBook);
  project.provide('devnetWithUniswapV3StateFile', stateFileWithUniswapV3);
  const devnet = await startDevnet();
  const stateFile = join(directory, 'state.json');
  await devnet.saveState(stateFile);
  project.provide('devnet', devnet.addressBook);
  project.provide('devnetStateFile', stateFile);
  return async () => {
    await devnet.stop();
    await rm(directory, { recursive: true, force: true });
  };
}
