/**
 * `routekeeper deploy-adapter v3-range-mover` on the devnet with Uniswap V3: deploys routekeeper's position mover from
 * the strategy file's wallet at the address its nonce gives, writes it into the address book as
 * `contracts.v3RangeMover` (keeping the rest of the book), and sends nothing a second time; the daemon's chain data
 * then names it, so a re-range or an exit moves through it in one transaction; doctor holds it to this build's code.
 */
import { readFileSync } from 'node:fs';
import { type Address, getContractAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { loadAddressBook } from '../../src/config/address-book.ts';
import { knownContractsFor } from '../../src/config/chain-data.ts';
import { V3RangeMover } from '../../src/contracts/solidity-code.ts';
import { positionMoverFindings } from '../../src/doctor/chain.ts';
import { bookFiles, runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ uniswapV3: true });

describe('routekeeper deploy-adapter v3-range-mover', () => {
  it('deploys the mover from the wallet, writes it into the book as contracts.v3RangeMover, and sends nothing twice', async () => {
    const book = structuredClone(fork.addressBook);
    book.contracts.v3RangeMover = undefined;
    const { bookFile, config, env } = bookFiles(book, fork.addressBook.accounts[0]?.privateKey as string, 'deploy-mover');
    const payer = fork.addressBook.accounts[0]?.address as Address;
    const nonce = await fork.publicClient.getTransactionCount({ address: payer });

    const first = await runCli(['deploy-adapter', 'v3-range-mover', '--address-book', bookFile, '--config', config], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const written = JSON.parse(readFileSync(bookFile, 'utf8'));
    const deployed = written.contracts.v3RangeMover as Address;
    expect(deployed).toBe(getContractAddress({ from: payer, nonce: BigInt(nonce) }));
    expect(first.stdout).toContain(`deployed v3RangeMover at ${deployed}`);
    expect(first.stdout).toContain('as contracts.v3RangeMover');
    expect((await fork.publicClient.getCode({ address: deployed }))?.toLowerCase()).toBe(V3RangeMover.runtimeCode.toLowerCase());
    // Everything else in the book as it was; the daemon's chain data names the mover.
    expect({ ...written, contracts: { ...written.contracts, v3RangeMover: undefined } }).toEqual(JSON.parse(JSON.stringify(book)));
    expect(knownContractsFor(fork.addressBook.chainId, loadAddressBook(bookFile)).positionMovers).toEqual([deployed]);

    const again = await runCli(['deploy-adapter', 'v3-range-mover', '--address-book', bookFile, '--config', config], env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`already names v3RangeMover ${deployed}, whose code is this build's: nothing sent`);
    expect(await fork.publicClient.getTransactionCount({ address: payer })).toBe(nonce + 1);
  });

  it('doctor holds the mover the book names to this build’s code', async () => {
    const ours = fork.addressBook.contracts.v3RangeMover as Address;
    const other = fork.addressBook.contracts.adapters.uniswapV3 as Address;
    const findings = (mover: Address | undefined) =>
      positionMoverFindings(
        fork.publicClient,
        knownContractsFor(fork.addressBook.chainId, { ...fork.addressBook, contracts: { ...fork.addressBook.contracts, v3RangeMover: mover } }),
      );
    expect(await findings(ours)).toEqual([
      { level: 'ok', message: `position mover ${ours}: this build's code; re-ranges and exits move through it in one transaction` },
    ]);
    expect(await findings(other)).toEqual([
      {
        level: 'fail',
        message: `position mover ${other}: its code is not this build's; nothing is sent to it (deploy one with 'routekeeper deploy-adapter v3-range-mover')`,
      },
    ]);
    expect(await findings(undefined)).toEqual([
      {
        level: 'ok',
        message:
          "no position mover is named: a V3 position's re-range and exit go in steps, each its own transaction ('routekeeper deploy-adapter v3-range-mover' deploys one)",
      },
    ]);
  });
});
