/**
 * Signed bytes read back from the ledger, proven before they are sent again or replaced: the database is no more
 * trusted than the node, and bytes it holds are only a claim. They must be an EIP-1559 transaction of this chain,
 * at the row's nonce, whose hash is the row's and whose signature recovers to the wallet. What they call is read
 * from them, never from a column.
 */
import { type Hex, isAddressEqual, keccak256, parseTransaction, recoverTransactionAddress } from 'viem';
import type { Attempt } from '../model/attempt.ts';
import { StoredRecordRefusedError } from './errors.ts';
import type { Fees } from './fees.ts';
import type { TxRequest, Wallet } from './wallet.ts';

/** What proven bytes say: the call, and the gas and fees it was signed with (a replacement bumps these, never a column). */
export type ProvenCall = { call: TxRequest; gas: bigint; fees: Fees };

/** The call of an attempt's stored bytes, their gas limit and fees, once proven the wallet's own; StoredRecordRefusedError if not. */
export async function provenCall(wallet: Pick<Wallet, 'address' | 'chainId' | 'impersonated'>, attempt: Attempt): Promise<ProvenCall> {
  const refuse = (why: string) =>
    new StoredRecordRefusedError(`attempt ${attempt.id} (${attempt.hash}) of trade ${attempt.intentId}: ${why}; nothing is sent for it`);
  if (!isAddressEqual(attempt.wallet, wallet.address) || attempt.chainId !== wallet.chainId)
    throw refuse(`its row names wallet ${attempt.wallet} on chain ${attempt.chainId}, not ${wallet.address} on ${wallet.chainId}`);
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(attempt.rawTx);
  } catch {
    throw refuse('its stored bytes are not a transaction');
  }
  if (tx.type !== 'eip1559') throw refuse(`its stored bytes are a ${tx.type} transaction, never one routekeeper signs`);
  if (tx.chainId !== wallet.chainId) throw refuse(`its stored bytes are for chain ${tx.chainId}`);
  if (tx.nonce !== attempt.nonce) throw refuse(`its stored bytes are at nonce ${tx.nonce}, the row says ${attempt.nonce}`);
  if (wallet.impersonated) {
    // A fork's transactions are sent by the node as the wallet, never signed: their bytes carry no signature to prove.
    if (tx.r === undefined || tx.s === undefined || BigInt(tx.r) !== 1n || BigInt(tx.s) !== 1n)
      throw refuse('its stored bytes carry a signature, which no fork transaction of routekeeper does');
  } else {
    if (keccak256(attempt.rawTx).toLowerCase() !== attempt.hash.toLowerCase()) throw refuse('its hash is not that of its stored bytes');
    const signer = await recoverTransactionAddress({
      serializedTransaction: attempt.rawTx as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'],
    }).catch(() => undefined);
    if (!signer) throw refuse('its stored bytes carry no valid signature');
    if (!isAddressEqual(signer, wallet.address)) throw refuse(`its stored bytes are signed by ${signer}, not by the wallet`);
  }
  if (tx.to === undefined || tx.to === null) throw refuse('its stored bytes create a contract, which routekeeper never signs');
  // The row's fee and gas columns are what people and reports read: a row whose figures are not its bytes' was written
  // by someone else (a replacement bumps the bytes' own fees, whatever the row says).
  const signedWith = { 'max fee per gas': tx.maxFeePerGas, 'priority fee per gas': tx.maxPriorityFeePerGas, 'gas limit': tx.gas };
  const rowSays = { 'max fee per gas': attempt.maxFeePerGas, 'priority fee per gas': attempt.maxPriorityFeePerGas, 'gas limit': attempt.gasLimit };
  for (const [figure, signed] of Object.entries(signedWith)) {
    const said = rowSays[figure as keyof typeof rowSays];
    if (signed !== said) throw refuse(`its row says a ${figure} of ${said}, its stored bytes ${signed ?? 'none'}`);
  }
  return {
    call: { to: tx.to, data: (tx.data ?? '0x') as Hex, value: tx.value ?? 0n },
    gas: tx.gas ?? 0n,
    fees: { maxFeePerGas: tx.maxFeePerGas ?? 0n, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n },
  };
}
