/**
 * Chaos: `routekeeper run` is killed (SIGKILL) at random instants while two DCA strategies trade every second,
 * and restarted each time. Once it has settled, the ledger equals the chain: every swap the wallet made is
 * exactly one confirmed trade, no slot traded twice, nothing is left open.
 *
 * Seeded and reproducible: CHAOS_SEED (default 20261121) picks the instants; CHAOS_KILLS (default 50) how many.
 */
import type { Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { daemonHome, dcaYaml, expectLedgerEqualsChain, settleWithDaemon, spawnDaemon } from '../helpers/daemon-process.ts';

const fork = useDevnetFork({ routing: true });
const kills = Number(process.env.CHAOS_KILLS ?? 50);
const seed = Number(process.env.CHAOS_SEED ?? 20261121);

/** mulberry32: a small seeded generator, so a failing run can be replayed with its seed. */
function seeded(state: number) {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
    const killedAt: number[] = [];
    for (let round = 0; round < kills; round++) {
      const daemon = spawnDaemon(home, config, env);
      // Start-up takes about a second: the instants cover start-up, settling the last run's trades, and trading.
      const after = 300 + Math.floor(random() * 2_200);
      await new Promise((resolve) => setTimeout(resolve, after));
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      killedAt.push(after);
    }
    await settleWithDaemon(home, dcaYaml(strategies, { start: '2099-01-01T00:00:00Z' }), env);

    const swaps = await expectLedgerEqualsChain(fork, home.ledgerFile, me, fromBlock);
    // The kills did interrupt trading: trades were made, and some were caught mid-way (resumed by a later start).
    expect(swaps).toBeGreaterThan(kills / 2);
    const ledger = Ledger.openReadOnly(home.ledgerFile);
    try {
      const resumed = ledger.events().filter((event) => event.kind === 'resumed');
      expect(resumed.length).toBeGreaterThan(0);
      // One trade per strategy slot, by construction of the ledger; and each slot's second is a distinct slot.
      const intents = ledger.history({ limit: 100_000 });
      expect(new Set(intents.map((intent) => `${intent.strategyId}:${intent.slot}`)).size).toBe(intents.length);
      console.log(JSON.stringify({ seed, kills, swaps, intents: intents.length, resumed: resumed.length, byStatus: countBy(intents.map((i) => i.status)) }));
    } finally {
      ledger.close();
    }
  });
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
