/**
 * The only way routekeeper sends a transaction. One sender per (chain, wallet), one transaction at a time.
 *
 * Every transaction is signed, then stored in the ledger (status `signed`), then broadcast (`broadcast`), then
 * followed until one transaction of its nonce is mined. While following it:
 *  - a transaction that vanished from the node's pool is broadcast again, byte for byte;
 *  - a transaction pending for `stuckAfterMs` is replaced on the same nonce with fees at least 12.5% higher,
 *    up to the fee cap; at the cap the decision is recorded: keep waiting, or, once the call's deadline has
 *    passed (it could only revert), cancel with a zero-value transfer to ourselves;
 *  - a nonce used by a transaction we never signed means the key is used elsewhere: recorded, and the
 *    attempt is marked dropped.
 * After a crash, `resume` follows the stored attempts of an intent the same way, never signing a new trade.
 */
import PQueue from 'p-queue';
import {
  type Address,
  type Hex,
  type TransactionReceipt,
  type TransactionSerializableEIP1559,
  keccak256,
  parseTransaction,
} from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { Attempt, AttemptPurpose, Ledger } from '../ledger/ledger.ts';
import type { ChainClient } from './chains.ts';
import { BroadcastError, NonceConsumedError, ReceiptTimeoutError, TransactionRevertedError } from './errors.ts';
import { reasonOf } from './revert.ts';

export type TxRequest = { to: Address; data: Hex; value?: bigint };

export type SenderSettings = {
  /** Highest max fee per gas we ever sign. */
  feeCap?: bigint;
  /** How long a transaction may stay pending before it is replaced. */
  stuckAfterMs: number;
  /** How long to follow a nonce before giving up for now (the intent stays open for reconciliation). */
  giveUpAfterMs: number;
  pollMs: number;
};

export const defaultSenderSettings: SenderSettings = { stuckAfterMs: 60_000, giveUpAfterMs: 15 * 60_000, pollMs: 1_000 };

export type SendOptions = {
  intentId: string;
  purpose: AttemptPurpose;
  /** Unix seconds after which the call can only revert: past it, a stuck transaction is cancelled, not replaced. */
  deadline?: bigint;
  /** Runs before every replacement of the call (the guards again); a throw turns the replacement into a cancellation. */
  beforeResend?: () => Promise<void>;
  /** Fees just estimated by the caller (saves asking again); the fee cap still applies. */
  fees?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
};

export type SendResult = { receipt: TransactionReceipt; attempt: Attempt; cancelled: boolean };

export type SenderStage = 'signed' | 'broadcast' | 'replaced' | 'rebroadcast' | 'cancelled' | 'mined';

export type SenderDeps = {
  client: ChainClient;
  account: LocalAccount;
  chainId: number;
  ledger: Ledger;
  settings?: Partial<SenderSettings>;
  /** Observes each step (logging, metrics, tests). */
  onStage?: (stage: SenderStage, attempt: Attempt) => void | Promise<void>;
};

/** Gas headroom: a bare estimate misses storage a later block can touch (Uniswap V2's price accumulators, ~22k gas each). */
export const gasWithHeadroom = (estimate: bigint) => (estimate * 5n) / 4n + 100_000n;

const REPLACEMENT_BUMP_NUMERATOR = 1125n; // 12.5%, above the 10% most nodes require
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const bump = (value: bigint) => ceilDiv(value * REPLACEMENT_BUMP_NUMERATOR, 1000n);

export class WalletSender {
  readonly address: Address;
  readonly #deps: SenderDeps;
  readonly #settings: SenderSettings;
  readonly #queue = new PQueue({ concurrency: 1 });

  constructor(deps: SenderDeps) {
    this.#deps = deps;
    this.address = deps.account.address;
    this.#settings = { ...defaultSenderSettings, ...deps.settings };
  }

  /** Signs, stores, broadcasts and follows one call to a receipt. Queued behind this wallet's other sends. */
  send(request: TxRequest, options: SendOptions): Promise<SendResult> {
    return this.#queue.add(async () => {
      const { client } = this.#deps;
      // Independent reads go out together (one batched HTTP request).
      const [nonce, fees, gas] = await Promise.all([
        this.#allocateNonce(options.intentId),
        options.fees ? this.#capped(options.fees) : this.#currentFees(),
        client.estimateGas({ account: this.address, to: request.to, data: request.data, value: request.value }).then(gasWithHeadroom, (error: unknown) => {
          const reason = reasonOf(error);
          throw new TransactionRevertedError(reason, `the transaction would revert: ${reason}`, { cause: error });
        }),
      ]);
      const attempt = await this.#signAndStore(request, { nonce, gas, ...fees }, options);
      await this.#broadcast(attempt);
      return this.#follow(nonce, request, options);
    }) as Promise<SendResult>;
  }

  /**
   * Follows the stored attempts of an intent after a restart: the same signed bytes are broadcast again
   * if the chain has not seen them. Resolves undefined when the intent has no unresolved attempt.
   */
  resume(intentId: string, options: Omit<SendOptions, 'intentId' | 'purpose'> = {}): Promise<SendResult | undefined> {
    return this.#queue.add(async () => {
      const open = this.#deps.ledger.attemptsOf(intentId).filter((a) => a.status === 'signed' || a.status === 'broadcast');
      const newest = open.at(-1);
      if (!newest) return undefined;
      for (const attempt of open.filter((a) => a.nonce === newest.nonce && a.status === 'signed')) await this.#broadcast(attempt);
      // The call itself comes from the stored bytes, so a replacement re-signs exactly what was signed before.
      const stored = parseTransaction(newest.rawTx);
      const request = { to: stored.to ?? this.address, data: stored.data ?? '0x', value: stored.value ?? 0n };
      return this.#follow(newest.nonce, request, { ...options, intentId, purpose: newest.purpose === 'cancel' ? 'trade' : newest.purpose });
    }) as Promise<SendResult | undefined>;
  }

  async #allocateNonce(intentId: string): Promise<number> {
    const pending = await this.#deps.client.getTransactionCount({ address: this.address, blockTag: 'pending' });
    const highest = this.#deps.ledger.highestNonce(this.address, this.#deps.chainId);
    if (highest !== undefined && pending > highest + 1) {
      // Nonces we never signed were used: the same key is sending from somewhere else.
      this.#deps.ledger.recordEvent('nonce-used-elsewhere', { wallet: this.address, expected: highest + 1, onChain: pending }, intentId);
    }
    return pending;
  }

  async #currentFees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    return this.#capped(await this.#deps.client.estimateFeesPerGas({ type: 'eip1559' }));
  }

  #capped({ maxFeePerGas, maxPriorityFeePerGas }: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) {
    const cap = this.#settings.feeCap;
    const maxFee = cap !== undefined && maxFeePerGas > cap ? cap : maxFeePerGas;
    return { maxFeePerGas: maxFee, maxPriorityFeePerGas: maxPriorityFeePerGas > maxFee ? maxFee : maxPriorityFeePerGas };
  }

  async #signAndStore(
    request: TxRequest,
    tx: { nonce: number; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    options: Pick<SendOptions, 'intentId' | 'purpose'>,
  ): Promise<Attempt> {
    const serializable: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: this.#deps.chainId,
      nonce: tx.nonce,
      to: request.to,
      data: request.data,
      value: request.value ?? 0n,
      gas: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    };
    const rawTx = await this.#deps.account.signTransaction(serializable);
    // Stored before it leaves this process: after a crash these exact bytes are what gets sent, never new ones.
    const attempt = this.#deps.ledger.addAttempt({
      intentId: options.intentId,
      purpose: options.purpose,
      wallet: this.address,
      chainId: this.#deps.chainId,
      nonce: tx.nonce,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
      gasLimit: tx.gas,
      rawTx,
      hash: keccak256(rawTx),
    });
    await this.#deps.onStage?.('signed', attempt);
    return attempt;
  }

  /** Sends stored bytes. "Already known" and "nonce too low" are not failures here: following the nonce settles them. */
  async #broadcast(attempt: Attempt, stage: SenderStage = 'broadcast'): Promise<void> {
    try {
      await this.#deps.client.sendRawTransaction({ serializedTransaction: attempt.rawTx });
    } catch (error) {
      const text = reasonOf(error).toLowerCase();
      if (!/already known|known transaction|nonce too low|already imported|already exists/.test(text)) {
        if (/underpriced|insufficient funds|exceeds|intrinsic gas/.test(text)) {
          this.#deps.ledger.updateAttempt(attempt.id, { status: 'dropped', error: text.slice(0, 300) });
          throw new BroadcastError(`the node refused transaction ${attempt.hash}: ${text.slice(0, 200)}`, { cause: error });
        }
        // Anything else (network, timeout): it may or may not have arrived; following the nonce decides.
        this.#deps.ledger.recordEvent('broadcast-uncertain', { hash: attempt.hash, error: text.slice(0, 300) }, attempt.intentId);
      }
    }
    if (stage === 'broadcast' || attempt.status === 'signed') this.#deps.ledger.updateAttempt(attempt.id, { status: 'broadcast' });
    await this.#deps.onStage?.(stage, { ...attempt, status: 'broadcast' });
  }

  async #follow(nonce: number, request: TxRequest, options: SendOptions): Promise<SendResult> {
    const { client, ledger } = this.#deps;
    const started = Date.now();
    let lastSent = Date.now();
    let atCapRecorded = false;
    for (let poll = 0; ; poll++) {
      const open = ledger.attemptsOf(options.intentId).filter((a) => a.nonce === nonce && (a.status === 'signed' || a.status === 'broadcast'));
      const receipts = await Promise.all(open.map((a) => client.getTransactionReceipt({ hash: a.hash }).catch(() => undefined)));
      const minedIndex = receipts.findIndex((r) => r !== undefined);
      if (minedIndex >= 0) return this.#settle(open, minedIndex, receipts[minedIndex] as TransactionReceipt);

      // Every few polls, and whenever the transaction looks stuck, look at the nonce and the node's pool.
      const stuck = Date.now() - lastSent >= this.#settings.stuckAfterMs;
      if (poll % 5 === 4 || stuck) {
        const confirmedNonce = await client.getTransactionCount({ address: this.address, blockTag: 'latest' });
        if (confirmedNonce > nonce) {
          // Used, but by none of ours (checked just above): look once more for a late receipt, then give up on it.
          const late = await Promise.all(open.map((a) => client.getTransactionReceipt({ hash: a.hash }).catch(() => undefined)));
          const lateIndex = late.findIndex((r) => r !== undefined);
          if (lateIndex >= 0) return this.#settle(open, lateIndex, late[lateIndex] as TransactionReceipt);
          for (const attempt of open) ledger.updateAttempt(attempt.id, { status: 'dropped', error: 'nonce used by another transaction' });
          ledger.recordEvent('nonce-used-elsewhere', { wallet: this.address, nonce }, options.intentId);
          throw new NonceConsumedError(`nonce ${nonce} of ${this.address} was used by a transaction routekeeper did not sign`);
        }
        const newest = open.at(-1);
        if (newest && (await client.getTransaction({ hash: newest.hash }).catch(() => undefined)) === undefined) {
          await this.#broadcast(newest, 'rebroadcast');
          // Recorded once the node has it again: an event says what happened, not what is about to.
          ledger.recordEvent('rebroadcast', { hash: newest.hash }, options.intentId);
          lastSent = Date.now();
          continue;
        }
      }
      if (stuck && open.length > 0) {
        const outcome = await this.#unstick(open.at(-1) as Attempt, request, options, atCapRecorded);
        if (outcome === 'at-cap') atCapRecorded = true;
        else lastSent = Date.now();
      }
      if (Date.now() - started > this.#settings.giveUpAfterMs) {
        throw new ReceiptTimeoutError(`no receipt for nonce ${nonce} of ${this.address} after ${Math.round((Date.now() - started) / 1000)} s; it stays open and is followed again at the next start`);
      }
      await new Promise((resolve) => setTimeout(resolve, this.#settings.pollMs));
    }
  }

  /** Replaces or cancels a stuck transaction; returns 'at-cap' when fees cannot rise and we keep waiting. */
  async #unstick(newest: Attempt, request: TxRequest, options: SendOptions, atCapRecorded: boolean): Promise<'replaced' | 'cancelled' | 'at-cap'> {
    const { client, ledger } = this.#deps;
    const current = await this.#deps.client.estimateFeesPerGas({ type: 'eip1559' });
    const maxFeePerGas = [bump(newest.maxFeePerGas), current.maxFeePerGas].reduce((a, b) => (a > b ? a : b));
    const bumpedPriority = [bump(newest.maxPriorityFeePerGas), current.maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
    const maxPriorityFeePerGas = bumpedPriority > maxFeePerGas ? maxFeePerGas : bumpedPriority;
    const cap = this.#settings.feeCap;
    const chainTime = (await client.getBlock({ blockTag: 'latest' })).timestamp;
    const deadlinePassed = options.deadline !== undefined && chainTime > options.deadline;

    if (cap !== undefined && maxFeePerGas > cap) {
      if (!atCapRecorded) {
        ledger.recordEvent('stuck-at-fee-cap', { hash: newest.hash, decision: 'keep waiting', wouldNeed: maxFeePerGas, cap, deadlinePassed }, options.intentId);
      }
      return 'at-cap';
    }
    let cancel = deadlinePassed || newest.purpose === 'cancel';
    let why = deadlinePassed ? `its deadline ${options.deadline} has passed` : 'it is still pending';
    if (!cancel && options.beforeResend) {
      try {
        await options.beforeResend();
      } catch (error) {
        cancel = true;
        why = `the guards refuse it now: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const fees = { nonce: newest.nonce, maxFeePerGas, maxPriorityFeePerGas };
    const replacement = cancel
      ? await this.#signAndStore({ to: this.address, data: '0x', value: 0n }, { ...fees, gas: 21_000n }, { intentId: options.intentId, purpose: 'cancel' })
      : await this.#signAndStore(request, { ...fees, gas: newest.gasLimit }, options);
    await this.#broadcast(replacement, cancel ? 'cancelled' : 'replaced');
    ledger.recordEvent(cancel ? 'cancel' : 'replace', { replaces: newest.hash, by: replacement.hash, maxFeePerGas, maxPriorityFeePerGas, why }, options.intentId);
    return cancel ? 'cancelled' : 'replaced';
  }

  async #settle(open: Attempt[], minedIndex: number, receipt: TransactionReceipt): Promise<SendResult> {
    const { ledger } = this.#deps;
    const mined = open[minedIndex] as Attempt;
    ledger.updateAttempt(mined.id, {
      status: receipt.status === 'success' ? 'mined' : 'reverted',
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.effectiveGasPrice,
    });
    for (const other of open) if (other.id !== mined.id) ledger.updateAttempt(other.id, { status: 'replaced' });
    const settled = ledger.attemptsOf(mined.intentId).find((a) => a.id === mined.id) as Attempt;
    await this.#deps.onStage?.('mined', settled);
    return { receipt, attempt: settled, cancelled: mined.purpose === 'cancel' };
  }
}
