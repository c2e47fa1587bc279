/**
 * Whether a trade already happened is decided by what the wallet signed and by the chain, never by a status column.
 *
 * Signed bytes prove themselves (chain/stored-tx.ts), and each belongs to one trade: its checked call, which the
 * wallet tagged with the trade's id (stored.ts), and the row's own tag, made as it was signed, which covers its
 * trade, nonce, hash and purpose. So before anything new is signed, the ledger's record of every transaction the
 * wallet signed is proven, from the nonce where this ledger's record starts (`signed-from`, tagged by the wallet,
 * written once) up to the newest:
 * - every attempt row is the wallet's own bytes, one of its trade's own calls, its purpose the bytes', and carries
 *   the wallet's tag binding it to that trade (identical bytes, an exact approval or a collect, filed under another
 *   trade are not its; rows signed before tags, up to `attempts-tagged-after`, are proven without one);
 * - every nonce from the start to the newest has such bytes: a row deleted (a trade erased, its slot freed) leaves
 *   a hole, which the chain's count of the wallet's transactions makes impossible to explain otherwise;
 * - the trade about to be signed has no bytes of its own call or of a cancellation yet: one with them was signed
 *   before, and its state was rolled back.
 * Above the newest proven nonce the chain must count nothing more (chain/nonces.ts: otherwise the key is used
 * elsewhere, or the newest rows were deleted; the wallet stops either way). Where the record starts is never taken
 * from a missing row: a wallet without one whose nonce on the chain is above 0 was used before this ledger knew it
 * (or its record was deleted), and signs nothing until a person adopts it (`routekeeper adopt`). A row that fails is
 * refused by name (StoredRecordRefusedError): the trade is an anomaly, its strategy and wallet paused, nothing signed.
 *
 * A row is proven once per process (kept with what was proven); each signature reads the wallet's rows again and
 * proves only those that are new or changed. What was proven is also written down, tagged by the wallet: the rows
 * through an attempt id and the digest of what decides in them, their trade's call tag included (`proven-through`).
 * A process starting (or taking the wallet over) proves again only the rows that digest does not vouch for: a row
 * changed, moved or inserted among them changes the digest (each row's fields are hashed as one JSON array: no two
 * different sets of rows read the same), and then every row is proven again. A vouched row still has its tags
 * checked: the digest spares only the recovery of its signature.
 *
 * A `dropped` row counts as dropped only if the node does not know its transaction: the column alone would make the
 * next signature take its nonce, and replace the wallet's own transaction in flight.
 */
import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import { StoredRecordRefusedError } from '../chain/errors.ts';
import type { ProvenNonces } from '../chain/nonces.ts';
import type { Wallet } from '../chain/wallet.ts';
import type { AttemptStore } from '../ledger/attempts.ts';
import type { TradeStore } from '../ledger/trades.ts';
import type { Attempt } from '../model/attempt.ts';
import type { TradeRecord } from '../model/trade.ts';
import type { ApprovalMode } from './settings.ts';
import { authorizedCall } from './stored.ts';

/** What a row was proven against of its trade: the checked call (its target, spender and data) and the call's tag. */
export const callKeyOf = (record: Pick<TradeRecord, 'call' | 'tags'>): string =>
  JSON.stringify([
    record.tags?.call ?? null,
    record.call?.target.toLowerCase() ?? null,
    record.call?.spender?.toLowerCase() ?? null,
    record.call?.data.toLowerCase() ?? null,
  ]);

/** A row's own columns that decide, its tag and its bytes, as one JSON array. */
const rowPrint = (attempt: Attempt) => fingerprint(attempt, undefined);

/** What was proven of a row: the columns that decide, its tag, its bytes and its trade's call, as one JSON array. */
const fingerprint = (attempt: Attempt, callKey: string | undefined) =>
  JSON.stringify([
    attempt.id,
    attempt.intentId,
    attempt.wallet.toLowerCase(),
    attempt.chainId,
    attempt.nonce,
    attempt.purpose,
    attempt.hash,
    attempt.rawTx,
    attempt.maxFeePerGas.toString(),
    attempt.maxPriorityFeePerGas.toString(),
    attempt.gasLimit.toString(),
    attempt.tag ?? null,
    callKey ?? null,
  ]);

/** The digest of rows as proven: each row's fingerprint (with its trade's call key, by trade id), in id order, the count first. */
export function digestOf(attempts: readonly Attempt[], callKeys: ReadonlyMap<string, string>): Hex {
  const sorted = [...attempts].sort((a, b) => a.id - b.id);
  const hash = createHash('sha256').update(`routekeeper proven rows v2 ${sorted.length}\n`);
  for (const attempt of sorted) hash.update(`${fingerprint(attempt, callKeys.get(attempt.intentId))}\n`);
  return `0x${hash.digest('hex')}`;
}

/**
 * The ledger as the proof needs it: the wallet's rows (its trades and transactions), and the record of what was proven
 * and where the record of signatures starts (the only rows the proof writes).
 */
export type SignedHistoryLedger = {
  readonly trades: Pick<TradeStore, 'byIds'>;
  readonly attempts: Pick<AttemptStore, 'ofWallet' | 'provenThrough' | 'setProvenThrough' | 'signedFrom' | 'startSignedFrom' | 'taggedAfter'>;
};

/** The wallet's transactions once proven (every one the ledger holds), with the nonces the next signature is allocated from. */
export type ProvenHistory = { attempts: readonly Attempt[]; nonces: ProvenNonces };

export class SignedHistory {
  readonly #ledger: SignedHistoryLedger;
  readonly #wallet: Wallet;
  readonly #approvals: ApprovalMode;
  /**
   * Rows proven in this process, by id: the row's own columns as they were proven (a row changed since is proven
   * again). A trade's call cannot change unseen: its tag covers it, and every reader of a call checks the tag.
   */
  readonly #proven = new Map<number, string>();
  /** The call key of each trade whose rows were read by this process. */
  readonly #callKeys = new Map<string, string>();
  /** Rows its tagged record of earlier proofs vouches for, by id, as vouched: their tags are still to be checked once. */
  readonly #vouchedFor = new Map<number, string>();
  /** The attempt id through which the record of proofs was last written by this process. */
  #writtenThrough = 0;
  readonly #startsAtTheChain: boolean;

  /**
   * `startsAtTheChain`: the ledger was made by this process for a chain it started (the embedded devnet, a paper-trading
   * fork): nothing before it is the ledger's to know, so a wallet it holds nothing of starts at the chain's count, as
   * if a person had adopted it. Never for a real network's ledger.
   */
  constructor(deps: { ledger: SignedHistoryLedger; wallet: Wallet; approvals: ApprovalMode; startsAtTheChain?: boolean }) {
    this.#ledger = deps.ledger;
    this.#wallet = deps.wallet;
    this.#approvals = deps.approvals;
    this.#startsAtTheChain = deps.startsAtTheChain ?? false;
  }

  /**
   * Proves the wallet's signed history before `intentId` is signed, the chain counting `pendingOnChain` of its
   * transactions; returns the nonces the next signature is allocated from. StoredRecordRefusedError names the row.
   */
  async beforeSigning(intentId: string, pendingOnChain: number): Promise<ProvenNonces> {
    const { attempts, nonces } = await this.prove(pendingOnChain);
    const rolledBack = attempts.find((attempt) => attempt.intentId === intentId && attempt.purpose !== 'approve');
    if (rolledBack) {
      throw new StoredRecordRefusedError(
        `trade ${intentId}: the wallet signed its ${rolledBack.purpose} already (attempt ${rolledBack.id}, ${rolledBack.hash}, nonce ${rolledBack.nonce}), yet the ledger has it unsigned: its state was rolled back; nothing is signed again`,
      );
    }
    return nonces;
  }

  /**
   * Proves every transaction of the wallet the ledger holds, from where its record starts, the chain counting
   * `pendingOnChain`: each the wallet's, tagged to its trade, no nonce missing. Only the trades of rows not proven in
   * this process are read.
   */
  async prove(pendingOnChain: number): Promise<ProvenHistory> {
    const wallet = this.#wallet;
    const all = await this.#ledger.attempts.ofWallet(wallet.address, wallet.chainId, 0);
    const start = await this.#start(pendingOnChain, all);
    const attempts = all.filter((attempt) => attempt.nonce >= start);
    const firstOfProcess = this.#proven.size === 0 && this.#vouchedFor.size === 0;
    const unread = attempts.filter((attempt) => firstOfProcess || this.#proven.get(attempt.id) !== rowPrint(attempt));
    const records = new Map((await this.#ledger.trades.byIds([...new Set(unread.map((attempt) => attempt.intentId))])).map((record) => [record.id, record]));
    for (const record of records.values()) this.#callKeys.set(record.id, callKeyOf(record));
    if (firstOfProcess) await this.#vouched(attempts);
    const taggedAfter = await this.#ledger.attempts.taggedAfter();
    for (const attempt of unread) await this.#prove(attempt, records.get(attempt.intentId), taggedAfter);
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
    await this.#writeProven(attempts);
    // None signed since the start: the chain must count no more than the start either (chain/nonces.ts), or the key
    // was used elsewhere since the wallet was adopted.
    const highestSigned = newest ?? (start > 0 ? start - 1 : undefined);
    return { attempts: all, nonces: { highestSigned, highestKept: (await this.#highestKept(attempts)) ?? highestSigned } };
  }

  /**
   * The newest nonce the node took: a row's `dropped` counts only when the node does not know its transaction (the
   * column alone would hand its nonce to the next signature, replacing the wallet's own transaction in flight).
   */
  async #highestKept(attempts: readonly Attempt[]): Promise<number | undefined> {
    for (const attempt of [...attempts].reverse()) {
      if (attempt.status !== 'dropped') return attempt.nonce;
      const known = await this.#wallet.client.request({ method: 'eth_getTransactionByHash', params: [attempt.hash] }).catch(() => null);
      if (known) return attempt.nonce;
    }
    return undefined;
  }

  /**
   * The rows a tagged record of earlier proofs vouches for, taken as proven: their digest (their trades' call tags
   * included) is the one it was written with. Their signatures are not recovered again; their tags are checked in #prove.
   */
  async #vouched(attempts: readonly Attempt[]): Promise<void> {
    const { address, chainId, tags } = this.#wallet;
    const proven = await this.#ledger.attempts.provenThrough(address, chainId);
    if (!proven || !(await tags.provenThroughIsTagged(address, chainId, proven.throughId, proven.digest, proven.tag))) return;
    const covered = attempts.filter((attempt) => attempt.id <= proven.throughId);
    if (digestOf(covered, this.#callKeys) !== proven.digest) return;
    for (const attempt of covered) this.#vouchedFor.set(attempt.id, fingerprint(attempt, this.#callKeys.get(attempt.intentId)));
  }

  /** Writes down what is proven now, when rows were added since it last was. */
  async #writeProven(attempts: readonly Attempt[]): Promise<void> {
    const throughId = attempts.reduce((highest, attempt) => Math.max(highest, attempt.id), 0);
    if (throughId === 0 || throughId === this.#writtenThrough) return;
    const { address, chainId, tags } = this.#wallet;
    const digest = digestOf(attempts, this.#callKeys);
    await this.#ledger.attempts.setProvenThrough(address, chainId, { throughId, digest, tag: await tags.provenThrough(address, chainId, throughId, digest) });
    this.#writtenThrough = throughId;
  }

  /**
   * The nonce this ledger's record of the wallet starts at, written (tagged, once) at its first signature. None is
   * taken from a missing row: a wallet the chain shows used is adopted by a person first (`routekeeper adopt`).
   */
  async #start(pendingOnChain: number, signed: readonly Attempt[]): Promise<number> {
    const { address, chainId, tags } = this.#wallet;
    let start = await this.#ledger.attempts.signedFrom(address, chainId);
    if (!start && this.#startsAtTheChain && signed.length === 0) {
      start = await this.#ledger.attempts.startSignedFrom(address, chainId, {
        nonce: pendingOnChain,
        tag: await tags.signedFrom(address, chainId, pendingOnChain),
      });
    }
    if (!start) {
      if (pendingOnChain > 0 || signed.length > 0) {
        const first = signed[0];
        throw new StoredRecordRefusedError(
          `the ledger holds no record of where the transactions of ${address} start, and ${first ? `it has signed trades of it (${first.intentId} among them)` : `the chain counts ${pendingOnChain} of them`}: the wallet was used before this ledger knew it, or its record was deleted; nothing is signed until a person adopts it (\`routekeeper adopt --wallet <name>\`, which shows the chain's count first)`,
        );
      }
      start = await this.#ledger.attempts.startSignedFrom(address, chainId, { nonce: 0, tag: await tags.signedFrom(address, chainId, 0) });
    }
    if (!(await tags.signedFromIsTagged(address, chainId, start.nonce, start.tag))) {
      throw new StoredRecordRefusedError(
        `the nonce the ledger's record of ${address} starts at (${start.nonce}) carries no tag of the wallet (written or changed without its key); nothing more is signed`,
      );
    }
    return start.nonce;
  }

  /**
   * One row: the wallet's bytes, one of its trade's own calls (the call tagged by the wallet), its purpose theirs, and
   * the row's own tag binding it to that trade (rows signed before tags, up to `taggedAfter`, have none).
   */
  async #prove(attempt: Attempt, record: TradeRecord | undefined, taggedAfter: number): Promise<void> {
    const row = `attempt ${attempt.id} (${attempt.hash}, nonce ${attempt.nonce})`;
    if (!record) throw new StoredRecordRefusedError(`${row} names trade ${attempt.intentId}, which the ledger does not have; nothing more is signed`);
    const seen = fingerprint(attempt, callKeyOf(record));
    const tags = this.#wallet.tags;
    if (attempt.purpose !== 'cancel' && !(await tags.hasTaggedCall(record))) {
      throw new StoredRecordRefusedError(
        `${row}: its trade ${record.id} has no checked call of the wallet's tag to be the ${attempt.purpose} of; nothing more is signed`,
      );
    }
    // A row the record of earlier proofs vouches for has its signature taken as recovered; its tags are checked here.
    if (this.#vouchedFor.get(attempt.id) !== seen) await authorizedCall(this.#wallet, record, attempt, this.#approvals);
    if (!(await tags.attemptIsTagged(attempt)) && !(attempt.tag === undefined && attempt.id <= taggedAfter)) {
      throw new StoredRecordRefusedError(
        `${row} of trade ${record.id}: it carries no tag of the wallet binding it to that trade (filed under it, or changed, without its key); nothing more is signed`,
      );
    }
    this.#proven.set(attempt.id, rowPrint(attempt));
  }
}
