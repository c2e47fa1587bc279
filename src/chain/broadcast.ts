/**
 * Sends stored signed bytes. All of a trade's transactions (an approval and its trade, on consecutive nonces)
 * go out in one batched request; where the node offers eth_sendRawTransactionSync, its answer is the receipt,
 * so a trade on a fast chain needs no further request. The ledger says `broadcast` before the bytes leave:
 * from then on the transaction may be in a mempool, and only the chain can settle it.
 */
import { type EIP1193RequestFn, type Hex, type TransactionReceipt, type WalletRpcSchema, formatTransactionReceipt, numberToHex, parseTransaction } from 'viem';
import type { Attempt } from '../model/attempt.ts';
import { abortable } from '../ops/abort.ts';
import { MethodUnsupportedError, NodeUnavailableError, TransactionRejectedError, nodeErrorOf } from './node-errors.ts';
import type { TxStage } from './journal.ts';
import type { Wallet } from './wallet.ts';

/** Nodes found not to offer eth_sendRawTransactionSync (asked once per client). */
const withoutSync = new WeakSet<object>();

/**
 * Broadcasts the attempts together; resolves with the receipts the node returned at once (none when it does
 * not send synchronously or has not mined them within `syncWaitMs`). A refusal by the node of a first send marks
 * the attempt dropped and throws TransactionRejectedError; of anything else (bytes sent again, a replacement) it is
 * recorded and left, like any other failure, to following the nonce.
 */
export async function broadcast(
  wallet: Wallet,
  attempts: readonly Attempt[],
  options: { stage?: TxStage; signal?: AbortSignal } = {},
): Promise<Map<Hex, TransactionReceipt>> {
  const stage = options.stage ?? 'broadcast';
  for (const attempt of attempts) if (attempt.status === 'signed') await wallet.journal.sending(attempt);
  const sync = !wallet.impersonated && !withoutSync.has(wallet.client);
  // viem batches only requests that share a signal: this send's own keeps its transactions in one request of their
  // own. A synchronous send is answered once mined; a read batched with it would wait as long (another trade's
  // checks, while this one's receipt is awaited). A signal of ours replaces viem's timeout: the same 10 s, or longer
  // than we wait for a synchronous answer.
  const alone = AbortSignal.any([AbortSignal.timeout(Math.max(wallet.settings.syncWaitMs + 1_000, 10_000)), ...(options.signal ? [options.signal] : [])]);
  const send = (attempt: Attempt) =>
    wallet.impersonated
      ? sendImpersonated(wallet, attempt, alone)
      : sync
        ? sendSync(wallet, attempt, alone, options.signal)
        : sendPlain(wallet, attempt, alone);
  const results = await Promise.all(attempts.map(send));
  const receipts = new Map<Hex, TransactionReceipt>();
  if (sync && results.some((result) => result instanceof MethodUnsupportedError)) {
    withoutSync.add(wallet.client);
    return broadcast(wallet, attempts, options);
  }
  for (const [i, attempt] of attempts.entries()) {
    const result = results[i];
    if (result instanceof TransactionRejectedError) {
      // Sent again, or a new signature for a nonce already out: the node will not take it now (fees moved past it),
      // but it may later, and what is already out stays out. Following the nonce sends it again.
      if (stage !== 'broadcast') {
        await wallet.journal.noted(attempt.intentId, { kind: 'send-refused', hash: attempt.hash, stage, error: result.details ?? result.shortMessage });
        continue;
      }
      await wallet.journal.dropped(attempt, result.details ?? result.shortMessage);
      throw result;
    }
    if (result instanceof NodeUnavailableError) {
      // It may or may not have arrived: following the nonce decides.
      await wallet.journal.noted(attempt.intentId, { kind: 'broadcast-uncertain', hash: attempt.hash, error: result.shortMessage });
    }
    if (result && 'transactionHash' in result) receipts.set(attempt.hash, result);
    await wallet.onStage?.(stage, { ...attempt, status: 'broadcast' });
  }
  return receipts;
}

type SendResult = TransactionReceipt | undefined | Error;

/** Known, nonce-too-low: not failures here (following the nonce settles them). */
function classify(error: unknown): Error | undefined {
  const typed = nodeErrorOf(error);
  return typed instanceof TransactionRejectedError || typed instanceof NodeUnavailableError || typed instanceof MethodUnsupportedError ? typed : undefined;
}

async function sendPlain(wallet: Wallet, attempt: Attempt, alone: AbortSignal): Promise<SendResult> {
  try {
    await wallet.client.request({ method: 'eth_sendRawTransaction', params: [attempt.rawTx] }, { signal: alone });
    return undefined;
  } catch (error) {
    return classify(error);
  }
}

/** On a fork: the node sends the stored transaction as the wallet (impersonated); no signature exists. */
async function sendImpersonated(wallet: Wallet, attempt: Attempt, alone: AbortSignal): Promise<SendResult> {
  const tx = parseTransaction(attempt.rawTx);
  // eth_sendTransaction is a wallet method: the fork node holds the "account" for us.
  const request = wallet.client.request as unknown as EIP1193RequestFn<WalletRpcSchema>;
  try {
    const hash = await request(
      {
        method: 'eth_sendTransaction',
        params: [
          {
            from: wallet.address,
            to: tx.to ?? undefined,
            data: tx.data ?? '0x',
            value: numberToHex(tx.value ?? 0n),
            gas: numberToHex(attempt.gasLimit),
            nonce: numberToHex(attempt.nonce),
            maxFeePerGas: numberToHex(attempt.maxFeePerGas),
            maxPriorityFeePerGas: numberToHex(attempt.maxPriorityFeePerGas),
            type: '0x2',
          },
        ],
      },
      { signal: alone },
    );
    // The node names the transaction; should its hash differ from the one computed at "signing", the node's is kept.
    if (hash.toLowerCase() !== attempt.hash.toLowerCase()) {
      await wallet.journal.renamed(attempt, hash);
      attempt.hash = hash;
    }
    return undefined;
  } catch (error) {
    return classify(error);
  }
}

async function sendSync(wallet: Wallet, attempt: Attempt, alone: AbortSignal, signal?: AbortSignal): Promise<SendResult> {
  const request = wallet.client
    .request({ method: 'eth_sendRawTransactionSync', params: [attempt.rawTx] }, { retryCount: 0, signal: alone })
    .then((receipt): SendResult => formatTransactionReceipt(receipt), classify);
  // The node holds the answer until the transaction is mined; past syncWaitMs we stop waiting and follow it. The
  // timer ends with the answer: left running, it would hold a finished command open for the rest of the wait.
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), wallet.settings.syncWaitMs);
  });
  return abortable(Promise.race([request, waited]), signal).finally(() => clearTimeout(timer));
}
