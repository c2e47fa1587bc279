/**
 * The check stage's runner (src/trade/check-runner.ts): every check's reads start together when the first check that
 * needs one comes, the checks verify in the declared order, and a refusal is the first failing check's, named.
 */
import { describe, expect, it } from 'vitest';
import { GuardRefusal } from '../../src/model/guard-refusal.ts';
import { type NamedCheck, type RefusedBy, SharedRead, runChecks } from '../../src/trade/check-runner.ts';

type State = { events: string[]; slow: SharedRead<number>; fast: SharedRead<number> };

const later = (ms: number) => new Promise((resolve) => setImmediate(resolve)).then(() => new Promise((resolve) => setTimeout(resolve, ms)));

function state(fast: () => Promise<number>): State {
  const events: string[] = [];
  return {
    events,
    slow: new SharedRead(async () => {
      events.push('slow read sent');
      await later(20);
      return 1;
    }),
    fast: new SharedRead(() => {
      events.push('fast read sent');
      return fast();
    }),
  };
}

const checks: NamedCheck<State>[] = [
  { name: 'first', verify: (s) => void s.events.push('first') },
  { name: 'slow-one', reads: (s) => void s.slow.start(), verify: async (s) => void s.events.push(`slow-one ${await s.slow.start()}`) },
  { name: 'fast-one', reads: (s) => void s.fast.start(), verify: async (s) => void s.events.push(`fast-one ${await s.fast.start()}`) },
];

describe('the check runner', () => {
  it('starts every read together at the first check that needs one, then verifies in the declared order', async () => {
    const s = state(async () => 2);
    expect(await runChecks(checks, s)).toEqual(['first', 'slow-one', 'fast-one']);
    expect(s.events).toEqual(['first', 'slow read sent', 'fast read sent', 'slow-one 1', 'fast-one 2']);
  });

  it("refuses with the first failing check's refusal, named, whatever read failed first", async () => {
    const s = state(async () => {
      throw new GuardRefusal('price', 'the fast read refused');
    });
    const slowRefuses: NamedCheck<State> = {
      name: 'slow-refuses',
      reads: (x) => void x.slow.start(),
      verify: async (x) => {
        await x.slow.start();
        throw new GuardRefusal('manipulated', 'the slow one refused');
      },
    };
    const refusal = (await runChecks([checks[0] as NamedCheck<State>, slowRefuses, checks[2] as NamedCheck<State>], s).catch((error) => error)) as RefusedBy;
    expect(refusal).toBeInstanceOf(GuardRefusal);
    expect([refusal.reason, refusal.check]).toEqual(['manipulated', 'slow-refuses']);
    // The fast read had failed before: its refusal is never the one reported.
    expect(s.events).toEqual(['first', 'slow read sent', 'fast read sent']);
  });

  it('a read that throws before it is sent fails at its own check, in order', async () => {
    const s = state(() => {
      throw new GuardRefusal('simulation', 'no call to send');
    });
    const refusal = (await runChecks(checks, s).catch((error) => error)) as RefusedBy;
    expect([refusal.reason, refusal.check]).toEqual(['simulation', 'fast-one']);
    expect(s.events).toEqual(['first', 'slow read sent', 'fast read sent', 'slow-one 1']);
  });
});
