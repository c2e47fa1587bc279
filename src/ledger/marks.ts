/**
 * What the user's money is worth over time: the reference prices and wallet balances the daemon observed (a row
 * only when a value changed), and the symbols and decimals of the tokens trades name.
 */
import type { Address } from 'viem';
import type { LedgerDatabase } from './database.ts';
import { stored } from './rows.ts';

/** A token's symbol and decimals, as its contract reported them when a strategy was resolved. */
export type TokenName = { address: Address; symbol: string; decimals: number };
/** A token's reference price as observed at a block (`token` is lower case, or 'native' for the chain's coin). */
export type PriceMark = { at: number; block: bigint; token: string; usdE18: bigint; source: string };
/** A wallet's balance of a token as observed at a block. */
export type BalanceMark = { at: number; block: bigint; wallet: Address; token: Address; balance: bigint };
/** A V3 position as a run of its strategy observed it (ledger/tables.ts PositionMarksTable). */
export type PositionMark = {
  at: number;
  block: bigint;
  /** The block's timestamp, in seconds. */
  blockTime: number;
  strategyId: string;
  positionId: bigint;
  tickLower: number;
  tickUpper: number;
  tick: number;
  amount0: bigint;
  amount1: bigint;
  secondsInside?: number;
  /** Of `amount0` and `amount1`, what the position owed in fees (none: not recorded, a mark of an older build). */
  fees?: { amount0: bigint; amount1: bigint };
};

export class MarkStore {
  readonly #ledger: LedgerDatabase;
  /** False on a ledger from before marks (or, with `names`, token names; `positions`, position marks) were recorded, read without migrating. */
  readonly #present: { marks: boolean; names: boolean; positions: boolean };

  constructor(ledger: LedgerDatabase, present: { marks: boolean; names: boolean; positions: boolean }) {
    this.#ledger = ledger;
    this.#present = present;
  }

  /** Remembers tokens' symbols and decimals, so amounts read back in human units. */
  async nameTokens(tokens: readonly TokenName[]): Promise<void> {
    // Once per address: one statement may not update a row twice (PostgreSQL refuses it), and the last name wins.
    const rows = [
      ...new Map(tokens.map((token) => [stored(token.address), { address: stored(token.address), symbol: token.symbol, decimals: token.decimals }])).values(),
    ];
    if (rows.length === 0) return;
    await this.#ledger.db
      .insertInto('tokens')
      .values(rows)
      .onConflict((conflict) => conflict.column('address').doUpdateSet((eb) => ({ symbol: eb.ref('excluded.symbol'), decimals: eb.ref('excluded.decimals') })))
      .execute();
  }

  async tokenNames(): Promise<TokenName[]> {
    if (!this.#present.names) return [];
    return this.#ledger.db.selectFrom('tokens').select(['address', 'symbol', 'decimals']).execute();
  }

  /**
   * Records observed reference prices and balances, each only when it differs from the last one recorded for
   * its token (and wallet): a flat market adds no rows. Returns how many rows were written.
   */
  recordMarks(prices: readonly PriceMark[], balances: readonly BalanceMark[]): Promise<number> {
    return this.#ledger.transaction(async (q) => {
      let written = 0;
      for (const mark of prices) {
        const token = mark.token.toLowerCase();
        const last = await q
          .selectFrom('prices')
          .select('usd_e18')
          .where('token', '=', token)
          .orderBy('at', 'desc')
          .orderBy(this.#ledger.insertionOrder, 'desc')
          .limit(1)
          .executeTakeFirst();
        if (last?.usd_e18 === mark.usdE18.toString()) continue;
        await q
          .insertInto('prices')
          .values({ at: mark.at, block: Number(mark.block), token, usd_e18: mark.usdE18.toString(), source: mark.source })
          .execute();
        written++;
      }
      for (const mark of balances) {
        const [wallet, token] = [stored(mark.wallet), stored(mark.token)];
        const last = await q
          .selectFrom('balances')
          .select('balance')
          .where('wallet', '=', wallet)
          .where('token', '=', token)
          .orderBy('at', 'desc')
          .orderBy(this.#ledger.insertionOrder, 'desc')
          .limit(1)
          .executeTakeFirst();
        if (last?.balance === mark.balance.toString()) continue;
        await q
          .insertInto('balances')
          .values({ at: mark.at, block: Number(mark.block), wallet, token, balance: mark.balance.toString() })
          .execute();
        written++;
      }
      return written;
    });
  }

  /**
   * Every recorded reference price, oldest first (token addresses in lower case); with `after`, those recorded later
   * than that time (a mark's prices and balances are written together, at one time).
   */
  async prices(after?: number): Promise<PriceMark[]> {
    if (!this.#present.marks) return [];
    let query = this.#ledger.db.selectFrom('prices').selectAll();
    if (after !== undefined) query = query.where('at', '>', after);
    const rows = await query.orderBy('at').orderBy(this.#ledger.insertionOrder).execute();
    return rows.map((row) => ({ at: row.at, block: BigInt(row.block), token: row.token, usdE18: BigInt(row.usd_e18), source: row.source }));
  }

  /** Records a V3 position as a run observed it. */
  async recordPosition(mark: PositionMark): Promise<void> {
    await this.#ledger.db
      .insertInto('position_marks')
      .values({
        at: mark.at,
        block: Number(mark.block),
        block_time: mark.blockTime,
        strategy_id: mark.strategyId,
        position_id: mark.positionId.toString(),
        tick_lower: mark.tickLower,
        tick_upper: mark.tickUpper,
        tick: mark.tick,
        amount0: mark.amount0.toString(),
        amount1: mark.amount1.toString(),
        seconds_inside: mark.secondsInside ?? null,
        fees0: mark.fees?.amount0.toString() ?? null,
        fees1: mark.fees?.amount1.toString() ?? null,
      })
      .execute();
  }

  /** Every recorded position mark, oldest first; with `after`, those recorded later than that time. */
  async positionMarks(after?: number): Promise<PositionMark[]> {
    if (!this.#present.positions) return [];
    let query = this.#ledger.db.selectFrom('position_marks').selectAll();
    if (after !== undefined) query = query.where('at', '>', after);
    const rows = await query.orderBy('at').orderBy(this.#ledger.insertionOrder).execute();
    return rows.map((row) => ({
      at: Number(row.at),
      block: BigInt(row.block),
      blockTime: Number(row.block_time),
      strategyId: row.strategy_id,
      positionId: BigInt(row.position_id),
      tickLower: row.tick_lower,
      tickUpper: row.tick_upper,
      tick: row.tick,
      amount0: BigInt(row.amount0),
      amount1: BigInt(row.amount1),
      ...(row.seconds_inside !== null && { secondsInside: Number(row.seconds_inside) }),
      ...(row.fees0 != null && row.fees1 != null && { fees: { amount0: BigInt(row.fees0), amount1: BigInt(row.fees1) } }),
    }));
  }

  /** A wallet's balance of a token as last recorded at or before `at` (ms). */
  async balanceAt(wallet: Address, token: Address, at: number): Promise<BalanceMark | undefined> {
    if (!this.#present.marks) return undefined;
    const row = await this.#ledger.db
      .selectFrom('balances')
      .selectAll()
      .where('wallet', '=', stored(wallet))
      .where('token', '=', stored(token))
      .where('at', '<=', at)
      .orderBy('at', 'desc')
      .orderBy(this.#ledger.insertionOrder, 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { at: row.at, block: BigInt(row.block), wallet: row.wallet, token: row.token, balance: BigInt(row.balance) };
  }

  /** Every recorded balance, oldest first, by wallet (lower case); with `after`, those recorded later than that time. */
  async balances(after?: number): Promise<Map<string, BalanceMark[]>> {
    const byWallet = new Map<string, BalanceMark[]>();
    if (!this.#present.marks) return byWallet;
    let query = this.#ledger.db.selectFrom('balances').selectAll();
    if (after !== undefined) query = query.where('at', '>', after);
    const rows = await query.orderBy('at').orderBy(this.#ledger.insertionOrder).execute();
    for (const row of rows) {
      const list = byWallet.get(row.wallet) ?? [];
      list.push({ at: row.at, block: BigInt(row.block), wallet: row.wallet, token: row.token, balance: BigInt(row.balance) });
      byWallet.set(row.wallet, list);
    }
    return byWallet;
  }
}
