/**
 * Whether a trade already happened is decided by what the wallet signed and by the chain, never by a status column.
 *
 * Signed bytes prove themselves (chain/stored-tx.ts), and each belongs to one trade: its checked call, which the
 * wallet tagged with the trade's id (stored.ts). So before anything new is signed, the ledger's record of every
 * transaction the wallet signed is proven, from the nonce where this ledger's record starts (`signed-from`, tagged
 * by the wallet) up to the newest:
 * - every attempt row is the wallet's own bytes, one of its trade's own calls, its purpose the bytes';
 * - every nonce from the start to the newest has such bytes: a row deleted (a trade erased, its slot freed) leaves
 *   a hole, which the chain's count of the wallet's transactions makes impossible to explain otherwise;
 * - the trade about to be signed has no bytes of its own call or of a cancellation yet: one with them was signed
 *   before, and its state was rolled back.
 * Above the newest proven nonce the chain must count nothing more (chain/nonces.ts: otherwise the key is used
 * elsewhere, or the newest rows were deleted; the wallet stops either way). A row that fails is refused by name
 * (StoredRecordRefusedError): the trade is an anomaly, its strategy and wallet paused, nothing signed.
 *
 * A row is proven once per process (kept with what was proven); each signature reads the wallet's rows again and
 * proves only those that are new or changed. What was proven is also written down, tagged by the wallet: the rows
 * through an attempt id and the digest of what decides in them (`proven-through`). A process starting (or taking
 * the wallet over) proves again only the rows that digest does not vouch for: a row changed, moved or inserted
 * among them changes the digest, and then every row is proven again.
 */
import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import { StoredRecordRefusedError } from '../chain/errors.ts';
import type { ProvenNonces } from '../chain/nonces.ts';
import type { Wallet } from '../chain/wallet.ts';
import type { AttemptStore } from '../ledger/attempts.ts';
import type { TradeReads } from '../ledger/ledger.ts';
import type { Attempt } from '../model/attempt.ts';
import type { ApprovalMode } from './settings.ts';
import { authorizedCall } from './stored.ts';

/** What was proven of a row: the columns that decide, and the bytes. */
const fingerprint = (attempt: Attempt) =>
  `${attempt.intentId}|${attempt.nonce}|${attempt.purpose}|${attempt.hash}|${attempt.rawTx}|${attempt.maxFeePerGas}|${attempt.maxPriorityFeePerGas}|${attempt.gasLimit}`;

/** The digest of rows as proven: each row's id and fingerprint, in id order. */
export function digestOf(attempts: readonly Attempt[]): Hex {
  const hash = createHash('sha256');
  for (const attempt of [...attempts].sort((a, b) => a.id - b.id)) hash.update(`${attempt.id}|${fingerprint(attempt)}\n`);
  return `0x${hash.digest('hex')}`;
}

/**
 * The ledger as the proof needs it: the wallet's attempts and the trades they belong to, and the record of what was
 * proven and where the record of signatures starts (the only rows the proof writes).
 */
export type SignedHistoryLedger = {
  readonly trades: TradeReads['trades'];
  readonly attempts: Pick<AttemptStore, 'ofWallet' | 'provenThrough' | 'setProvenThrough' | 'signedFrom' | 'startSignedFrom'>;
};

export class SignedHistory {
  readonly #ledger: SignedHistoryLedger;
  readonly #wallet: Wallet;
  readonly #approvals: ApprovalMode;
  /** Rows proven in this process (or vouched for by its record of earlier proofs), by id. */
  readonly #proven = new Map<number, string>();
  /** The attempt id through which the record of proofs was last written by this process. */
  #writtenThrough = 0;

  constructor(deps: { ledger: SignedHistoryLedger; wallet: Wallet; approvals: ApprovalMode }) {
    this.#ledger = deps.ledger;
    this.#wallet = deps.wallet;
    this.#approvals = deps.approvals;
  }

  /**
   * Proves the wallet's signed history before `intentId` is signed, the chain counting `pendingOnChain` of its
   * transactions; returns the nonces the next signature is allocated from. StoredRecordRefusedError names the row.
   */
  async beforeSigning(intentId: string, pendingOnChain: number): Promise<ProvenNonces> {
    const wallet = this.#wallet;
    const start = await this.#start(pendingOnChain);
    const attempts = await this.#ledger.attempts.ofWallet(wallet.address, wallet.chainId, start);
    if (this.#proven.size === 0) await this.#vouched(attempts);
    for (const attempt of attempts) await this.#prove(attempt);
    const nonces = new Set(attempts.map((attempt) => attempt.nonce));
    const newest = attempts.at(-1)?.nonce;
    if (newest !== undefined) {
      for (let nonce = start; nonce < newest; nonce++) {
        if (!nonces.has(nonce)) {
          throw new StoredRecordRefusedError(
            `the ledger holds no transaction of ${wallet.address} at nonce ${nonce}, between nonces ${start} and ${newest} it signed: its row was deleted (a trade erased); nothing more is signed`,
          );
        }
      }
    }
    const rolledBack = attempts.find((attempt) => attempt.intentId === intentId && attempt.purpose !== 'approve');
    if (rolledBack) {
      throw new StoredRecordRefusedError(
        `trade ${intentId}: the wallet signed its ${rolledBack.purpose} already (attempt ${rolledBack.id}, ${rolledBack.hash}, nonce ${rolledBack.nonce}), yet the ledger has it unsigned: its state was rolled back; nothing is signed again`,
      );
    }
    await this.#writeProven(attempts);
    const kept = attempts.filter((attempt) => attempt.status !== 'dropped');
    return { highestSigned: newest, highestKept: kept.at(-1)?.nonce };
  }

  /** The rows a tagged record of earlier proofs vouches for, taken as proven: their digest is the one it was written with. */
  async #vouched(attempts: readonly Attempt[]): Promise<void> {
    const { address, chainId, tags } = this.#wallet;
    const proven = await this.#ledger.attempts.provenThrough(address, chainId);
    if (!proven || !(await tags.provenThroughIsTagged(address, chainId, proven.throughId, proven.digest, proven.tag))) return;
    const covered = attempts.filter((attempt) => attempt.id <= proven.throughId);
    if (digestOf(covered) !== proven.digest) return;
    for (const attempt of covered) this.#proven.set(attempt.id, fingerprint(attempt));
  }

  /** Writes down what is proven now, when rows were added since it last was. */
  async #writeProven(attempts: readonly Attempt[]): Promise<void> {
    const throughId = attempts.reduce((highest, attempt) => Math.max(highest, attempt.id), 0);
    if (throughId === 0 || throughId === this.#writtenThrough) return;
    const { address, chainId, tags } = this.#wallet;
    const digest = digestOf(attempts);
    await this.#ledger.attempts.setProvenThrough(address, chainId, { throughId, digest, tag: await tags.provenThrough(address, chainId, throughId, digest) });
    this.#writtenThrough = throughId;
  }

  /**
   * The nonce this ledger's record of the wallet starts at, written (tagged) at its first signature. One missing
   * while trades of this ledger's tags exist was deleted: refused, since it would let every row below go unproven.
   */
  async #start(pendingOnChain: number): Promise<number> {
    const { address, chainId, tags } = this.#wallet;
    let start = await this.#ledger.attempts.signedFrom(address, chainId);
    if (!start) {
      // None yet: a ledger that never signed for the wallet, or one of a version before this record. Any signed trade
      // of this ledger's own tags says it was deleted.
      const signedTrades = new Set((await this.#ledger.attempts.ofWallet(address, chainId, 0)).map((attempt) => attempt.intentId));
      for (const id of signedTrades) {
        const record = await this.#ledger.trades.get(id);
        if (record && (await tags.requestIsTagged(record, record.tags?.request))) {
          throw new StoredRecordRefusedError(
            `the ledger has signed trades of ${address} (${record.id} among them) but not the nonce its record of the wallet's transactions starts at: that row was deleted; nothing more is signed`,
          );
        }
      }
      start = await this.#ledger.attempts.startSignedFrom(address, chainId, {
        nonce: pendingOnChain,
        tag: await tags.signedFrom(address, chainId, pendingOnChain),
      });
    }
    if (!(await tags.signedFromIsTagged(address, chainId, start.nonce, start.tag))) {
      throw new StoredRecordRefusedError(
        `the nonce the ledger's record of ${address} starts at (${start.nonce}) carries no tag of the wallet (written or changed without its key); nothing more is signed`,
      );
    }
    return start.nonce;
  }

  /** One row: the wallet's bytes, one of its trade's own calls (the call tagged by the wallet), its purpose theirs. */
  async #prove(attempt: Attempt): Promise<void> {
    const seen = fingerprint(attempt);
    if (this.#proven.get(attempt.id) === seen) return;
    const row = `attempt ${attempt.id} (${attempt.hash}, nonce ${attempt.nonce})`;
    const record = await this.#ledger.trades.get(attempt.intentId);
    if (!record) throw new StoredRecordRefusedError(`${row} names trade ${attempt.intentId}, which the ledger does not have; nothing more is signed`);
    if (attempt.purpose !== 'cancel' && !(await this.#wallet.tags.hasTaggedCall(record))) {
      throw new StoredRecordRefusedError(
        `${row}: its trade ${record.id} has no checked call of the wallet's tag to be the ${attempt.purpose} of; nothing more is signed`,
      );
    }
    await authorizedCall(this.#wallet, record, attempt, this.#approvals);
    this.#proven.set(attempt.id, seen);
  }
}
