/** A trade's signed transactions as they go out and settle (they are created with the trade's move to `signed`). */
import type { Address, Hex } from 'viem';
import type { LedgerDatabase, Queries } from './database.ts';
import { IllegalAttemptTransitionError, attemptStatusesBefore } from './transitions.ts';
import { attemptFrom, stored } from './rows.ts';
import type { Attempt, AttemptStatus } from '../model/attempt.ts';
import { scrub } from '../ops/secrets.ts';

/** A ledger_meta key of one wallet on one chain. */
const metaKey = (kind: 'signed-from' | 'proven-through', wallet: Address, chainId: number) => `${kind}:${chainId}:${stored(wallet)}`;

export type AttemptChange = { status: AttemptStatus; blockNumber?: bigint; gasUsed?: bigint; effectiveGasPrice?: bigint; error?: string };

export class AttemptStore {
  readonly #ledger: LedgerDatabase;

  constructor(ledger: LedgerDatabase) {
    this.#ledger = ledger;
  }

  /**
   * What became of a transaction: sent, mined, reverted, replaced or dropped (with what the chain said), made only from
   * a status the transition table allows (transitions.ts); from any other, nothing is written and it throws.
   */
  async update(id: number, change: AttemptChange, now = Date.now()): Promise<void> {
    const updated = await this.#ledger.db
      .updateTable('attempts')
      .set((eb) => ({
        status: change.status,
        updated_at: now,
        ...(change.blockNumber !== undefined && { block_number: Number(change.blockNumber) }),
        ...(change.gasUsed !== undefined && { gas_used: change.gasUsed.toString() }),
        ...(change.effectiveGasPrice !== undefined && { effective_gas_price: change.effectiveGasPrice.toString() }),
        // What a node said may carry its URL's key (a provider echoing it): scrubbed like every text the ledger keeps.
        ...(change.error !== undefined && { error: eb.fn.coalesce('error', eb.val(scrub(change.error))) }),
      }))
      .where('id', '=', id)
      .where('status', 'in', attemptStatusesBefore(change.status))
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) throw new IllegalAttemptTransitionError(id, await this.#statusOf(this.#ledger.db, id), change.status);
  }

  /**
   * One transaction of a nonce was mined (or reverted): it records the receipt, and every other attempt at that
   * nonce is `replaced`, in one database transaction, each move as the transition table allows (else nothing is
   * written and it throws). Returns the mined attempt as now stored.
   */
  async settleNonce(
    minedId: number,
    receipt: { status: 'mined' | 'reverted'; blockNumber: bigint; gasUsed: bigint; effectiveGasPrice: bigint },
    otherIds: readonly number[],
    now = Date.now(),
  ): Promise<Attempt> {
    return this.#ledger.transaction(async (q) => {
      const mined = await q
        .updateTable('attempts')
        .set({
          status: receipt.status,
          block_number: Number(receipt.blockNumber),
          gas_used: receipt.gasUsed.toString(),
          effective_gas_price: receipt.effectiveGasPrice.toString(),
          updated_at: now,
        })
        .where('id', '=', minedId)
        .where('status', 'in', attemptStatusesBefore(receipt.status))
        .executeTakeFirst();
      if (mined.numUpdatedRows !== 1n) throw new IllegalAttemptTransitionError(minedId, await this.#statusOf(q, minedId), receipt.status);
      for (const otherId of otherIds) {
        const replaced = await q
          .updateTable('attempts')
          .set({ status: 'replaced', updated_at: now })
          .where('id', '=', otherId)
          .where('status', 'in', attemptStatusesBefore('replaced'))
          .executeTakeFirst();
        if (replaced.numUpdatedRows !== 1n) throw new IllegalAttemptTransitionError(otherId, await this.#statusOf(q, otherId), 'replaced');
      }
      return attemptFrom(await q.selectFrom('attempts').selectAll().where('id', '=', minedId).executeTakeFirstOrThrow());
    });
  }

  async #statusOf(q: Queries, id: number): Promise<AttemptStatus | undefined> {
    return (await q.selectFrom('attempts').select('status').where('id', '=', id).executeTakeFirst())?.status;
  }

  /** The hash a fork node gave an impersonated transaction, when it is not the one computed before sending. */
  async correctHash(id: number, hash: Hex, now = Date.now()): Promise<void> {
    await this.#ledger.db
      .updateTable('attempts')
      .set({ hash: stored(hash), updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** The attempt with this transaction hash, of any trade. */
  async byHash(hash: Hex): Promise<Attempt | undefined> {
    const row = await this.#ledger.db.selectFrom('attempts').selectAll().where('hash', '=', stored(hash)).executeTakeFirst();
    return row && attemptFrom(row);
  }

  /** Every attempt signed after `afterMs` (its created time), in the order they were recorded. */
  async signedSince(afterMs: number): Promise<Attempt[]> {
    const rows = await this.#ledger.db.selectFrom('attempts').selectAll().where('created_at', '>', afterMs).orderBy('id').execute();
    return rows.map(attemptFrom);
  }

  /** A trade's attempts in the order they were signed. */
  async ofTrade(intentId: string): Promise<Attempt[]> {
    return (await this.#ledger.db.selectFrom('attempts').selectAll().where('intent_id', '=', intentId).orderBy('id').execute()).map(attemptFrom);
  }

  /** Gas paid in wei by the mined (or reverted) transactions of each trade: approvals and cancellations included. */
  async gasByTrade(): Promise<Map<string, bigint>> {
    const rows = await this.#ledger.db
      .selectFrom('attempts')
      .select(['intent_id', 'gas_used', 'effective_gas_price'])
      .where('status', 'in', ['mined', 'reverted'])
      .execute();
    const gas = new Map<string, bigint>();
    for (const row of rows) gas.set(row.intent_id, (gas.get(row.intent_id) ?? 0n) + BigInt(row.gas_used ?? '0') * BigInt(row.effective_gas_price ?? '0'));
    return gas;
  }

  /** Gas paid in wei by the mined (or reverted) transactions of these trades (those that paid any). */
  async gasOf(intentIds: readonly string[]): Promise<Map<string, bigint>> {
    const gas = new Map<string, bigint>();
    for (let start = 0; start < intentIds.length; start += 500) {
      const rows = await this.#ledger.db
        .selectFrom('attempts')
        .select(['intent_id', 'gas_used', 'effective_gas_price'])
        .where('intent_id', 'in', intentIds.slice(start, start + 500))
        .where('status', 'in', ['mined', 'reverted'])
        .execute();
      for (const row of rows) gas.set(row.intent_id, (gas.get(row.intent_id) ?? 0n) + BigInt(row.gas_used ?? '0') * BigInt(row.effective_gas_price ?? '0'));
    }
    return gas;
  }

  /** Every attempt of the wallet on the chain at or above `fromNonce`, by nonce, then as signed. */
  async ofWallet(wallet: Address, chainId: number, fromNonce: number): Promise<Attempt[]> {
    const rows = await this.#ledger.db
      .selectFrom('attempts')
      .selectAll()
      .where('wallet', '=', stored(wallet))
      .where('chain_id', '=', chainId)
      .where('nonce', '>=', fromNonce)
      .orderBy('nonce')
      .orderBy('id')
      .execute();
    return rows.map(attemptFrom);
  }

  /**
   * Where this ledger's record of the wallet's signatures starts (see trade/signed-history.ts): the nonce and the
   * wallet's tag of it, as stored; undefined when none was written.
   */
  async signedFrom(wallet: Address, chainId: number): Promise<{ nonce: number; tag: Hex } | undefined> {
    const value = await this.#meta(metaKey('signed-from', wallet, chainId));
    if (value === undefined) return undefined;
    const [nonce, tag] = value.split(':');
    return { nonce: Number(nonce), tag: (tag ?? '0x') as Hex };
  }

  /** Writes where the record starts, unless one is written already (then that one is returned). */
  async startSignedFrom(wallet: Address, chainId: number, start: { nonce: number; tag: Hex }): Promise<{ nonce: number; tag: Hex }> {
    await this.#ledger.db
      .insertInto('ledger_meta')
      .values({ key: metaKey('signed-from', wallet, chainId), value: `${start.nonce}:${start.tag}` })
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute();
    return (await this.signedFrom(wallet, chainId)) as { nonce: number; tag: Hex };
  }

  /**
   * The wallet's rows last proven (see trade/signed-history.ts): through which attempt id, their digest, and the
   * wallet's tag of both; undefined when none was written.
   */
  async provenThrough(wallet: Address, chainId: number): Promise<{ throughId: number; digest: Hex; tag: Hex } | undefined> {
    const value = await this.#meta(metaKey('proven-through', wallet, chainId));
    if (value === undefined) return undefined;
    const [throughId, digest, tag] = value.split(':');
    return { throughId: Number(throughId), digest: (digest ?? '0x') as Hex, tag: (tag ?? '0x') as Hex };
  }

  /** Records the wallet's rows proven through `throughId`. */
  async setProvenThrough(wallet: Address, chainId: number, proven: { throughId: number; digest: Hex; tag: Hex }): Promise<void> {
    const value = `${proven.throughId}:${proven.digest}:${proven.tag}`;
    await this.#ledger.db
      .insertInto('ledger_meta')
      .values({ key: metaKey('proven-through', wallet, chainId), value })
      .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
      .execute();
  }

  /**
   * The last attempt id signed before each transaction was tagged as it was signed (migration 17): rows above it
   * carry a tag, or are refused. Written once by the migration; none (0) on a ledger that never had untagged rows.
   */
  async taggedAfter(): Promise<number> {
    return Number((await this.#meta('attempts-tagged-after')) ?? 0);
  }

  async #meta(key: string): Promise<string | undefined> {
    return (await this.#ledger.db.selectFrom('ledger_meta').select('value').where('key', '=', key).executeTakeFirst())?.value;
  }
}
