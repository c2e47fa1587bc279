/**
 * A devnet world deployed once per run and saved (its chain, every block's state included) for each test file to
 * start a node of its own from; only the saved chain is kept, the node that deployed it is stopped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { type StartDevnetOptions, startDevnet } from '../../src/devnet/devnet.ts';
import { oncePerRun, startEarly } from './once-per-run.ts';

export type SavedWorld = { addressBook: DeploymentAddressBook; stateFile: string };
type WorldOptions = Pick<StartDevnetOptions, 'uniswapV3' | 'mento'>;

/** Deploys a world and saves its chain; the stop removes the saved chain. */
async function deploySaved(name: string, options: WorldOptions): Promise<{ value: SavedWorld; stop(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), `routekeeper-devnet-${name}-`));
  const devnet = await startDevnet(options);
  const stateFile = join(directory, `state-${name}.json`);
  try {
    await devnet.saveState(stateFile);
  } finally {
    await devnet.stop();
  }
  const addressBook: DeploymentAddressBook = devnet.addressBook;
  return { value: { addressBook, stateFile }, stop: () => rm(directory, { recursive: true, force: true }) };
}

export function savedWorld(name: string, options: WorldOptions) {
  return oncePerRun(name, () => deploySaved(name, options));
}

/** Starts deploying the world now, for a run that will ask for it (see `startEarly`). */
export function deployEarly(name: string, options: WorldOptions): void {
  startEarly(name, () => deploySaved(name, options));
}
