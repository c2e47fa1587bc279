/** Notable decisions and observations about trades (a replacement, a cancellation, a nonce used elsewhere…), in order. */
import { toJson } from '../json.ts';
import { scrub } from '../ops/secrets.ts';
import type { LedgerDatabase, Queries } from './database.ts';
import type { EventKind } from './event-kinds.ts';

export type LedgerEvent = { at: number; kind: EventKind; intentId: string | null; details: unknown };

export class EventStore {
  readonly #ledger: LedgerDatabase;

  constructor(ledger: LedgerDatabase) {
    this.#ledger = ledger;
  }

  async record(kind: EventKind, details: unknown, intentId?: string, now = Date.now()): Promise<void> {
    await insertEvent(this.#ledger.db, { kind, details, intentId }, now);
  }

  async list(intentId?: string): Promise<LedgerEvent[]> {
    let query = this.#ledger.db.selectFrom('events').selectAll();
    if (intentId !== undefined) query = query.where('intent_id', '=', intentId);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => ({ at: row.at, kind: row.kind as EventKind, intentId: row.intent_id, details: JSON.parse(row.details) as unknown }));
  }
}

/** Records an event with `q` (inside a database transaction of the caller's, or not). */
export async function insertEvent(q: Queries, event: { kind: EventKind; details: unknown; intentId?: string }, now: number): Promise<void> {
  await q
    .insertInto('events')
    .values({ at: now, kind: event.kind, intent_id: event.intentId ?? null, details: scrub(toJson(event.details)) })
    .execute();
}
