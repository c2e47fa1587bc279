/**
 * Follows a trade's transactions until each of its nonces is settled by the chain, in nonce order (an approval
 * before its trade). While following a nonce:
 *  - a receipt counts only once the chain holds it (src/chain/evidence.ts): its block is the canonical one at
 *    its height, lists it, and has `confirmations − 1` blocks on top. A receipt whose block is dropped by a
 *    reorg is followed again: the transaction mines anew, or is broadcast again;
 *  - a transaction that vanished from the node's pool is broadcast again, byte for byte;
 *  - a transaction pending for `stuckAfterMs` is replaced on the same nonce with fees at least 12.5% higher,
 *    up to the fee cap; at the cap the decision to keep waiting is recorded once. Only the wallet's lowest nonce in
 *    flight is re-priced so: a later one waits behind it (recorded once), since its own fees are not what holds it;
 *  - once the call's deadline has passed (it could only revert), or the checks refuse it now, the replacement
 *    is a cancellation: a zero-value transfer to ourselves. It too stays within the fee cap: the cap is the
 *    user's word, and fees read from a row above it could burn the wallet's coin;
 *  - a nonce used while none of our receipts shows is traced to the transaction that used it: ours (the receipt
 *    is then awaited), or one we never signed (KeyUsedElsewhereError: the key is used elsewhere).
 * When nothing settles the nonce in `giveUpAfterMs`, OutcomeUnknownError: the trade stays open as `unknown`.
 * Receipts are looked for at once, then after 25, 50, 100 ms… up to `pollMs`: a missed first look costs
 * milliseconds, not a second.
 */
import type { Hex, TransactionReceipt } from 'viem';
import { getBlock, getTransaction, getTransactionCount, getTransactionReceipt } from 'viem/actions';
import type { Attempt, AttemptPurpose } from '../model/attempt.ts';
import { sleep } from '../ops/abort.ts';
import { broadcast } from './broadcast.ts';
import { KeyUsedElsewhereError, OutcomeUnknownError } from './errors.ts';
import { type ReceiptBlocks, inclusionOf, judgeInclusion, nonceUse } from './evidence.ts';
import { type ChainFact, isOpenAttempt } from './journal.ts';
import type { ProvenCall } from './stored-tx.ts';
import type { Mined, Wallet } from './wallet.ts';

export type FollowOptions = {
  intentId: string;
  /** Unix seconds after which the call can only revert: past it, a stuck transaction is cancelled, not replaced. */
  deadline?: bigint;
  /** The checks that can change with time, run before every replacement of the call; a throw makes it a cancellation. */
  recheck?: () => Promise<void>;
  /** Receipts already in hand (from a synchronous send); held to the same evidence as any other. */
  receipts?: ReadonlyMap<Hex, TransactionReceipt>;
  /** Their blocks, when the caller read them already (beside its own reads, in one batch). */
  receiptBlocks?: Promise<ReceiptBlocks>;
  /** How long to follow before leaving the trade `unknown` (default: the wallet's `giveUpAfterMs`). */
  giveUpAfterMs?: number;
  /**
   * Proves a stored transaction before it is sent again or replaced: the wallet's own bytes and one of the trade's
   * own calls, whose purpose and call are read from them (trade/stored.ts); throws StoredRecordRefusedError if not.
   */
  authorize: (attempt: Attempt) => Promise<ProvenCall & { purpose: AttemptPurpose }>;
  signal?: AbortSignal;
};

/** Follows every open nonce of the trade; resolves with the last one mined (the trade, or its cancellation). */
export async function follow(wallet: Wallet, options: FollowOptions): Promise<Mined | undefined> {
  let last: Mined | undefined;
  for (;;) {
    const open = (await wallet.journal.attemptsOf(options.intentId)).filter(isOpenAttempt);
    const lowest = open.reduce<number | undefined>((min, a) => (min === undefined || a.nonce < min ? a.nonce : min), undefined);
    if (lowest === undefined) return last;
    const mined = await followNonce(wallet, lowest, options);
    if (mined.attempt.purpose !== 'approve' || !last) last = mined;
  }
}

async function followNonce(wallet: Wallet, nonce: number, options: FollowOptions): Promise<Mined> {
  const { client, journal } = wallet;
  const giveUpAfterMs = options.giveUpAfterMs ?? wallet.settings.giveUpAfterMs;
  const started = Date.now();
  // When the fees last changed: sending the same bytes again does not make a transaction less stuck.
  let lastPriced = Date.now();
  let atCapRecorded = false;
  let pause = 0;
  /** What is known so far, for the `unknown` reason if we give up. */
  let known = 'no receipt';
  /** Set once the nonce was traced to one of our transactions: no need to search the chain again. */
  let seenOurs = false;
  const noted = new Set<string>();
  const noteOnce = async (key: string, fact: ChainFact) => {
    if (noted.has(key)) return;
    noted.add(key);
    await journal.noted(options.intentId, fact);
  };
  for (let look = 0; ; look++) {
    const open = (await journal.attemptsOf(options.intentId)).filter((a) => a.nonce === nonce && isOpenAttempt(a));
    if (open.length === 0) throw new Error(`followNonce: no open attempt at nonce ${nonce}`);
    // Resumed after a restart, or signed here: either way in flight until settled.
    if (look === 0) wallet.track(open);
    const inHand = look === 0 ? open.map((a) => options.receipts?.get(a.hash)) : [];
    const receipts = await Promise.all(open.map((a, i) => inHand[i] ?? getTransactionReceipt(client, { hash: a.hash }).catch(() => undefined)));
    const minedIndex = receipts.findIndex((r) => r !== undefined);
    const receipt = receipts[minedIndex];
    if (receipt) {
      const { confirmations } = wallet.settings;
      const read = inHand[minedIndex] && options.receiptBlocks;
      const inclusion = await (read
        ? read.then(({ head, blocks }) => judgeInclusion(receipt, blocks.get(receipt.blockNumber), head, confirmations))
        : inclusionOf(client, receipt, confirmations)
      ).catch(() => 'unreachable' as const);
      if (inclusion === 'confirmed') return settleNonce(wallet, open, minedIndex, receipt);
      if (inclusion === 'not-in-chain') {
        // A reorg dropped its block, or the node made the receipt up: either way it proves nothing yet.
        await noteOnce(`absent:${receipt.blockHash}`, {
          kind: 'receipt-not-in-chain',
          hash: receipt.transactionHash,
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
        });
        known = `a receipt in block ${receipt.blockNumber} that the chain does not hold`;
      } else {
        known = `mined in block ${receipt.blockNumber}, awaiting ${wallet.settings.confirmations} confirmations`;
        lastPriced = Date.now();
      }
    } else {
      // Now and then, and whenever the transaction looks stuck, look at the nonce and the node's pool.
      const stuck = Date.now() - lastPriced >= wallet.settings.stuckAfterMs;
      if (look % 5 === 4 || stuck) {
        const confirmedNonce = await getTransactionCount(client, { address: wallet.address, blockTag: 'latest' });
        if (confirmedNonce > nonce) {
          if (!seenOurs) ({ known, ours: seenOurs } = await traceUsedNonce(wallet, nonce, open, options.intentId));
        } else {
          const newest = open.at(-1);
          if (newest && (await getTransaction(client, { hash: newest.hash }).catch(() => undefined)) === undefined) {
            // Bytes read back from the ledger leave again only once proven the wallet's own and the trade's.
            await options.authorize(newest);
            await broadcast(wallet, [newest], { stage: 'rebroadcast', signal: options.signal });
            // Recorded once it is sent again: an event says what happened, not what is about to.
            await journal.noted(options.intentId, { kind: 'rebroadcast', hash: newest.hash });
          }
          // A transaction behind a lower nonce of the wallet still in flight waits for it: paying more would not
          // let it pass. Only the lowest is re-priced or cancelled, on its own nonce, so the order holds.
          const behind = wallet.lowestInFlight !== undefined && wallet.lowestInFlight < nonce;
          if (stuck && behind) {
            await noteOnce(`behind:${wallet.lowestInFlight}`, { kind: 'waiting-behind', nonce, behind: wallet.lowestInFlight });
            lastPriced = Date.now();
          }
          // A node may also drop what it cannot mine (fees under the base fee): stuck either way.
          if (stuck && !behind && newest) {
            const outcome = await unstick(wallet, newest, options, atCapRecorded);
            if (outcome === 'at-cap') atCapRecorded = true;
            else lastPriced = Date.now();
          }
        }
      }
    }
    if (Date.now() - started > giveUpAfterMs) {
      throw new OutcomeUnknownError(
        `nonce ${nonce} of ${wallet.address} not settled after ${Math.round((Date.now() - started) / 1000)} s (${known}); the trade stays open until the chain shows what happened`,
      );
    }
    pause = Math.min(wallet.settings.pollMs, pause === 0 ? 25 : pause * 2);
    await sleep(pause, options.signal);
  }
}

/**
 * The wallet's count has passed the nonce and none of our receipts shows: find the transaction that used it.
 * Ours: its receipt is awaited. Another of our trades' (a ledger inconsistency): this one's attempts can never
 * mine. One we never signed: the key is used elsewhere. Not found: nothing is concluded.
 */
async function traceUsedNonce(wallet: Wallet, nonce: number, open: Attempt[], intentId: string): Promise<{ known: string; ours: boolean }> {
  const used = await nonceUse(wallet.client, wallet.address, nonce).catch(() => undefined);
  if (!used) return { known: `nonce ${nonce} is used, but the node does not show by which transaction`, ours: false };
  if (open.some((a) => a.hash.toLowerCase() === used.hash.toLowerCase())) {
    await wallet.journal.noted(intentId, { kind: 'seen-in-block', hash: used.hash, blockNumber: used.blockNumber });
    return { known: `${used.hash} is in block ${used.blockNumber}, but the node gives no receipt for it`, ours: true };
  }
  const other = await wallet.journal.attemptByHash(used.hash);
  for (const attempt of open) {
    await wallet.journal.dropped(attempt, `nonce ${nonce} used by ${used.hash} in block ${used.blockNumber}`);
  }
  wallet.settled(nonce);
  if (other) {
    throw new OutcomeUnknownError(`nonce ${nonce} was used by ${used.hash} of our trade ${other.intentId}; none of this trade's transactions can mine`);
  }
  await wallet.journal.noted(intentId, { kind: 'key-used-elsewhere', wallet: wallet.address, nonce, hash: used.hash, blockNumber: used.blockNumber });
  throw new KeyUsedElsewhereError(
    `nonce ${nonce} of ${wallet.address} was used by ${used.hash} (block ${used.blockNumber}), a transaction routekeeper did not sign: the key is used elsewhere`,
  );
}

/**
 * Replaces or cancels a stuck transaction; 'at-cap' when fees cannot rise and we keep waiting. The fees bumped are
 * those its proven bytes were signed with (a row's fee columns could say anything), and no replacement, not even a
 * cancellation past the deadline, goes above the strategy file's fee cap.
 */
async function unstick(wallet: Wallet, newest: Attempt, options: FollowOptions, atCapRecorded: boolean): Promise<'replaced' | 'cancelled' | 'at-cap'> {
  const { client, journal } = wallet;
  // What is replaced is read from the stored bytes, proven the wallet's and the trade's own: never from the row's columns.
  const stored = await options.authorize(newest);
  const [block, tip] = await Promise.all([getBlock(client, { blockTag: 'latest' }), client.request({ method: 'eth_maxPriorityFeePerGas' })]);
  const fees = wallet.fees.bumped(stored.fees, wallet.fees.fromBlock(block.baseFeePerGas ?? 0n, BigInt(tip)));
  const deadlinePassed = options.deadline !== undefined && block.timestamp > options.deadline;
  if (wallet.fees.overCap(fees.maxFeePerGas)) {
    if (!atCapRecorded) {
      await journal.noted(options.intentId, {
        kind: 'stuck-at-fee-cap',
        hash: newest.hash,
        decision: 'keep waiting',
        wouldNeed: fees.maxFeePerGas,
        cap: wallet.fees.cap,
        deadlinePassed,
      });
    }
    return 'at-cap';
  }
  let cancel = deadlinePassed || stored.purpose === 'cancel';
  let why = deadlinePassed ? `its deadline ${options.deadline} has passed` : 'it is still pending';
  // The re-check simulates the trade's checked call, which is exactly what the stored bytes call (authorize proved it).
  if (!cancel && stored.purpose === 'trade' && options.recheck) {
    try {
      await options.recheck();
    } catch (error) {
      cancel = true;
      why = `the checks refuse it now: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const [replacement] = await wallet.sign(options.intentId, [
    cancel
      ? { to: wallet.address, data: '0x', value: 0n, purpose: 'cancel', nonce: newest.nonce, gas: 21_000n, fees }
      : { ...stored.call, value: 0n, purpose: stored.purpose, nonce: newest.nonce, gas: stored.gas, fees },
  ]);
  await broadcast(wallet, [replacement as Attempt], { stage: cancel ? 'cancelled' : 'replaced', signal: options.signal });
  await journal.noted(options.intentId, { kind: cancel ? 'cancel' : 'replace', replaces: newest.hash, by: replacement?.hash, ...fees, why });
  return cancel ? 'cancelled' : 'replaced';
}

async function settleNonce(wallet: Wallet, open: Attempt[], minedIndex: number, receipt: TransactionReceipt): Promise<Mined> {
  const mined = open[minedIndex] as Attempt;
  const settled = await wallet.journal.nonceSettled(
    mined,
    {
      status: receipt.status === 'success' ? 'mined' : 'reverted',
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.effectiveGasPrice,
    },
    open.filter((other) => other.id !== mined.id),
  );
  wallet.settled(mined.nonce);
  await wallet.onStage?.('mined', settled);
  return { receipt, attempt: settled, cancelled: mined.purpose === 'cancel' };
}
