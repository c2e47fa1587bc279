/**
 * One wallet on one chain: its key, its nonces, its fee policy, and the order of its transactions.
 * Signing stores the signed bytes in the ledger before anything is broadcast, so after a crash the same
 * bytes are sent again, or their outcome adopted, and a slot is never signed twice.
 */
import PQueue from 'p-queue';
import {
  type Address,
  type Hex,
  type TransactionReceipt,
  type TransactionSerializableEIP1559,
  concatHex,
  keccak256,
  parseTransaction,
  serializeTransaction,
} from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { Attempt, AttemptPurpose, Fence } from '../model/attempt.ts';
import type { TxJournal, TxStage } from './journal.ts';
import type { ChainClient } from '../chains.ts';
import { type Fees, FeePolicy } from './fees.ts';
import { NonceAllocator } from './nonces.ts';
import type { InFlightCall } from './preflight.ts';
import { RecordTags, type TagScope } from '../model/record-tags.ts';

export type TxRequest = { to: Address; data: Hex; value?: bigint };

/** A transaction to sign: the call, its purpose in the trade, and what it is signed with. */
export type UnsignedTx = TxRequest & { purpose: AttemptPurpose; nonce: number; gas: bigint; fees: Fees };

export type WalletSettings = {
  /** Highest max fee per gas we ever sign. */
  feeCap?: bigint;
  /** How long a transaction may stay pending before it is replaced. */
  stuckAfterMs: number;
  /** How long to follow a nonce before giving up for now (the trade stays open and is followed at the next start). */
  giveUpAfterMs: number;
  /** The longest pause between two looks for a receipt (the first looks come much sooner). */
  pollMs: number;
  /** How long a send waits for the node to answer with the receipt (eth_sendRawTransactionSync) before following it. */
  syncWaitMs: number;
  /** Blocks, the receipt's own included, before a transaction counts as mined (a reorg within them is followed). */
  confirmations: number;
};

export const defaultWalletSettings: WalletSettings = { stuckAfterMs: 60_000, giveUpAfterMs: 15 * 60_000, pollMs: 1_000, syncWaitMs: 2_000, confirmations: 1 };

export type WalletDeps = {
  client: ChainClient;
  account: LocalAccount;
  /**
   * Paper trading on a local fork: the node sends as the account (anvil_impersonateAccount) and the key never
   * signs anything, so no fork transaction can ever be replayed on the real chain.
   */
  impersonate?: boolean;
  chainId: number;
  /** Where its signed bytes are kept and what happens to them is recorded (trade/recorder.ts). */
  journal: TxJournal;
  settings?: Partial<WalletSettings>;
  onStage?: (stage: TxStage, attempt: Attempt) => void | Promise<void>;
  /**
   * The fence of this wallet's lease (engine/leases.ts), checked before anything is signed and again where the
   * bytes are recorded; it throws LeaseLostError when the lease is not this daemon's. None: no lease is kept.
   */
  fence?: () => Fence;
  /** The ledger the wallet's tags are valid in (its id, and whether it is paper trading). */
  tagScope: Promise<TagScope>;
};

/** What following a trade's transactions ended with: the mined attempt and its receipt. */
export type Mined = { receipt: TransactionReceipt; attempt: Attempt; cancelled: boolean };

export class Wallet {
  readonly address: Address;
  readonly chainId: number;
  readonly client: ChainClient;
  readonly journal: TxJournal;
  readonly settings: WalletSettings;
  readonly fees: FeePolicy;
  readonly nonces: NonceAllocator;
  readonly onStage: WalletDeps['onStage'];
  readonly fence: () => Fence | undefined;
  /** True on a fork: transactions are sent by the node as this address, never signed with its key. */
  readonly impersonated: boolean;
  /** The wallet's authentication tags of what authorizes its signatures, with a key the ledger never sees. */
  readonly tags: RecordTags;
  readonly #account: LocalAccount;
  readonly #queue = new PQueue({ concurrency: 1 });
  #signings = 0;
  /**
   * This process's signed transactions of the wallet not yet settled by the chain: the newest attempt per nonce, with
   * its call decoded once (every check of the wallet simulates after them).
   */
  readonly #inFlight = new Map<number, { attempt: Attempt; call: TxRequest }>();

  constructor(deps: WalletDeps) {
    this.#account = deps.account;
    this.address = deps.account.address;
    this.chainId = deps.chainId;
    this.client = deps.client;
    this.journal = deps.journal;
    this.settings = { ...defaultWalletSettings, ...deps.settings };
    this.fees = new FeePolicy(this.settings.feeCap);
    this.nonces = new NonceAllocator(deps.journal, this.address);
    this.onStage = deps.onStage;
    this.impersonated = deps.impersonate ?? false;
    this.tags = new RecordTags(deps.account, deps.tagScope);
    this.fence = deps.fence ?? (() => undefined);
  }

  /**
   * Runs `work` when no other signing of this wallet is in progress: nonces are allocated gapless and in order, and
   * what a trade was checked on is compared with what was signed before it. Sending and following are not in here:
   * a wallet's trades go out on consecutive nonces without waiting for each other's receipts.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#queue.add(work) as Promise<T>;
  }

  /** Transactions being followed (signed here, or resumed), until their nonce is settled. */
  track(attempts: readonly Attempt[]): void {
    for (const attempt of attempts) {
      const known = this.#inFlight.get(attempt.nonce);
      if (known && known.attempt.id >= attempt.id) continue;
      const tx = parseTransaction(attempt.rawTx);
      this.#inFlight.set(attempt.nonce, { attempt, call: { to: tx.to ?? this.address, data: tx.data ?? '0x', value: tx.value ?? 0n } });
    }
  }

  /** The nonce is settled (mined, or its transaction dropped): nothing of it is in flight any more. */
  settled(nonce: number): void {
    this.#inFlight.delete(nonce);
  }

  /** Forgets every transaction in flight (the wallet was held by another daemon meanwhile); following them tracks them again. */
  forgetInFlight(): void {
    this.#inFlight.clear();
  }

  /** The lowest nonce still in flight: the one every later transaction of the wallet waits for. */
  get lowestInFlight(): number | undefined {
    let lowest: number | undefined;
    for (const nonce of this.#inFlight.keys()) if (lowest === undefined || nonce < lowest) lowest = nonce;
    return lowest;
  }

  /** Whether a transaction on a nonce above `nonce` is in flight (it cannot mine until `nonce` is used). */
  inFlightAbove(nonce: number): boolean {
    for (const known of this.#inFlight.keys()) if (known > nonce) return true;
    return false;
  }

  /**
   * The calls of the transactions in flight, in nonce order: a trade checked now is simulated after them, on the chain
   * as it will be once they are mined.
   */
  inFlightCalls(): InFlightCall[] {
    return [...this.#inFlight.values()].sort((a, b) => a.attempt.nonce - b.attempt.nonce).map((entry) => ({ ...entry.call, nonce: entry.attempt.nonce }));
  }

  /**
   * How many times this wallet has signed since the process started: a trade checked while it was N and signed
   * when it is more was simulated on a chain that has changed since (another trade of the wallet went first).
   */
  get signings(): number {
    return this.#signings;
  }

  /** Signs the transactions and stores them (and the trade's move to `signed`) in one ledger transaction. */
  async sign(intentId: string, txs: readonly UnsignedTx[]): Promise<Attempt[]> {
    // Not even signed without the lease: bytes a daemon holds without it could only be a second spend's start.
    const fence = this.fence();
    const signed = await Promise.all(
      txs.map(async (tx) => {
        const serializable: TransactionSerializableEIP1559 = {
          type: 'eip1559',
          chainId: this.chainId,
          nonce: tx.nonce,
          to: tx.to,
          data: tx.data,
          value: tx.value ?? 0n,
          gas: tx.gas,
          maxFeePerGas: tx.fees.maxFeePerGas,
          maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
        };
        const { rawTx, hash } = this.impersonated ? impersonatedTransaction(serializable, this.address) : await this.#signed(serializable);
        const identity = { intentId, purpose: tx.purpose, wallet: this.address, chainId: this.chainId, nonce: tx.nonce, hash };
        return {
          ...identity,
          maxFeePerGas: tx.fees.maxFeePerGas,
          maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
          gasLimit: tx.gas,
          rawTx,
          // Binds the row to its trade: identical bytes (an exact approval, a collect, a cancellation) filed under another trade are not its.
          tag: await this.tags.attempt(identity),
        };
      }),
    );
    const attempts = await this.journal.signed(signed, fence);
    this.#signings++;
    this.track(attempts);
    for (const attempt of attempts) await this.onStage?.('signed', attempt);
    return attempts;
  }

  async #signed(serializable: TransactionSerializableEIP1559): Promise<{ rawTx: Hex; hash: Hex }> {
    const rawTx = await this.#account.signTransaction(serializable);
    return { rawTx, hash: keccak256(rawTx) };
  }
}

/**
 * A fork transaction as anvil builds it for an impersonated sender: the placeholder signature r = s = 1, and a
 * hash over the encoding and the sender (so two impersonated senders never share one). Nothing here comes from a
 * key; the stored bytes prove nothing and could not be sent anywhere as this sender. The broadcast checks the
 * node's hash against this one and keeps the node's.
 */
export function impersonatedTransaction(tx: TransactionSerializableEIP1559, sender: Address): { rawTx: Hex; hash: Hex } {
  const rawTx = serializeTransaction(tx, { r: '0x01', s: '0x01', yParity: 0 });
  return { rawTx, hash: keccak256(concatHex([rawTx, sender])) };
}
