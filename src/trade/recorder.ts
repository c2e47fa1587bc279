/**
 * The only writer of a trade's record: the trade itself, its attempts, its events and the pauses it causes. Each
 * method is one step of the pipeline, written in one database transaction by the ledger's stores; the chain layer
 * reports its facts here through `journal` (chain/journal.ts) and holds no ledger. Everything else reads.
 */
import type { Address, Hex } from 'viem';
import type { ChainFact, TxJournal } from '../chain/journal.ts';
import type { Fence } from '../model/attempt.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { TradePause, WalletRows } from '../ledger/trades.ts';
import type { CheckedCall, Failure, Settlement, Trade, TradeRecord } from '../model/trade.ts';

export class TradeRecorder {
  readonly #ledger: Ledger;
  /** What the chain layer keeps and reports of a wallet's transactions. */
  readonly journal: TxJournal;

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
    this.journal = {
      attemptsOf: (intentId) => ledger.attempts.ofTrade(intentId),
      attemptByHash: (hash) => ledger.attempts.byHash(hash),
      signed: (attempts, fence) => ledger.trades.recordSigned(attempts, { fence }),
      sending: (attempt) => ledger.attempts.update(attempt.id, { status: 'broadcast' }),
      dropped: (attempt, why) => ledger.attempts.update(attempt.id, { status: 'dropped', error: why }),
      renamed: (attempt, hash) => ledger.attempts.correctHash(attempt.id, hash),
      nonceSettled: (mined, receipt, replaced) =>
        ledger.attempts.settleNonce(
          mined.id,
          receipt,
          replaced.map((attempt) => attempt.id),
        ),
      noted: (intentId, fact: ChainFact) => {
        const { kind, ...details } = fact;
        return ledger.events.record(kind, details, intentId);
      },
    };
  }

  /** The slot claimed, with the wallet's tag of the request; undefined when the slot already has its trade. */
  claim(trade: Trade, options: { runId?: number; now: number; requestTag: Hex }) {
    return this.#ledger.trades.claimSlot(trade, options);
  }

  /** Read back from the ledger to go on (after a restart, or to settle an unknown outcome). */
  resumed(record: TradeRecord): Promise<void> {
    return this.#ledger.events.record('resumed', { status: record.status }, record.id);
  }

  /** The call that passed every check (and its tag), committing the amount to budgets (checked by `verify`). */
  checked(
    id: string,
    checked: { call: CheckedCall; callTag: Hex; simulatedOut?: bigint; status: 'checked' | 'dry-run'; verify?: (rows: WalletRows) => Promise<void> },
  ): Promise<void> {
    return this.#ledger.trades.commitChecked(id, checked);
  }

  /** The simulation of a trade checked again after its approval was mined. */
  simulated(id: string, simulatedOut: bigint): Promise<void> {
    return this.#ledger.trades.recordSimulation(id, simulatedOut);
  }

  /** Its bytes are about to leave: from here only the chain settles it. */
  sending(id: string, fence: Fence | undefined): Promise<void> {
    return this.#ledger.trades.markBroadcast(id, { fence });
  }

  /** A nonce the node refused under a later one in flight, filled by a cancellation of this trade. */
  nonceFilled(id: string, filler: { nonce: number; hash: Hex }, why: string): Promise<void> {
    return this.#ledger.events.record('nonce-filled', { nonce: filler.nonce, by: filler.hash, why }, id);
  }

  /** Mined before the last process recorded it: its outcome adopted. */
  adopted(id: string, hash: Hex, status: string): Promise<void> {
    return this.#ledger.events.record('adopted', { hash, status }, id);
  }

  /** A route refused for one pool's state (`venue`): another is asked for without it, nothing signed. */
  routeRefused(id: string, refusal: { reason: string; venue: string; field?: string; why: string }): Promise<void> {
    return this.#ledger.events.record('route-refused', refusal, id);
  }

  /** A guard said no; nothing was signed (or only an approval). */
  refused(id: string, failure: Failure): Promise<void> {
    return this.#ledger.trades.refuse(id, failure);
  }

  /** Ended without a trade; with `pause`, the pause it causes in the same transaction. */
  failed(id: string, failure: Failure, options: { settlement?: Settlement; pause?: TradePause } = {}): Promise<void> {
    return this.#ledger.trades.fail(id, failure, options);
  }

  /** Maybe traded, and the chain has not shown what happened; with `pause`, the pause it causes. */
  unknown(id: string, failure: Failure, pause?: TradePause): Promise<void> {
    return this.#ledger.trades.markUnknown(id, failure, { pause });
  }

  /** A run stopped in the middle: the trade keeps its state, to be resumed, and says why it stopped. */
  interrupted(id: string, failure: Failure): Promise<void> {
    return this.#ledger.trades.noteInterruption(id, failure);
  }

  /** Mined, and the wallet received what the receipt's logs say. */
  confirmed(id: string, settlement: Settlement): Promise<void> {
    return this.#ledger.trades.settle(id, settlement);
  }

  /** What cannot be trusted about it, with its event and the pauses of its strategy and wallet, all at once. */
  anomaly(trade: Pick<Trade, 'id' | 'strategyId' | 'wallet'>, anomaly: Parameters<Ledger['trades']['markAnomaly']>[1]): Promise<void> {
    return this.#ledger.trades.markAnomaly(trade, anomaly);
  }

  /**
   * A row of the wallet's history failed its proof as a strategy read what it already did: the strategy and the wallet
   * are paused with the row named, before anything was claimed.
   */
  async historyRefused(strategyId: string, wallet: Address, reason: string): Promise<void> {
    const why = `anomaly in the wallet's history: ${reason}`;
    await this.#ledger.pauses.pause({ scope: 'strategy', key: strategyId, reason: why });
    await this.#ledger.pauses.pause({ scope: 'wallet', key: wallet, reason: why });
  }

  /** The balances after it could not be read for its block alone. */
  balanceCheckSkipped(id: string, why: string): Promise<void> {
    return this.#ledger.events.record('balance-check-skipped', { why }, id);
  }
}
