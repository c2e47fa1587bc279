/**
 * A devnet world deployed once per run and saved (its chain, every block's state included) for each test file to
 * start a node of its own from; only the saved chain is kept, the node that deployed it is stopped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeploymentAddressBook } from '../../src/config/address-book.ts';
import { type StartDevnetOptions, startDevnet } from '../../src/devnet/devnet.ts';
import { oncePerRun } from './once-per-run.ts';

export async function savedWorld(name: string, options: Pick<StartDevnetOptions, 'uniswapV3' | 'mento'>) {
  return oncePerRun(name, async () => {
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
  });
}
