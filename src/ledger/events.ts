/** Notable decisions and observations about trades (a replacement, a cancellation, a nonce used elsewhere…), in order. */
import { toJson } from '../json.ts';
import { scrub } from '../ops/secrets.ts';
import type { LedgerDatabase } from './database.ts';

export type LedgerEvent = { at: number; kind: string; intentId: string | null; details: unknown };

export class EventStore {
  readonly #ledger: LedgerDatabase;

  constructor(ledger: LedgerDatabase) {
    this.#ledger = ledger;
  }

  async record(kind: string, details: unknown, intentId?: string, now = Date.now()): Promise<void> {
    await this.#ledger.db.insertInto('events').values({ at: now, kind, intent_id: intentId ?? null, details: scrub(toJson(details)) }).execute();
  }

  async list(intentId?: string): Promise<LedgerEvent[]> {
    let query = this.#ledger.db.selectFrom('events').selectAll();
    if (intentId !== undefined) query = query.where('intent_id', '=', intentId);
    const rows = await query.orderBy('id').execute();
    return rows.map((row) => ({ at: row.at, kind: row.kind, intentId: row.intent_id, details: JSON.parse(row.details) as unknown }));
  }
}
