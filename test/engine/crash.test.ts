import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, parseAbiItem, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { runFixture } from '../helpers/child.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });
const fixture = fileURLToPath(new URL('../fixtures/run-slot.ts', import.meta.url));
const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);

const runSlot = (env: Record<string, string>) => runFixture(fixture, env);

async function until(lines: string[], text: string, timeoutMs = 30_000) {
  await waitFor(() => lines.some((line) => line.includes(text)), `the child to print '${text}'`, timeoutMs, { explain: () => lines.join('\n') });
}

describe('a process killed mid-trade ends, after restart, with exactly one trade for the slot', () => {
  for (const stage of ['signed', 'broadcast'] as const) {
    it(`killed (SIGKILL) after the trade was ${stage === 'signed' ? 'signed, before broadcast' : 'broadcast, before the receipt'}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'routekeeper-crash-'));
      const addressBook = join(dir, 'address-book.json');
      writeFileSync(addressBook, JSON.stringify(fork.addressBook));
      const env = { ADDRESS_BOOK: addressBook, LEDGER: join(dir, 'ledger.sqlite'), SLOT: `slot-${stage}` };
      const me = fork.addressBook.accounts[0]?.address as Address;
      const usdBefore = await fork.balanceOf(fork.token('cUSD'), me);
      const fromBlock = await fork.publicClient.getBlockNumber();

      const first = runSlot({ ...env, PAUSE_AT: stage });
      await until(first.lines, `paused at ${stage}`);
      first.child.kill('SIGKILL');
      await first.exited;

      const second = runSlot(env);
      expect(await second.exited).toBe(0);
      const reports = second.lines.map((line) => JSON.parse(line));
      expect(reports[0].reconciled).toMatchObject({ intentId: `crash:slot-${stage}`, status: 'confirmed' });
      expect(reports[1].executed).toMatchObject({ status: 'skipped' });

      const swaps = await fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: me }, fromBlock });
      expect(swaps).toHaveLength(1);
      expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(usdBefore - parseUnits('400', 18));

      const ledger = await Ledger.open(env.LEDGER);
      try {
        const trades = (await ledger.attempts.ofTrade(`crash:slot-${stage}`)).filter((a) => a.purpose === 'trade');
        expect(trades).toHaveLength(1);
        expect(trades[0]?.status).toBe('mined');
        expect(trades[0]?.hash).toBe(swaps[0]?.transactionHash);
        expect(await ledger.trades.get(`crash:slot-${stage}`)).toMatchObject({
          status: 'confirmed',
          settlement: { amountOut: swaps[0]?.args.outputAmount, txHash: swaps[0]?.transactionHash },
        });
      } finally {
        await ledger.close();
      }
    });
  }
});
