/**
 * Each layer gets its slice of the ledger: status and the read-only commands a view with no write in it, the trade
 * pipeline the reads it makes beside its one writer. The slices are types: each write the view must not offer is
 * named below, and the type check (`npm test` runs it) fails if a slice starts offering it. The runtime half: a
 * ledger opened read-only answers reads and refuses writes in the database itself.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Ledger, type LedgerView, type TradeReads } from '../../src/ledger/ledger.ts';
import type { PipelineDeps } from '../../src/trade/pipeline.ts';
import type { TradeRecorder } from '../../src/trade/recorder.ts';

/** The writes of each store, by store. */
type Writes = {
  trades:
    | 'claimSlot'
    | 'commitChecked'
    | 'recordSigned'
    | 'markBroadcast'
    | 'recordSimulation'
    | 'refuse'
    | 'fail'
    | 'markUnknown'
    | 'settle'
    | 'markAnomaly'
    | 'noteInterruption';
  attempts: 'update' | 'settleNonce' | 'correctHash' | 'startSignedFrom' | 'setProvenThrough';
  runs: 'start' | 'missed' | 'finish';
  pauses: 'pause' | 'lift';
  marks: 'nameTokens' | 'recordMarks' | 'recordPosition';
  strategies: 'describe' | 'setMeta';
  leases: 'take' | 'takeOver' | 'release';
  events: 'record';
};

type Offered<View, Store extends keyof Writes> = View extends { readonly [K in Store]: infer S } ? Extract<keyof S, Writes[Store]> : never;

describe('the ledger sliced by layer', () => {
  it('gives status and the read-only commands no write', () => {
    expectTypeOf<Offered<LedgerView, 'trades'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'attempts'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'runs'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'pauses'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'marks'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'strategies'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'leases'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<LedgerView, 'events'>>().toEqualTypeOf<never>();
    // What the check above would catch: the whole ledger offers the writes.
    expectTypeOf<Offered<Ledger, 'trades'>>().not.toEqualTypeOf<never>();
    expectTypeOf(Ledger.openReadOnly).returns.resolves.toEqualTypeOf<LedgerView>();
  });

  it('gives the pipeline its reads and writes through its recorder alone', () => {
    expectTypeOf<PipelineDeps['reads']>().toEqualTypeOf<TradeReads>();
    expectTypeOf<PipelineDeps['recorder']>().toEqualTypeOf<TradeRecorder>();
    expectTypeOf<Offered<TradeReads, 'trades'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<TradeReads, 'attempts'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<TradeReads, 'runs'>>().toEqualTypeOf<never>();
    expectTypeOf<Offered<TradeReads, 'pauses'>>().toEqualTypeOf<never>();
    expectTypeOf<PipelineDeps>().not.toHaveProperty('ledger');
  });

  it('opens a read-only ledger that reads and cannot write', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'routekeeper-views-')), 'ledger.sqlite');
    const ledger = await Ledger.open(file);
    await ledger.events.record('resumed', { status: 'claimed' }, 'a:1');
    await ledger.close();
    const view = await Ledger.openReadOnly(file);
    try {
      expect((await view.events.list('a:1')).map((event) => event.kind)).toEqual(['resumed']);
      // The type leaves the writes out; the database refuses them too, should a caller cast the view back.
      await expect((view as unknown as Ledger).events.record('resumed', {}, 'a:2')).rejects.toThrow(/readonly/i);
      expect(await view.events.list('a:2')).toEqual([]);
    } finally {
      await view.close();
    }
  });
});
