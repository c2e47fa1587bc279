/** Each strategy as a daemon resolved it at its last start, and the few facts about the deployment the status page shows. */
import type { Address } from 'viem';
import type { LedgerDatabase } from './database.ts';
import { stored } from './rows.ts';

/** A strategy as a daemon resolved it; `definition` is its JSON with raw amounts as strings. */
export type StrategyDescription = { id: string; kind: string; walletName: string; wallet: Address; definition: string };
export type StrategyRecord = StrategyDescription & { firstSeen: number; lastSeen: number };

export class StrategyStore {
  readonly #ledger: LedgerDatabase;
  /** False on a ledger from before strategies were recorded, read without migrating. */
  readonly #present: boolean;

  constructor(ledger: LedgerDatabase, present: boolean) {
    this.#ledger = ledger;
    this.#present = present;
  }

  /** Records the strategies a daemon starts with, as resolved; strategies no longer in the file keep their row. */
  async describe(strategies: readonly StrategyDescription[], now = Date.now()): Promise<void> {
    if (strategies.length === 0) return;
    await this.#ledger.transaction(async (q) => {
      // In chunks: a statement has a limit on its parameters (SQLite: 32,766), and a daemon may run 10,000 strategies.
      for (let start = 0; start < strategies.length; start += 500) {
        const rows = strategies.slice(start, start + 500).map((strategy) => ({
          id: strategy.id,
          kind: strategy.kind,
          wallet_name: strategy.walletName,
          wallet: stored(strategy.wallet),
          definition: strategy.definition,
          first_seen: now,
          last_seen: now,
        }));
        await q
          .insertInto('strategies')
          .values(rows)
          .onConflict((conflict) =>
            conflict.column('id').doUpdateSet((eb) => ({
              kind: eb.ref('excluded.kind'),
              wallet_name: eb.ref('excluded.wallet_name'),
              wallet: eb.ref('excluded.wallet'),
              definition: eb.ref('excluded.definition'),
              last_seen: eb.ref('excluded.last_seen'),
            })),
          )
          .execute();
      }
    });
  }

  /** The strategies daemons started with, oldest first. */
  async all(): Promise<StrategyRecord[]> {
    if (!this.#present) return [];
    const rows = await this.#ledger.db.selectFrom('strategies').selectAll().orderBy('first_seen').orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      walletName: row.wallet_name,
      wallet: row.wallet,
      definition: row.definition,
      firstSeen: row.first_seen,
      lastSeen: row.last_seen,
    }));
  }

  /** What changes whenever a daemon starts with its strategies: their number and the last start's time. */
  async stamp(): Promise<string> {
    if (!this.#present) return '0';
    const row = await this.#ledger.db
      .selectFrom('strategies')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.max('last_seen').as('last')])
      .executeTakeFirstOrThrow();
    return `${row.count}:${row.last ?? 0}`;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.#ledger.db
      .insertInto('ledger_meta')
      .values({ key, value })
      .onConflict((conflict) => conflict.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
      .execute();
  }

  async meta(key: string): Promise<string | undefined> {
    if (!this.#present) return undefined;
    return (await this.#ledger.db.selectFrom('ledger_meta').select('value').where('key', '=', key).executeTakeFirst())?.value;
  }
}
