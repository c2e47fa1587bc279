/**
 * The service's API keys and what each partner did with them, in a SQLite file of its own (or in memory): keys are
 * kept as their SHA-256, never themselves; every quote answered with a key is a row (its input token and amount,
 * when), and every swap the router reports for the partner's id (the public source's `Swap` with an indexed
 * `tenantId`) is a row of executed volume. Rows are only ever added, so the totals survive any restart.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { type Address, getAddress } from 'viem';

export type KeyRecord = { partner: number; feeRecipient?: Address; label?: string };

export type VolumeKind = 'quoted' | 'executed';

export type PartnerTotals = {
  quotes: number;
  /** Raw input amount quoted, per token. */
  volume: Record<string, string>;
  executed: { swaps: number; volume: Record<string, string> };
  since?: string;
};

const schema = `
CREATE TABLE IF NOT EXISTS api_keys (
  key_sha256 TEXT PRIMARY KEY,
  partner INTEGER NOT NULL CHECK (partner > 0),
  fee_recipient TEXT,
  label TEXT
);
CREATE TABLE IF NOT EXISTS partner_volume (
  id INTEGER PRIMARY KEY,
  partner INTEGER NOT NULL,
  key_sha256 TEXT,
  kind TEXT NOT NULL CHECK (kind IN ('quoted', 'executed')),
  token TEXT NOT NULL,
  amount TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  tx_hash TEXT,
  log_index INTEGER,
  UNIQUE (tx_hash, log_index)
);
CREATE INDEX IF NOT EXISTS partner_volume_by_partner ON partner_volume (partner, kind);
`;

export const keyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

export class PartnerStore {
  readonly #db: Database.Database;

  /** `file` undefined: in memory, for a process that keeps nothing (the devnet's service). */
  constructor(file: string | undefined) {
    this.#db = new Database(file ?? ':memory:');
    if (file) this.#db.pragma('journal_mode = WAL');
    this.#db.exec(schema);
  }

  /** Adds keys (from a file): a key already stored keeps its row, its partner and recipient updated. */
  addKeys(keys: readonly ({ key: string } & KeyRecord)[]): void {
    const upsert = this.#db.prepare(
      'INSERT INTO api_keys (key_sha256, partner, fee_recipient, label) VALUES (?, ?, ?, ?) ON CONFLICT (key_sha256) DO UPDATE SET partner = excluded.partner, fee_recipient = excluded.fee_recipient, label = excluded.label',
    );
    this.#db.transaction(() => {
      for (const key of keys) upsert.run(keyDigest(key.key), key.partner, key.feeRecipient ?? null, key.label ?? null);
    })();
  }

  /** The partner a key stands for, or undefined for a key not issued. */
  keyOf(key: string): KeyRecord | undefined {
    const row = this.#db.prepare('SELECT partner, fee_recipient, label FROM api_keys WHERE key_sha256 = ?').get(keyDigest(key)) as
      | { partner: number; fee_recipient: string | null; label: string | null }
      | undefined;
    if (!row) return undefined;
    return { partner: row.partner, ...(row.fee_recipient ? { feeRecipient: getAddress(row.fee_recipient) } : {}), ...(row.label ? { label: row.label } : {}) };
  }

  /** Every partner id a key stands for. */
  partners(): number[] {
    return (this.#db.prepare('SELECT DISTINCT partner FROM api_keys ORDER BY partner').all() as { partner: number }[]).map((row) => row.partner);
  }

  recordQuote(key: string, partner: number, token: Address, amount: bigint, atMs = Date.now()): void {
    this.#db
      .prepare("INSERT INTO partner_volume (partner, key_sha256, kind, token, amount, at_ms) VALUES (?, ?, 'quoted', ?, ?, ?)")
      .run(partner, keyDigest(key), token.toLowerCase(), amount.toString(), atMs);
  }

  /** A swap the router paid out under the partner's id; one row per log, however often it is seen. */
  recordExecuted(partner: number, token: Address, amount: bigint, txHash: string, logIndex: number, atMs: number): void {
    this.#db
      .prepare("INSERT OR IGNORE INTO partner_volume (partner, kind, token, amount, at_ms, tx_hash, log_index) VALUES (?, 'executed', ?, ?, ?, ?, ?)")
      .run(partner, token.toLowerCase(), amount.toString(), atMs, txHash, logIndex);
  }

  /** A partner's totals: quotes with its keys and their input per token, and its executed swaps. */
  totals(partner: number): PartnerTotals {
    const rows = this.#db.prepare('SELECT kind, token, amount, at_ms FROM partner_volume WHERE partner = ?').all(partner) as {
      kind: VolumeKind;
      token: string;
      amount: string;
      at_ms: number;
    }[];
    const sums: Record<VolumeKind, Map<string, bigint>> = { quoted: new Map(), executed: new Map() };
    const counts: Record<VolumeKind, number> = { quoted: 0, executed: 0 };
    let since: number | undefined;
    for (const row of rows) {
      counts[row.kind]++;
      const token = getAddress(row.token);
      sums[row.kind].set(token, (sums[row.kind].get(token) ?? 0n) + BigInt(row.amount));
      since = since === undefined ? row.at_ms : Math.min(since, row.at_ms);
    }
    const asStrings = (sum: Map<string, bigint>) => Object.fromEntries([...sum].map(([token, amount]) => [token, amount.toString()]));
    return {
      quotes: counts.quoted,
      volume: asStrings(sums.quoted),
      executed: { swaps: counts.executed, volume: asStrings(sums.executed) },
      ...(since === undefined ? {} : { since: new Date(since).toISOString() }),
    };
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
