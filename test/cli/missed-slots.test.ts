/**
 * A slot that cannot start in time is never silent: the daemon records it in the ledger as a `missed` run with
 * why, counts it in routekeeper_slots_missed_total{strategy}, warns, and `history` and `status` show it.
 */
import { describe, expect, it } from 'vitest';
import { Ledger, type RunRecord } from '../../src/ledger/ledger.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, spawnDaemon } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ routing: true });

describe('missed slots', () => {
  it('are recorded, counted, warned about and shown: one run at a time, two strategies due at once, 1 ms of lateness', async () => {
    const home = daemonHome(fork, 'missed-slots');
    // Both start at the slot itself (no spread); one run at a time: whichever waits for the other is late.
    const yaml = `
defaults: { confirmations: 1, firstRun: now, maxConcurrency: 1, spread: "0s" }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: first, kind: dca, wallet: main, every: 1s, lateness: 1ms, sell: { token: cUSD, amount: "1" }, buy: CELO }
  - { id: second, kind: dca, wallet: main, every: 1s, lateness: 1ms, sell: { token: cUSD, amount: "1" }, buy: CELO }
`;
    const daemon = spawnDaemon(home, home.config(yaml), { ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string });
    const port = await daemon.port();
    const runsOf = async () => {
      const ledger = await Ledger.openReadOnly(home.ledgerFile);
      try {
        return await ledger.runs.list({ limit: 1_000 });
      } finally {
        await ledger.close();
      }
    };
    const lateness = /^could not start within 1 ms of its planned start \(\d+ ms later; 1 runs in progress, 0 waiting, maxConcurrency 1\)$/;
    // On a loaded machine a run may also outlast its 1 s interval: its strategy's next slot is then missed for that.
    const stillGoing = 'the previous run of this strategy was still going';
    await daemon.waitFor(
      async () =>
        (await runsOf()).filter((run) => run.outcome === 'missed' && lateness.test(run.note ?? '')).length >= 3 &&
        (await runsOf()).filter((run) => run.outcome === 'traded').length >= 3,
      'three slots missed for lateness and three traded',
      20_000,
    );
    // The daemon goes on missing slots while we look: the counter is read between two reads of the ledger.
    const runsBefore = await runsOf();
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const runsAfter = await runsOf();
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    // What it recorded until it stopped (a slot may be missed between the read above and the stop).
    const runs = await runsOf();

    const missed = runs.filter((run) => run.outcome === 'missed');
    for (const run of missed) expect(run.note === stillGoing || lateness.test(run.note ?? ''), run.note).toBe(true);
    // Never silent: from its first slot to its last, each strategy has one run per slot, run or missed. One slot may
    // have none: the one still waiting for its turn (one run at a time) when the daemon stopped, which was not due yet
    // (its slot is run at the next start, as `catchUp` says). Every later slot of that strategy was then missed because
    // that run was still going.
    // What the daemon warned or erred about, to read beside a failure.
    const said = daemon.lines.filter((line) => (line.level as number) >= 40).map((line) => `${line.slot ?? ''} ${line.msg}`);
    for (const id of ['first', 'second']) {
      const mine = new Map(runs.filter((run) => run.strategyId === id).map((run) => [Date.parse(run.slot), run]));
      expect(mine.size, `${id}: one run per slot`).toBe(runs.filter((run) => run.strategyId === id).length);
      const [first, last] = [Math.min(...mine.keys()), Math.max(...mine.keys())];
      const silent: number[] = [];
      for (let slot = first; slot <= last; slot += 1_000) if (!mine.has(slot)) silent.push(slot);
      expect(
        silent.length,
        `${id}: slots without a run ${silent.map((slot) => new Date(slot).toISOString())}; the daemon said: ${said.join(' | ')}`,
      ).toBeLessThanOrEqual(1);
      const after = [...mine].filter(([slot]) => silent.length > 0 && slot > (silent[0] as number)).map(([, run]) => run.note);
      expect(
        after.every((note) => note === stillGoing),
        `${id}: after its silent slot ${new Date(silent[0] ?? 0).toISOString()}: ${after.join('; ')}; its runs: ${[...mine].map(([slot, run]) => `${new Date(slot).toISOString()} ${run.outcome}`).join(', ')}; the daemon said: ${said.join(' | ')}`,
      ).toBe(true);
      expect(last - first, `${id}: its slots`).toBeGreaterThanOrEqual(2_000);
    }
    // The counter equals the ledger's missed runs, per strategy, at the instant it was read.
    const missedOf = (list: RunRecord[], id: string) => list.filter((run) => run.outcome === 'missed' && run.strategyId === id).length;
    for (const id of ['first', 'second']) {
      const counted = Number(new RegExp(`^routekeeper_slots_missed_total\\{strategy="${id}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
      expect(counted).toBeGreaterThanOrEqual(missedOf(runsBefore, id));
      expect(counted).toBeLessThanOrEqual(missedOf(runsAfter, id));
    }
    // A warning per missed slot, naming the strategy and the slot.
    const warnings = daemon.lines.filter((line) => line.level === 40 && typeof line.msg === 'string' && line.msg.includes(' missed: '));
    expect(warnings.length).toBeGreaterThanOrEqual(missed.length);
    expect(warnings[0]).toMatchObject({ strategy: expect.stringMatching(/^(first|second)$/), slot: expect.stringMatching(/^\d{4}-/) });

    const history = await runCli(['history', '--json', '--ledger', home.ledgerFile, '--limit', '1000']);
    const shown = JSON.parse(history.stdout) as { outcome: string; note: string }[];
    expect(shown.filter((row) => row.outcome === 'missed')).toHaveLength(missed.length);
    const status = JSON.parse((await runCli(['status', '--json', '--ledger', home.ledgerFile])).stdout);
    const counts = status.strategies.map((s: { id: string; runs: Record<string, number> }) => [s.id, s.runs.missed ?? 0]);
    expect(counts.reduce((sum: number, [, n]: [string, number]) => sum + n, 0)).toBe(missed.length);
  });
});
