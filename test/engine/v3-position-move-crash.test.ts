/**
 * A process killed (SIGKILL) at each point of a V3 position's move in one transaction: a re-range after signing,
 * before the broadcast; an exit after the broadcast, before the receipt. The next process resumes the move from
 * its stored bytes, and its run then finds nothing to do: the position moved exactly once, nothing lost, nothing twice.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, isAddressEqual, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { positionManagerAbi } from '../../src/contracts/abi.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { cusdCeloPool, openPosition, positionManagerOf, readPosition } from '../../support/positions.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { runFixture } from '../helpers/child.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ uniswapV3: true, routing: true });
const fixture = fileURLToPath(new URL('../fixtures/run-position.ts', import.meta.url));
const e18 = 10n ** 18n;

const runPosition = (env: Record<string, string>) => runFixture(fixture, env);

describe('a V3 position move killed at each point ends, after restart, moved exactly once', () => {
  // Each point of the one transaction, a re-range at one and an exit at the other: they are the same kind of trade
  // and go through the same stages (`once` is killed with a re-range's move signed too: v3-position-once.test).
  for (const [mode, stage] of [
    ['re-range', 'signed'],
    ['exit', 'broadcast'],
  ] as const) {
    it(`${mode}: killed (SIGKILL) after the move was ${stage === 'signed' ? 'signed, before broadcast' : 'broadcast, before the receipt'}`, async () => {
      const pool = cusdCeloPool(fork);
      // A re-range's position out of range from the start (an hour passes); an exit's in range, its time come.
      const offsetTicks = mode === 're-range' ? 2_400 : 0;
      const opened = await openPosition(fork, pool, { halfWidthTicks: 600, offsetTicks, amount0: 5_000n * e18, amount1: 5_000n * e18 });
      await fork.testClient.increaseTime({ seconds: 4_200 });
      await fork.testClient.mine({ blocks: 1 });
      const dir = mkdtempSync(join(tmpdir(), 'routekeeper-move-crash-'));
      const addressBook = join(dir, 'address-book.json');
      writeFileSync(addressBook, JSON.stringify(fork.addressBook));
      const env = { ADDRESS_BOOK: addressBook, LEDGER: join(dir, 'ledger.sqlite'), POSITION_ID: opened.tokenId.toString(), MODE: mode };
      const me = fork.addressBook.accounts[0]?.address as Address;
      const fromBlock = await fork.publicClient.getBlockNumber();
      const nonceBefore = await fork.publicClient.getTransactionCount({ address: me });

      const first = runPosition({ ...env, SLOT: 'slot-1', PAUSE_AT: stage });
      await waitFor(() => first.lines.some((line) => line.includes(`paused at ${stage}`)), `the child to pause at ${stage}`, 30_000, {
        explain: () => `${first.lines.join('\n')}\n${first.errors()}`,
      });
      first.child.kill('SIGKILL');
      await first.exited;

      const second = runPosition({ ...env, SLOT: 'slot-2' });
      expect(await second.exited).toBe(0);
      const [reconciled, run] = second.lines.map((line) => JSON.parse(line));
      expect(reconciled.reconciled).toMatchObject({ intentId: `lp:slot-1#${mode === 're-range' ? 're-range-move' : 'exit-move'}`, status: 'confirmed' });
      // The next run has nothing left to move: the re-ranged position is in range, the exited one empty.
      expect(run.run.trades).toEqual([]);

      // On the chain: one transaction of the wallet's, one move of the old NFT to the mover.
      expect(await fork.publicClient.getTransactionCount({ address: me })).toBe(nonceBefore + 1);
      const mover = fork.addressBook.contracts.v3RangeMover as Address;
      const nfts = await fork.publicClient.getContractEvents({
        address: positionManagerOf(fork).address,
        abi: positionManagerAbi,
        eventName: 'Transfer',
        fromBlock,
      });
      const moves = (from: Address, to: Address) =>
        nfts.filter((event) => isAddressEqual(event.args.from ?? zeroAddress, from) && isAddressEqual(event.args.to ?? zeroAddress, to));
      expect(moves(me, mover)).toHaveLength(1);
      const minted = moves(zeroAddress, me);
      expect(minted).toHaveLength(mode === 're-range' ? 1 : 0);
      const emptied = await readPosition(fork, opened.tokenId);
      expect([emptied.liquidity, emptied.owner]).toEqual([0n, me]);

      // In the ledger: the move's one signed transaction, mined, its settlement the chain's.
      const ledger = await Ledger.open(env.LEDGER);
      try {
        const id = `lp:slot-1#${mode === 're-range' ? 're-range-move' : 'exit-move'}`;
        const attempts = (await ledger.attempts.ofTrade(id)).filter((attempt) => attempt.purpose === 'trade');
        expect(attempts.map((attempt) => attempt.status)).toEqual(['mined']);
        const record = await ledger.trades.get(id);
        expect(record).toMatchObject({ status: 'confirmed', settlement: { txHash: attempts[0]?.hash } });
        if (mode === 're-range') expect(record?.settlement?.position?.positionId).toBe(minted[0]?.args.tokenId);
      } finally {
        await ledger.close();
      }
    });
  }
});
