import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { runCli } from '../helpers/cli.ts';

const wallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

describe('routekeeper resume', () => {
  it('lists pauses, lifts one while another process holds the ledger, and says when there was none', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'routekeeper-resume-')), 'ledger.sqlite');
    // A daemon holds the ledger (its lock) and paused a strategy and a wallet after an anomaly.
    const daemon = await Ledger.open(file);
    try {
      await daemon.pauses.pause({ scope: 'strategy', key: 'dca', reason: 'anomaly in trade dca:1: balances moved', intentId: 'dca:1' });
      await daemon.pauses.pause({ scope: 'wallet', key: wallet, reason: 'anomaly in trade dca:1: balances moved', intentId: 'dca:1' });

      const listed = await runCli(['resume', '--ledger', file]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        /^strategy dca {2}paused .* anomaly in trade dca:1: balances moved\nwallet 0x90f79bf6eb2c4f870365e785982e1f101e93b906 {2}paused /,
      );

      const lifted = await runCli(['resume', '--strategy', 'dca', '--ledger', file]);
      expect([lifted.code, lifted.stdout]).toEqual([0, 'lifted the pause of the strategy dca\n']);
      // The daemon's own connection sees it at once.
      expect(await daemon.pauses.for('dca', '0x0000000000000000000000000000000000000001')).toEqual([]);
      expect(await daemon.pauses.for('other', wallet)).toHaveLength(1);

      const again = await runCli(['resume', '--strategy', 'dca', '--ledger', file]);
      expect([again.code, again.stdout]).toEqual([1, 'the strategy dca is not paused\n']);
      expect((await runCli(['resume', '--wallet', wallet.toUpperCase().replace('0X', '0x'), '--ledger', file])).code).toBe(0);
      expect(await daemon.pauses.all()).toEqual([]);

      const bad = await runCli(['resume', '--wallet', 'main', '--ledger', file]);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      daemon.close();
    }
  });
});
