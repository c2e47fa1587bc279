/**
 * The ledger: every intent (one per strategy slot) and every transaction attempt, durable before and after
 * each side effect. The signed bytes of a transaction are committed before it is broadcast, so after a crash
 * the same bytes can be sent again, or their outcome adopted, and nothing is ever signed twice for a slot.
 * One process owns a ledger at a time; a lock whose owner died (or stopped beating) is taken over.
 */
import { scrub } from '../ops/secrets.ts';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Address, Hex } from 'viem';
import { ConfigError } from '../config/errors.ts';
import { RoutekeeperError } from '../errors.ts';
import type { RefusalReason } from '../guard/refusal.ts';
import { type CheckedCall, type Failure, openStates, type Settlement, type Trade, type TradeKind, type TradeRecord, type TradeState } from '../trade/types.ts';
import { migrations } from './schema.ts';

export type AttemptPurpose = 'approve' | 'trade' | 'cancel';
/** signed: stored, never sent as far as we know · broadcast: maybe in a mempool · mined · reverted · replaced · dropped */
export type AttemptStatus = 'signed' | 'broadcast' | 'mined' | 'reverted' | 'replaced' | 'dropped';

/** A stage's change to a trade: its new state and whatever that stage learnt. */
export type TradeChange = {
  status: TradeState;
  call?: CheckedCall;
  simulatedOut?: bigint;
  settlement?: Settlement;
  /** null clears an earlier failure (a trade settled after an interruption). */
  failure?: Failure | null;
  anomaly?: string;
};

export type NewAttempt = {
  intentId: string;
  purpose: AttemptPurpose;
  wallet: Address;
  chainId: number;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  gasLimit: bigint;
  rawTx: Hex;
  hash: Hex;
};

export type Attempt = NewAttempt & {
  id: number;
  status: AttemptStatus;
  blockNumber: bigint | null;
  gasUsed: bigint | null;
  effectiveGasPrice: bigint | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
};

/** A strategy or a wallet that trades no more until a person lifts the pause (`routekeeper resume`). */
export type Pause = { scope: 'strategy' | 'wallet'; key: string; reason: string; intentId?: string; pausedAt: number };

export class LedgerLockedError extends RoutekeeperError {
  override name = 'LedgerLockedError';
}

/** Which chain a ledger describes: its id, and the hash of its block 0 (two chains may share an id). */
export type ChainIdentity = { chainId: number; genesisHash: Hex };

/** How a run ended: what its trades reached, or why it traded nothing. */
export type RunOutcome = 'traded' | 'nothing' | 'refused' | 'failed' | 'unknown' | 'anomaly' | 'paused' | 'waiting' | 'dry-run' | 'skipped' | 'interrupted' | 'missed';

/** The outcome of a run whose last trade reached `status`. */
export function runOutcomeOf(status: TradeState | 'skipped'): RunOutcome {
  switch (status) {
    case 'confirmed':
      return 'traded';
    case 'refused':
    case 'failed':
    case 'unknown':
    case 'anomaly':
    case 'dry-run':
    case 'skipped':
      return status;
    default:
      return 'interrupted';
  }
}

/** One run of a strategy for one slot, as `history` shows it; `finishedAt` is missing when the process stopped mid-run. */
export type RunRecord = { id: number; strategyId: string; slot: string; startedAt: number; finishedAt?: number; outcome?: RunOutcome; note?: string };

/** A token's symbol and decimals, as its contract reported them when a strategy was resolved. */
export type TokenName = { address: Address; symbol: string; decimals: number };

/** A token's reference price as observed at a block (`token` is lower case, or 'native' for the chain's coin). */
export type PriceMark = { at: number; block: bigint; token: string; usdE18: bigint; source: string };
/** A wallet's balance of a token as observed at a block. */
export type BalanceMark = { at: number; block: bigint; wallet: Address; token: Address; balance: bigint };
/** A strategy as a daemon resolved it; `definition` is its JSON with raw amounts as strings. */
export type StrategyDescription = { id: string; kind: string; walletName: string; wallet: Address; definition: string };
export type StrategyRecord = StrategyDescription & { firstSeen: number; lastSeen: number };

/** The ledger was written on another chain than the one it is opened against. */
export class LedgerChainMismatchError extends ConfigError {
  override name = 'LedgerChainMismatchError';
}

/** A lock not refreshed for this long is taken over even if its process seems alive (hung, or another host). */
export const lockStaleAfterMs = 30_000;
const heartbeatEveryMs = 10_000;

/** JSON with bigint written as decimal strings (amounts are never JSON numbers). */
export const toJson = (value: unknown) => JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));

export class Ledger {
  readonly #db: Database.Database;
  readonly #owner: string;
  #heartbeat: NodeJS.Timeout | undefined;
  /**
   * Each statement is prepared once: a daemon with thousands of strategies runs the same few dozen statements
   * thousands of times a minute, and a statement prepared per call costs time and native memory until collected.
   */
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(db: Database.Database, owner: string) {
    this.#db = db;
    this.#owner = owner;
  }

  #sql(source: string): Database.Statement {
    let statement = this.#statements.get(source);
    if (!statement) {
      statement = this.#db.prepare(source);
      this.#statements.set(source, statement);
    }
    return statement;
  }

  /**
   * Opens (creating if needed) the ledger file and takes its lock; LedgerLockedError if a live process holds it.
   * With `chain`, the ledger is bound to that chain at its first open and refuses any other afterwards
   * (LedgerChainMismatchError), before the lock is taken.
   */
  static open(file: string, options: { owner?: string; now?: () => number; chain?: ChainIdentity } = {}): Ledger {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    // FULL: a committed signed transaction survives power loss, not only a process crash.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const ledger = new Ledger(db, options.owner ?? `${hostname()}:${process.pid}:${Date.now()}`);
    try {
      ledger.#migrate();
      if (options.chain) ledger.#bind(file, options.chain, (options.now ?? Date.now)());
      ledger.#acquireLock(options.now ?? Date.now);
    } catch (error) {
      db.close();
      throw error;
    }
    return ledger;
  }

  /** Opens an existing ledger for reading only (`history`, `check`): no lock taken, nothing written. */
  static openReadOnly(file: string): Ledger {
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw new RoutekeeperError(`no ledger at ${file}`, { cause: error });
    }
    return new Ledger(db, 'reader');
  }

  /**
   * Opens an existing ledger to change its pauses (`resume`) while a daemon may hold it: no lock is taken;
   * SQLite serializes the one write, and the daemon reads pauses afresh before every run.
   */
  static openForPauses(file: string): Ledger {
    let db: Database.Database;
    try {
      db = new Database(file, { fileMustExist: true });
    } catch (error) {
      throw new RoutekeeperError(`no ledger at ${file}`, { cause: error });
    }
    db.pragma('busy_timeout = 5000');
    const ledger = new Ledger(db, 'pauses');
    try {
      ledger.#migrate();
    } catch (error) {
      db.close();
      throw error;
    }
    return ledger;
  }

  #migrate() {
    const version = this.#db.pragma('user_version', { simple: true }) as number;
    for (let next = version; next < migrations.length; next++) {
      this.#db.transaction(() => {
        this.#db.exec(migrations[next] as string);
        this.#db.pragma(`user_version = ${next + 1}`);
      })();
    }
  }

  /** The chain this ledger was written on, once bound. */
  chain(): ChainIdentity | undefined {
    const row = this.#sql('SELECT chain_id, genesis_hash FROM chain WHERE id = 1').get() as { chain_id: number; genesis_hash: Hex } | undefined;
    return row && { chainId: row.chain_id, genesisHash: row.genesis_hash };
  }

  #bind(file: string, chain: ChainIdentity, now: number) {
    this.#db.transaction(() => {
      const bound = this.chain();
      // A ledger from before binding is bound at its first open, unless its trades name another chain id.
      const other = bound
        ? undefined
        : (this.#sql('SELECT chain_id FROM intents WHERE chain_id != ? LIMIT 1').get(chain.chainId) as { chain_id: number } | undefined);
      const mismatch = bound ? bound.chainId !== chain.chainId || bound.genesisHash.toLowerCase() !== chain.genesisHash.toLowerCase() : other !== undefined;
      if (mismatch) {
        const written = bound ? `chain ${bound.chainId} (genesis ${bound.genesisHash})` : `chain ${other?.chain_id}`;
        throw new LedgerChainMismatchError(
          `the ledger ${file} was written on ${written}, but the node is chain ${chain.chainId} (genesis ${chain.genesisHash}); its trades cannot be settled here: use another ROUTEKEEPER_DATA_DIR for this chain`,
        );
      }
      if (!bound) this.#sql('INSERT INTO chain (id, chain_id, genesis_hash, bound_at) VALUES (1, ?, ?, ?)').run(chain.chainId, chain.genesisHash, now);
    }).immediate();
  }

  /**
   * Whether a live routekeeper process holds the ledger file's lock (read without taking it): a file someone
   * holds is never deleted or reused.
   */
  static isHeld(file: string, now = Date.now()): boolean {
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
    } catch {
      return false;
    }
    try {
      const held = db.prepare('SELECT pid, host, heartbeat FROM owner_lock WHERE id = 1').get() as { pid: number; host: string; heartbeat: number } | undefined;
      return held !== undefined && now - held.heartbeat < lockStaleAfterMs && ownerAlive(held.pid, held.host);
    } catch {
      // No lock table yet: a ledger being created right now by another process.
      return true;
    } finally {
      db.close();
    }
  }

  #acquireLock(now: () => number) {
    const take = this.#db.transaction(() => {
      const held = this.#sql('SELECT owner, pid, host, heartbeat FROM owner_lock WHERE id = 1').get() as
        | { owner: string; pid: number; host: string; heartbeat: number }
        | undefined;
      if (held && held.owner !== this.#owner && now() - held.heartbeat < lockStaleAfterMs && ownerAlive(held.pid, held.host)) {
        throw new LedgerLockedError(`the ledger is in use by another routekeeper process (pid ${held.pid} on ${held.host})`, {
          details: `its lock was refreshed ${Math.round((now() - held.heartbeat) / 1000)} s ago; it is taken over once it is ${lockStaleAfterMs / 1000} s old or that process is gone`,
        });
      }
      this
        .#sql('INSERT INTO owner_lock (id, owner, pid, host, heartbeat) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, heartbeat = excluded.heartbeat')
        .run(this.#owner, process.pid, hostname(), now());
    });
    take.immediate();
    this.#heartbeat = setInterval(() => {
      this.#sql('UPDATE owner_lock SET heartbeat = ? WHERE id = 1 AND owner = ?').run(now(), this.#owner);
    }, heartbeatEveryMs);
    this.#heartbeat.unref();
  }

  /** Releases the lock and closes the file; closing twice is harmless. */
  close(): void {
    if (!this.#db.open) return;
    clearInterval(this.#heartbeat);
    if (!this.#db.readonly) this.#sql('DELETE FROM owner_lock WHERE owner = ?').run(this.#owner);
    this.#db.close();
  }

  // ------------------------------------------------------------ trades

  /** Claims the trade's slot (state `claimed`). Returns undefined when the slot already has a trade: it must not run again. */
  claim(trade: Trade, now = Date.now()): TradeRecord | undefined {
    const inserted = this
      .#sql(
        `INSERT INTO intents (id, strategy_id, slot, kind, wallet, chain_id, token_in, token_out, amount_in, slippage_bps, min_amount_out, status, created_at, updated_at)
         VALUES (@id, @strategyId, @slot, @kind, @wallet, @chainId, @tokenIn, @tokenOut, @amountIn, @slippageBps, @minAmountOut, 'claimed', @now, @now)
         ON CONFLICT(id) DO NOTHING`,
      )
      .run({
        id: trade.id,
        strategyId: trade.strategyId,
        slot: trade.slot,
        kind: trade.kind,
        wallet: trade.wallet,
        chainId: trade.chainId,
        tokenIn: trade.tokenIn,
        tokenOut: trade.tokenOut,
        amountIn: trade.amountIn.toString(),
        slippageBps: trade.slippageBps,
        minAmountOut: trade.kind === 'swap' ? (trade.minAmountOut?.toString() ?? null) : null,
        now,
      });
    return inserted.changes === 1 ? this.getIntent(trade.id) : undefined;
  }

  getIntent(id: string): TradeRecord | undefined {
    const row = this.#sql('SELECT * FROM intents WHERE id = ?').get(id) as IntentRow | undefined;
    return row && recordFrom(row);
  }

  /** Moves a trade to its next state, with what the stage learnt (fields not given keep their value). */
  advance(id: string, change: TradeChange, now = Date.now()): void {
    const { call, settlement, failure } = change;
    const big = (value: bigint | undefined) => (value === undefined ? null : value.toString());
    const values: Record<string, string | number | null> = {
      status: change.status,
      updated_at: now,
      ...(call && {
        target: call.target,
        spender: call.spender ?? null,
        call_data: call.data,
        router: call.router ?? null,
        farm: call.farm ?? null,
        expected_out: big(call.expectedOut),
        min_out: big(call.minOut),
        reference_out: big(call.referenceOut),
        deadline: big(call.deadline),
      }),
      ...(change.simulatedOut !== undefined && { simulated_out: big(change.simulatedOut) }),
      ...(settlement && {
        tx_hash: settlement.txHash,
        block_number: Number(settlement.blockNumber),
        gas_used: big(settlement.gasUsed),
        effective_gas_price: big(settlement.effectiveGasPrice),
        amount_out: big(settlement.amountOut),
        reported_out: big(settlement.reportedOut),
        partner_fee: big(settlement.partnerFee),
      }),
      ...(failure !== undefined && {
        reason: failure ? scrub(failure.reason) : null,
        refusal: failure?.refusal ?? null,
        error_class: failure?.errorClass ?? null,
        retryable: failure?.retryable ? 1 : 0,
      }),
      ...(change.anomaly !== undefined && { anomaly: scrub(change.anomaly) }),
    };
    const sets = Object.keys(values).map((column) => `${column} = @${column}`);
    this.#sql(`UPDATE intents SET ${sets.join(', ')} WHERE id = @id`).run({ ...values, id });
  }

  /** Trades whose fate is not settled: they are resumed (or settled with the chain) before anything new runs. */
  unfinishedIntents(): TradeRecord[] {
    const open = openStates.map((state) => `'${state}'`).join(', ');
    return (this.#sql(`SELECT * FROM intents WHERE status IN (${open}) ORDER BY created_at`).all() as IntentRow[]).map(recordFrom);
  }

  /** A strategy's trades in one of these states, oldest first. */
  tradesOf(strategyId: string, states: readonly TradeState[]): TradeRecord[] {
    const list = states.map((state) => `'${state}'`).join(', ');
    return (this.#sql(`SELECT * FROM intents WHERE strategy_id = ? AND status IN (${list}) ORDER BY created_at`).all(strategyId) as IntentRow[]).map(recordFrom);
  }

  /**
   * Raw amount of `tokenIn` committed since `since` (ms) by trades that traded or may still trade, but `excludeId`:
   * everything checked, signed, sent, confirmed or anomalous. Refused, failed and dry-run trades spent nothing, and a
   * trade still being quoted (claimed, quoted) has not passed its budget yet: it commits when it is checked.
   */
  spentSince(filter: { strategyId?: string; wallet?: Address; tokenIn: Address; since: number; excludeId?: string }): bigint {
    const rows = this
      .#sql(
        `SELECT amount_in FROM intents
         WHERE status NOT IN ('claimed', 'quoted', 'refused', 'failed', 'dry-run') AND lower(token_in) = lower(@tokenIn) AND created_at >= @since
           AND (@strategyId IS NULL OR strategy_id = @strategyId) AND (@wallet IS NULL OR lower(wallet) = lower(@wallet))
           AND (@excludeId IS NULL OR id != @excludeId)`,
      )
      .all({ tokenIn: filter.tokenIn, since: filter.since, strategyId: filter.strategyId ?? null, wallet: filter.wallet ?? null, excludeId: filter.excludeId ?? null }) as {
      amount_in: string;
    }[];
    return rows.reduce((sum, row) => sum + BigInt(row.amount_in), 0n);
  }

  history(options: { limit?: number; strategyId?: string } = {}): TradeRecord[] {
    return (
      this
        .#sql('SELECT * FROM intents WHERE (@strategyId IS NULL OR strategy_id = @strategyId) ORDER BY created_at DESC, rowid DESC LIMIT @limit')
        .all({ strategyId: options.strategyId ?? null, limit: options.limit ?? 100 }) as IntentRow[]
    ).map(recordFrom);
  }

  // ------------------------------------------------------------ attempts

  /**
   * Stores signed transactions (status `signed`) before any is broadcast, and moves their trade to `signed`,
   * in one database transaction: a trade is never `signed` without its bytes, nor has bytes while `checked`.
   */
  addAttempts(attempts: readonly NewAttempt[], now = Date.now()): Attempt[] {
    const insert = this.#sql(
      `INSERT INTO attempts (intent_id, purpose, wallet, chain_id, nonce, max_fee_per_gas, max_priority_fee_per_gas, gas_limit, raw_tx, hash, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'signed', ?, ?)`,
    );
    const promote = this.#sql(`UPDATE intents SET status = 'signed', updated_at = ? WHERE id = ? AND status IN ('claimed', 'quoted', 'checked')`);
    const ids = this.#db.transaction(() =>
      attempts.map((attempt) => {
        promote.run(now, attempt.intentId);
        const { lastInsertRowid } = insert.run(
          attempt.intentId,
          attempt.purpose,
          attempt.wallet,
          attempt.chainId,
          attempt.nonce,
          attempt.maxFeePerGas.toString(),
          attempt.maxPriorityFeePerGas.toString(),
          attempt.gasLimit.toString(),
          attempt.rawTx,
          attempt.hash,
          now,
          now,
        );
        return Number(lastInsertRowid);
      }),
    )();
    return ids.map((id) => this.#attempt(id));
  }

  /** The hash a fork node gave an impersonated transaction, when it is not the one computed before sending. */
  updateAttemptHash(id: number, hash: Hex, now = Date.now()): void {
    this.#sql('UPDATE attempts SET hash = ?, updated_at = ? WHERE id = ?').run(hash, now, id);
  }

  updateAttempt(
    id: number,
    change: { status: AttemptStatus; blockNumber?: bigint; gasUsed?: bigint; effectiveGasPrice?: bigint; error?: string },
    now = Date.now(),
  ): void {
    this
      .#sql(
        `UPDATE attempts SET status = @status, updated_at = @now,
           block_number = COALESCE(@blockNumber, block_number), gas_used = COALESCE(@gasUsed, gas_used),
           effective_gas_price = COALESCE(@effectiveGasPrice, effective_gas_price), error = COALESCE(@error, error)
         WHERE id = @id`,
      )
      .run({
        id,
        now,
        status: change.status,
        blockNumber: change.blockNumber === undefined ? null : Number(change.blockNumber),
        gasUsed: change.gasUsed?.toString() ?? null,
        effectiveGasPrice: change.effectiveGasPrice?.toString() ?? null,
        error: change.error ?? null,
      });
  }

  /** The attempt with this transaction hash, of any trade. */
  attemptByHash(hash: Hex): Attempt | undefined {
    const row = this.#sql('SELECT * FROM attempts WHERE lower(hash) = lower(?)').get(hash) as AttemptRow | undefined;
    return row && attemptFrom(row);
  }

  attemptsOf(intentId: string): Attempt[] {
    return (this.#sql('SELECT * FROM attempts WHERE intent_id = ? ORDER BY id').all(intentId) as AttemptRow[]).map(attemptFrom);
  }

  /** The highest nonce this ledger signed for the wallet on the chain, leaving out transactions the node never took. */
  highestNonce(wallet: Address, chainId: number): number | undefined {
    const row = this.#sql(`SELECT MAX(nonce) AS nonce FROM attempts WHERE lower(wallet) = lower(?) AND chain_id = ? AND status != 'dropped'`).get(wallet, chainId) as {
      nonce: number | null;
    };
    return row.nonce ?? undefined;
  }

  #attempt(id: number): Attempt {
    return attemptFrom(this.#sql('SELECT * FROM attempts WHERE id = ?').get(id) as AttemptRow);
  }

  // ------------------------------------------------------------ events

  /** Pauses a strategy or a wallet (a wallet by its address); a pause already in place keeps its first reason. */
  pause(pause: Omit<Pause, 'pausedAt'>, now = Date.now()): void {
    this
      .#sql('INSERT OR IGNORE INTO pauses (scope, key, reason, intent_id, paused_at) VALUES (?, ?, ?, ?, ?)')
      .run(pause.scope, pauseKey(pause.scope, pause.key), scrub(pause.reason), pause.intentId ?? null, now);
  }

  /** The pauses that stop a trade of this strategy from this wallet. */
  pausesFor(strategyId: string, wallet: Address): Pause[] {
    return this.pauses().filter((pause) => (pause.scope === 'strategy' ? pause.key === strategyId : pause.key === wallet.toLowerCase()));
  }

  pauses(): Pause[] {
    const rows = this.#sql('SELECT * FROM pauses ORDER BY paused_at').all() as { scope: Pause['scope']; key: string; reason: string; intent_id: string | null; paused_at: number }[];
    return rows.map((row) => ({ scope: row.scope, key: row.key, reason: row.reason, pausedAt: row.paused_at, ...(row.intent_id && { intentId: row.intent_id }) }));
  }

  /** Lifts a pause; false when there was none. */
  resume(scope: Pause['scope'], key: string): boolean {
    return this.#sql('DELETE FROM pauses WHERE scope = ? AND key = ?').run(scope, pauseKey(scope, key)).changes === 1;
  }

  // ------------------------------------------------------------ runs and token names

  /** Records that a run started (before it looks at anything), so a run the process did not finish still shows. */
  startRun(strategyId: string, slot: string, now = Date.now()): number {
    return Number(this.#sql('INSERT INTO runs (strategy_id, slot, started_at) VALUES (?, ?, ?)').run(strategyId, slot, now).lastInsertRowid);
  }

  /** A slot that did not run (it could not start in time): a run that started and finished at once, `missed`, with why. */
  missedRun(strategyId: string, slot: string, why: string, now = Date.now()): void {
    this.#sql("INSERT INTO runs (strategy_id, slot, started_at, finished_at, outcome, note) VALUES (?, ?, ?, ?, 'missed', ?)").run(strategyId, slot, now, now, scrub(why));
  }

  finishRun(id: number, outcome: RunOutcome, note: string, now = Date.now()): void {
    this.#sql('UPDATE runs SET finished_at = ?, outcome = ?, note = ? WHERE id = ?').run(now, outcome, scrub(note), id);
  }

  /**
   * Whether the file predates migration 5 (runs and token names). A reader opened on a ledger that an older
   * version wrote (and no daemon migrated since) sees no runs and no names rather than failing.
   */
  #withoutRuns(): boolean {
    return this.#version() < 5;
  }

  /** Whether the file predates migration 6 (prices, balances and strategies): a reader sees none of them. */
  #withoutMarks(): boolean {
    return this.#version() < 6;
  }

  #version(): number {
    return this.#db.pragma('user_version', { simple: true }) as number;
  }

  /** Runs, newest first. */
  runs(options: { limit?: number; strategyId?: string } = {}): RunRecord[] {
    if (this.#withoutRuns()) return [];
    const rows = this
      .#sql('SELECT * FROM runs WHERE (@strategyId IS NULL OR strategy_id = @strategyId) ORDER BY started_at DESC, id DESC LIMIT @limit')
      .all({ strategyId: options.strategyId ?? null, limit: options.limit ?? 100 }) as {
      id: number;
      strategy_id: string;
      slot: string;
      started_at: number;
      finished_at: number | null;
      outcome: RunOutcome | null;
      note: string | null;
    }[];
    return rows.map((row) => ({
      id: row.id,
      strategyId: row.strategy_id,
      slot: row.slot,
      startedAt: row.started_at,
      ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
      ...(row.outcome === null ? {} : { outcome: row.outcome }),
      ...(row.note === null ? {} : { note: row.note }),
    }));
  }

  /** Whether a run of this strategy and slot was recorded. */
  hasRun(strategyId: string, slot: string): boolean {
    if (this.#withoutRuns()) return false;
    return this.#sql('SELECT 1 FROM runs WHERE strategy_id = ? AND slot = ? LIMIT 1').get(strategyId, slot) !== undefined;
  }

  /** The trades of one run: its strategy's intents whose slot is the run's slot and a trade key (`<slot>#<key>`). */
  tradesOfRun(strategyId: string, slot: string): TradeRecord[] {
    return (
      this
        .#sql("SELECT * FROM intents WHERE strategy_id = ? AND substr(slot, 1, length(?) + 1) = ? || '#' ORDER BY created_at, rowid")
        .all(strategyId, slot, slot) as IntentRow[]
    ).map(recordFrom);
  }

  /** Remembers tokens' symbols and decimals, so amounts read back in human units. */
  nameTokens(tokens: readonly TokenName[]): void {
    const upsert = this.#sql('INSERT INTO tokens (address, symbol, decimals) VALUES (?, ?, ?) ON CONFLICT(address) DO UPDATE SET symbol = excluded.symbol, decimals = excluded.decimals');
    this.#db.transaction(() => {
      for (const token of tokens) upsert.run(token.address.toLowerCase(), token.symbol, token.decimals);
    })();
  }

  tokenNames(): TokenName[] {
    if (this.#withoutRuns()) return [];
    return this.#sql('SELECT address, symbol, decimals FROM tokens').all() as TokenName[];
  }

  // ------------------------------------------------------------ valuations and strategies

  /**
   * Records observed reference prices and balances, each only when it differs from the last one recorded for
   * its token (and wallet): a flat market adds no rows. Returns how many rows were written.
   */
  recordMarks(prices: readonly PriceMark[], balances: readonly BalanceMark[]): number {
    const lastPrice = this.#sql('SELECT usd_e18 FROM prices WHERE token = ? ORDER BY at DESC, rowid DESC LIMIT 1').pluck();
    const lastBalance = this.#sql('SELECT balance FROM balances WHERE wallet = ? AND token = ? ORDER BY at DESC, rowid DESC LIMIT 1').pluck();
    const insertPrice = this.#sql('INSERT INTO prices (at, block, token, usd_e18, source) VALUES (?, ?, ?, ?, ?)');
    const insertBalance = this.#sql('INSERT INTO balances (at, block, wallet, token, balance) VALUES (?, ?, ?, ?, ?)');
    return this.#db.transaction(() => {
      let written = 0;
      for (const mark of prices) {
        const token = mark.token.toLowerCase();
        if (lastPrice.get(token) === mark.usdE18.toString()) continue;
        insertPrice.run(mark.at, Number(mark.block), token, mark.usdE18.toString(), mark.source);
        written++;
      }
      for (const mark of balances) {
        const [wallet, token] = [mark.wallet.toLowerCase(), mark.token.toLowerCase()];
        if (lastBalance.get(wallet, token) === mark.balance.toString()) continue;
        insertBalance.run(mark.at, Number(mark.block), wallet, token, mark.balance.toString());
        written++;
      }
      return written;
    })();
  }

  /** Every recorded reference price, oldest first (token addresses in lower case). */
  priceMarks(): PriceMark[] {
    if (this.#withoutMarks()) return [];
    const rows = this.#sql('SELECT at, block, token, usd_e18, source FROM prices ORDER BY at, rowid').all() as { at: number; block: number; token: string; usd_e18: string; source: string }[];
    return rows.map((row) => ({ at: row.at, block: BigInt(row.block), token: row.token, usdE18: BigInt(row.usd_e18), source: row.source }));
  }

  /** Every recorded balance of a wallet, oldest first. */
  balanceMarks(wallet: Address): BalanceMark[] {
    if (this.#withoutMarks()) return [];
    const rows = this.#sql('SELECT at, block, wallet, token, balance FROM balances WHERE wallet = ? ORDER BY at, rowid').all(wallet.toLowerCase()) as {
      at: number;
      block: number;
      wallet: Address;
      token: Address;
      balance: string;
    }[];
    return rows.map((row) => ({ at: row.at, block: BigInt(row.block), wallet: row.wallet, token: row.token, balance: BigInt(row.balance) }));
  }

  /** Records the strategies a daemon starts with, as resolved; strategies no longer in the file keep their row. */
  describeStrategies(strategies: readonly StrategyDescription[], now = Date.now()): void {
    const upsert = this.#sql(
      `INSERT INTO strategies (id, kind, wallet_name, wallet, definition, first_seen, last_seen) VALUES (@id, @kind, @walletName, @wallet, @definition, @now, @now)
       ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, wallet_name = excluded.wallet_name, wallet = excluded.wallet, definition = excluded.definition, last_seen = excluded.last_seen`,
    );
    this.#db.transaction(() => {
      for (const strategy of strategies) upsert.run({ ...strategy, wallet: strategy.wallet.toLowerCase(), now });
    })();
  }

  /** The strategies daemons started with, oldest first. */
  strategyDescriptions(): StrategyRecord[] {
    if (this.#withoutMarks()) return [];
    const rows = this.#sql('SELECT * FROM strategies ORDER BY first_seen, id').all() as {
      id: string;
      kind: string;
      wallet_name: string;
      wallet: Address;
      definition: string;
      first_seen: number;
      last_seen: number;
    }[];
    return rows.map((row) => ({ id: row.id, kind: row.kind, walletName: row.wallet_name, wallet: row.wallet, definition: row.definition, firstSeen: row.first_seen, lastSeen: row.last_seen }));
  }

  setMeta(key: string, value: string): void {
    this.#sql('INSERT INTO ledger_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  meta(key: string): string | undefined {
    if (this.#withoutMarks()) return undefined;
    return this.#sql('SELECT value FROM ledger_meta WHERE key = ?').pluck().get(key) as string | undefined;
  }

  /** Every trade of the ledger, oldest first (accounting reads them all). */
  allTrades(strategyId?: string): TradeRecord[] {
    return (this.#sql('SELECT * FROM intents WHERE (@strategyId IS NULL OR strategy_id = @strategyId) ORDER BY created_at, rowid').all({ strategyId: strategyId ?? null }) as IntentRow[]).map(recordFrom);
  }

  /** Gas paid in wei by the mined (or reverted) transactions of each trade: approvals and cancellations included. */
  gasByTrade(): Map<string, bigint> {
    const rows = this.#sql("SELECT intent_id, gas_used, effective_gas_price FROM attempts WHERE status IN ('mined', 'reverted')").all() as {
      intent_id: string;
      gas_used: string | null;
      effective_gas_price: string | null;
    }[];
    const gas = new Map<string, bigint>();
    for (const row of rows) gas.set(row.intent_id, (gas.get(row.intent_id) ?? 0n) + BigInt(row.gas_used ?? '0') * BigInt(row.effective_gas_price ?? '0'));
    return gas;
  }

  /** How many runs each strategy had, by outcome. */
  runCounts(): { strategyId: string; outcome: RunOutcome | 'interrupted'; count: number }[] {
    if (this.#withoutRuns()) return [];
    return (
      this.#sql("SELECT strategy_id, COALESCE(outcome, 'interrupted') AS outcome, COUNT(*) AS count FROM runs GROUP BY strategy_id, outcome").all() as {
        strategy_id: string;
        outcome: RunOutcome;
        count: number;
      }[]
    ).map((row) => ({ strategyId: row.strategy_id, outcome: row.outcome, count: row.count }));
  }

  /** A notable decision or observation (replacement, cancellation, a nonce used elsewhere…). */
  recordEvent(kind: string, details: unknown, intentId?: string, now = Date.now()): void {
    this.#sql('INSERT INTO events (at, kind, intent_id, details) VALUES (?, ?, ?, ?)').run(now, kind, intentId ?? null, scrub(toJson(details)));
  }

  events(intentId?: string): { at: number; kind: string; intentId: string | null; details: unknown }[] {
    const rows = this.#sql('SELECT * FROM events WHERE (@intentId IS NULL OR intent_id = @intentId) ORDER BY id').all({ intentId: intentId ?? null }) as {
      at: number;
      kind: string;
      intent_id: string | null;
      details: string;
    }[];
    return rows.map((row) => ({ at: row.at, kind: row.kind, intentId: row.intent_id, details: JSON.parse(row.details) }));
  }
}

type IntentRow = {
  id: string;
  strategy_id: string;
  slot: string;
  kind: TradeKind;
  wallet: Address;
  chain_id: number;
  token_in: Address;
  token_out: Address;
  amount_in: string;
  slippage_bps: number;
  min_amount_out: string | null;
  status: TradeState;
  target: Address | null;
  spender: Address | null;
  call_data: Hex | null;
  router: Address | null;
  farm: Address | null;
  expected_out: string | null;
  min_out: string | null;
  deadline: string | null;
  simulated_out: string | null;
  reference_out: string | null;
  amount_out: string | null;
  reported_out: string | null;
  /** Missing in ledgers before migration 6, read by an older reader. */
  partner_fee?: string | null;
  tx_hash: Hex | null;
  block_number: number | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  reason: string | null;
  refusal: RefusalReason | null;
  error_class: string | null;
  retryable: number;
  anomaly: string | null;
  created_at: number;
  updated_at: number;
};

type AttemptRow = {
  id: number;
  intent_id: string;
  purpose: AttemptPurpose;
  wallet: Address;
  chain_id: number;
  nonce: number;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  gas_limit: string;
  raw_tx: Hex;
  hash: Hex;
  status: AttemptStatus;
  block_number: number | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
};

const bigOrUndefined = (value: string | null) => (value === null ? undefined : BigInt(value));

function recordFrom(row: IntentRow): TradeRecord {
  const trade = {
    id: row.id,
    strategyId: row.strategy_id,
    slot: row.slot,
    wallet: row.wallet,
    chainId: row.chain_id,
    tokenIn: row.token_in,
    tokenOut: row.token_out,
    amountIn: BigInt(row.amount_in),
    slippageBps: row.slippage_bps,
  };
  const minAmountOut = bigOrUndefined(row.min_amount_out);
  const typed: Trade = row.kind === 'swap' ? { ...trade, kind: 'swap', ...(minAmountOut !== undefined && { minAmountOut }) } : { ...trade, kind: row.kind };
  const call: CheckedCall | undefined =
    row.target && row.call_data && row.expected_out !== null && row.min_out !== null
      ? {
          target: row.target,
          data: row.call_data,
          expectedOut: BigInt(row.expected_out),
          minOut: BigInt(row.min_out),
          ...(row.reference_out !== null && { referenceOut: BigInt(row.reference_out) }),
          ...(row.spender && { spender: row.spender }),
          ...(row.deadline !== null && { deadline: BigInt(row.deadline) }),
          ...(row.router && { router: row.router }),
          ...(row.farm && { farm: row.farm }),
        }
      : undefined;
  const settlement: Settlement | undefined =
    row.tx_hash && row.block_number !== null && row.gas_used !== null && row.effective_gas_price !== null
      ? {
          txHash: row.tx_hash,
          blockNumber: BigInt(row.block_number),
          gasUsed: BigInt(row.gas_used),
          effectiveGasPrice: BigInt(row.effective_gas_price),
          amountOut: bigOrUndefined(row.amount_out),
          reportedOut: bigOrUndefined(row.reported_out),
          partnerFee: bigOrUndefined(row.partner_fee ?? null),
        }
      : undefined;
  const failure: Failure | undefined =
    row.reason === null
      ? undefined
      : { reason: row.reason, retryable: row.retryable === 1, ...(row.refusal && { refusal: row.refusal }), ...(row.error_class && { errorClass: row.error_class }) };
  return {
    ...typed,
    status: row.status,
    ...(call && { call }),
    ...(row.simulated_out !== null && { simulatedOut: BigInt(row.simulated_out) }),
    ...(settlement && { settlement }),
    ...(failure && { failure }),
    ...(row.anomaly !== null && { anomaly: row.anomaly }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function attemptFrom(row: AttemptRow): Attempt {
  const big = (value: string | null) => (value === null ? null : BigInt(value));
  return {
    id: row.id,
    intentId: row.intent_id,
    purpose: row.purpose,
    wallet: row.wallet,
    chainId: row.chain_id,
    nonce: row.nonce,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    gasLimit: BigInt(row.gas_limit),
    rawTx: row.raw_tx,
    hash: row.hash,
    status: row.status,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    gasUsed: big(row.gas_used),
    effectiveGasPrice: big(row.effective_gas_price),
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Whether the lock's process still runs; on another host we cannot tell, so the heartbeat decides. */
function ownerAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pauseKey = (scope: Pause['scope'], key: string) => (scope === 'wallet' ? key.toLowerCase() : key);
