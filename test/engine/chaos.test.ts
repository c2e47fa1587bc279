/**
 * Chaos: `routekeeper run` is killed (SIGKILL) at random instants while two DCA strategies trade every second,
 * and restarted each time. Once it has settled, the ledger equals the chain: every swap the wallet made is
 * exactly one confirmed trade, no slot traded twice, nothing is left open.
 *
 * The instants are drawn relative to what the daemon is doing, not to the clock, so a busy machine (slower start-up)
 * moves them with it: a third of the kills come during start-up (loading, settling what the last one left), a third
 * while it trades, and a third the moment a trade is open in the ledger (claimed, checked, signed or sent), so
 * every phase is hit on any machine. How many trades that makes is a throughput figure: printed, not asserted.
 *
 * Seeded and reproducible: CHAOS_SEED (default 20261121) picks the instants; CHAOS_KILLS (default 15, sized for the
 * suite's five minutes; 50 and more run alone) how many.
 */
import { existsSync } from 'node:fs';
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { countBy, seeded } from '../../support/chaos.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { daemonHome, dcaYaml, expectLedgerEqualsChain, settleWithDaemon, spawnDaemon } from '../helpers/daemon-process.ts';

const fork = useDevnetFork({ routing: true });
const kills = Number(process.env.CHAOS_KILLS ?? 15);
const seed = Number(process.env.CHAOS_SEED ?? 20261121);

const strategies = [
  { id: 'buy-celo', sell: 'cUSD', buy: 'CELO', amount: '1', every: '1s' },
  { id: 'sell-celo', sell: 'CELO', buy: 'cUSD', amount: '1', every: '1s' },
];

describe('chaos', () => {
  it(`${kills} SIGKILLs at random instants (seed ${seed}): every mined swap is exactly one confirmed trade, none left open`, { timeout: 600_000 }, async () => {
    const home = daemonHome(fork, 'chaos');
    const me = fork.addressBook.accounts[0]?.address as Address;
    const env = { ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string };
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;
    const random = seeded(seed);
    const config = home.config(dcaYaml(strategies));
    const killedAt: string[] = [];
    for (let round = 0; round < kills; round++) {
      const daemon = spawnDaemon(home, config, env);
      const phase = (['starting', 'trading', 'trade open'] as const)[round % 3] as 'starting' | 'trading' | 'trade open';
      if (phase === 'starting') {
        // On purpose: a seeded moment of the start, whatever it has reached by then.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 800)));
      } else if (phase === 'trading') {
        await daemon.waitFor(() => daemon.lines.some((line) => typeof line.port === 'number'), 'the daemon to start');
        // On purpose: a seeded moment of its trading.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 1_500)));
      } else {
        await untilTradeOpen(home.ledgerFile, daemon);
      }
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      killedAt.push(phase);
    }
    await settleWithDaemon(home, dcaYaml(strategies, { start: '2099-01-01T00:00:00Z' }), env);

    const swaps = await expectLedgerEqualsChain(fork, home.ledgerFile, me, fromBlock);
    // The kills did interrupt trading: trades were made, and some were caught mid-way (resumed by a later start).
    expect(swaps).toBeGreaterThan(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      const resumed = (await ledger.events.list()).filter((event) => event.kind === 'resumed');
      expect(resumed.length).toBeGreaterThan(0);
      // One trade per strategy slot, by construction of the ledger; and each slot's second is a distinct slot.
      const intents = await ledger.trades.history({ limit: 100_000 });
      expect(new Set(intents.map((intent) => `${intent.strategyId}:${intent.slot}`)).size).toBe(intents.length);
      console.log(
        JSON.stringify({
          seed,
          kills,
          phases: countBy(killedAt),
          swaps,
          intents: intents.length,
          resumed: resumed.length,
          byStatus: countBy(intents.map((i) => i.status)),
        }),
      );
    } finally {
      await ledger.close();
    }
  });
});

/** Waits until the ledger holds a trade in an open state: a kill now interrupts it. */
async function untilTradeOpen(ledgerFile: string, daemon: ReturnType<typeof spawnDaemon>) {
  const open = async () => {
    if (!existsSync(ledgerFile)) return false;
    const ledger = await Ledger.openReadOnly(ledgerFile);
    try {
      return (await ledger.trades.unfinished()).length > 0;
    } catch {
      return false; // created but not migrated yet
    } finally {
      await ledger.close();
    }
  };
  await daemon.waitFor(open, 'a trade to be open', 60_000, 5);
}
