/**
 * Follows a trade's transactions until each of its nonces is mined, in nonce order (an approval before its
 * trade). While following a nonce:
 *  - a transaction that vanished from the node's pool is broadcast again, byte for byte;
 *  - a transaction pending for `stuckAfterMs` is replaced on the same nonce with fees at least 12.5% higher,
 *    up to the fee cap; at the cap the decision to keep waiting is recorded once;
 *  - once the call's deadline has passed (it could only revert), or the checks refuse it now, the replacement
 *    is a cancellation: a zero-value transfer to ourselves;
 *  - a nonce used by a transaction we never signed means the key is used elsewhere: recorded, and the
 *    attempts are marked dropped.
 * Receipts are looked for at once, then after 25, 50, 100 ms… up to `pollMs`: a missed first look costs
 * milliseconds, not a second.
 */
import { type Hex, type TransactionReceipt, parseTransaction } from 'viem';
import { getBlock, getTransaction, getTransactionCount, getTransactionReceipt } from 'viem/actions';
import type { Attempt } from '../ledger/ledger.ts';
import { sleep } from '../ops/abort.ts';
import { broadcast } from './broadcast.ts';
import { NonceConsumedError, ReceiptTimeoutError } from './errors.ts';
import type { Mined, Wallet } from './wallet.ts';

export type FollowOptions = {
  intentId: string;
  /** Unix seconds after which the call can only revert: past it, a stuck transaction is cancelled, not replaced. */
  deadline?: bigint;
  /** The checks that can change with time, run before every replacement of the call; a throw makes it a cancellation. */
  recheck?: () => Promise<void>;
  /** Receipts already in hand (from a synchronous send). */
  receipts?: ReadonlyMap<Hex, TransactionReceipt>;
  signal?: AbortSignal;
};

const isOpen = (attempt: Attempt) => attempt.status === 'signed' || attempt.status === 'broadcast';

/** Follows every open nonce of the trade; resolves with the last one mined (the trade, or its cancellation). */
export async function follow(wallet: Wallet, options: FollowOptions): Promise<Mined | undefined> {
  let last: Mined | undefined;
  for (;;) {
    const open = wallet.ledger.attemptsOf(options.intentId).filter(isOpen);
    const lowest = open.reduce<number | undefined>((min, a) => (min === undefined || a.nonce < min ? a.nonce : min), undefined);
    if (lowest === undefined) return last;
    const mined = await followNonce(wallet, lowest, options);
    if (mined.attempt.purpose !== 'approve' || !last) last = mined;
  }
}

async function followNonce(wallet: Wallet, nonce: number, options: FollowOptions): Promise<Mined> {
  const { client, ledger } = wallet;
  const started = Date.now();
  let lastSent = Date.now();
  let atCapRecorded = false;
  let pause = 0;
  for (let look = 0; ; look++) {
    const open = ledger.attemptsOf(options.intentId).filter((a) => a.nonce === nonce && isOpen(a));
    const receipts = await Promise.all(open.map((a) => options.receipts?.get(a.hash) ?? getTransactionReceipt(client, { hash: a.hash }).catch(() => undefined)));
    const minedIndex = receipts.findIndex((r) => r !== undefined);
    if (minedIndex >= 0) return settleNonce(wallet, open, minedIndex, receipts[minedIndex] as TransactionReceipt);

    // Now and then, and whenever the transaction looks stuck, look at the nonce and the node's pool.
    const stuck = Date.now() - lastSent >= wallet.settings.stuckAfterMs;
    if (look % 5 === 4 || stuck) {
      const confirmedNonce = await getTransactionCount(client, { address: wallet.address, blockTag: 'latest' });
      if (confirmedNonce > nonce) {
        // Used, but by none of ours (checked just above): look once more for a late receipt, then give up on it.
        const late = await Promise.all(open.map((a) => getTransactionReceipt(client, { hash: a.hash }).catch(() => undefined)));
        const lateIndex = late.findIndex((r) => r !== undefined);
        if (lateIndex >= 0) return settleNonce(wallet, open, lateIndex, late[lateIndex] as TransactionReceipt);
        for (const attempt of open) ledger.updateAttempt(attempt.id, { status: 'dropped', error: 'nonce used by another transaction' });
        ledger.recordEvent('nonce-used-elsewhere', { wallet: wallet.address, nonce }, options.intentId);
        throw new NonceConsumedError(`nonce ${nonce} of ${wallet.address} was used by a transaction routekeeper did not sign`);
      }
      const newest = open.at(-1);
      if (newest && (await getTransaction(client, { hash: newest.hash }).catch(() => undefined)) === undefined) {
        await broadcast(wallet, [newest], { stage: 'rebroadcast', signal: options.signal });
        // Recorded once the node has it again: an event says what happened, not what is about to.
        ledger.recordEvent('rebroadcast', { hash: newest.hash }, options.intentId);
        lastSent = Date.now();
        continue;
      }
    }
    const newest = open.at(-1);
    if (stuck && newest) {
      const outcome = await unstick(wallet, newest, options, atCapRecorded);
      if (outcome === 'at-cap') atCapRecorded = true;
      else lastSent = Date.now();
    }
    if (Date.now() - started > wallet.settings.giveUpAfterMs) {
      throw new ReceiptTimeoutError(`no receipt for nonce ${nonce} of ${wallet.address} after ${Math.round((Date.now() - started) / 1000)} s; it stays open and is followed again at the next start`);
    }
    pause = Math.min(wallet.settings.pollMs, pause === 0 ? 25 : pause * 2);
    await sleep(pause, options.signal);
  }
}

/** Replaces or cancels a stuck transaction; 'at-cap' when fees cannot rise and we keep waiting. */
async function unstick(wallet: Wallet, newest: Attempt, options: FollowOptions, atCapRecorded: boolean): Promise<'replaced' | 'cancelled' | 'at-cap'> {
  const { client, ledger } = wallet;
  const [block, tip] = await Promise.all([getBlock(client, { blockTag: 'latest' }), client.request({ method: 'eth_maxPriorityFeePerGas' })]);
  const fees = wallet.fees.bumped(newest, wallet.fees.fromBlock(block.baseFeePerGas ?? 0n, BigInt(tip)));
  const deadlinePassed = options.deadline !== undefined && block.timestamp > options.deadline;

  if (wallet.fees.overCap(fees.maxFeePerGas)) {
    if (!atCapRecorded) {
      ledger.recordEvent('stuck-at-fee-cap', { hash: newest.hash, decision: 'keep waiting', wouldNeed: fees.maxFeePerGas, cap: wallet.fees.cap, deadlinePassed }, options.intentId);
    }
    return 'at-cap';
  }
  let cancel = deadlinePassed || newest.purpose === 'cancel';
  let why = deadlinePassed ? `its deadline ${options.deadline} has passed` : 'it is still pending';
  if (!cancel && newest.purpose === 'trade' && options.recheck) {
    try {
      await options.recheck();
    } catch (error) {
      cancel = true;
      why = `the checks refuse it now: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const stored = parseTransaction(newest.rawTx);
  const [replacement] = await wallet.sign(options.intentId, [
    cancel
      ? { to: wallet.address, data: '0x', value: 0n, purpose: 'cancel', nonce: newest.nonce, gas: 21_000n, fees }
      : { to: stored.to ?? wallet.address, data: stored.data ?? '0x', value: stored.value ?? 0n, purpose: newest.purpose, nonce: newest.nonce, gas: newest.gasLimit, fees },
  ]);
  await broadcast(wallet, [replacement as Attempt], { stage: cancel ? 'cancelled' : 'replaced', signal: options.signal });
  ledger.recordEvent(cancel ? 'cancel' : 'replace', { replaces: newest.hash, by: replacement?.hash, ...fees, why }, options.intentId);
  return cancel ? 'cancelled' : 'replaced';
}

async function settleNonce(wallet: Wallet, open: Attempt[], minedIndex: number, receipt: TransactionReceipt): Promise<Mined> {
  const { ledger } = wallet;
  const mined = open[minedIndex] as Attempt;
  ledger.updateAttempt(mined.id, {
    status: receipt.status === 'success' ? 'mined' : 'reverted',
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
  });
  for (const other of open) if (other.id !== mined.id) ledger.updateAttempt(other.id, { status: 'replaced' });
  const settled = ledger.attemptsOf(mined.intentId).find((a) => a.id === mined.id) as Attempt;
  await wallet.onStage?.('mined', settled);
  return { receipt, attempt: settled, cancelled: mined.purpose === 'cancel' };
}
