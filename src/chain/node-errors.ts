/**
 * What a node's refusal means, decided once, here, from its message and code (as viem's getNodeError does),
 * so the sender branches on types. Each class says whether trying again may help.
 */
import { BaseError } from 'viem';
import { RoutekeeperError } from '../errors.ts';
import { reasonOf } from '../contracts/revert.ts';

/** The node has these exact bytes already: not a failure, following the nonce settles them. */
export class TransactionKnownError extends RoutekeeperError {
  override name = 'TransactionKnownError';
}

/** The nonce is used already, by this transaction or another: following the nonce tells which. */
export class NonceTooLowError extends RoutekeeperError {
  override name = 'NonceTooLowError';
}

/** The node will not take the transaction as it is (fees too low for a replacement, no money for gas, too much gas). */
export class TransactionRejectedError extends RoutekeeperError {
  override name = 'TransactionRejectedError';
}

/** The node does not offer the method (eth_simulateV1, eth_sendRawTransactionSync): use the fallback. */
export class MethodUnsupportedError extends RoutekeeperError {
  override name = 'MethodUnsupportedError';
}

/** The node could not be reached or failed inside (network, timeout, 5xx): the call may succeed later. */
export class NodeUnavailableError extends RoutekeeperError {
  override name = 'NodeUnavailableError';
  override readonly retryable = true;
}

export type NodeError = TransactionKnownError | NonceTooLowError | TransactionRejectedError | MethodUnsupportedError | NodeUnavailableError;

const known = /already known|known transaction|already imported|already exists|already in mempool/;
const nonceTooLow = /nonce too low|nonce has already been used|invalid nonce/;
const rejected = /underpriced|insufficient funds|exceeds|intrinsic gas|gas limit|fee cap|max fee per gas less than block base fee/;
const unsupported = /method not found|not supported|unsupported method|does not exist\/is not available|not implemented/;

const stateGone = /missing trie node|historical state|state (is )?not available|state histor|pruned|header not found|missing bytecode for code hash/;

/**
 * The node no longer keeps the state of an old block (a full node keeps about the last 128; anvil loses old states'
 * code): asking again will not help.
 */
export function isStateUnavailable(error: unknown): boolean {
  return stateGone.test(reasonOf(error).toLowerCase());
}

/** The typed error for a node's refusal of a call or a transaction. */
export function nodeErrorOf(error: unknown): NodeError {
  // viem names a JSON-RPC error by its code ("Missing or invalid parameters" for -32000); the node's own words,
  // which say what happened ("insufficient funds for gas * price + value"), are its details.
  // Both are matched; the node's words are the ones reported.
  const nodeSaid = error instanceof BaseError ? ((error.walk() as { details?: string } | null)?.details ?? error.details ?? '') : '';
  const text = (nodeSaid || reasonOf(error)).toLowerCase();
  const matched = `${text} ${reasonOf(error).toLowerCase()}`;
  const options = { cause: error, details: text.slice(0, 300) };
  const code =
    error instanceof BaseError ? (error.walk((e) => typeof (e as { code?: unknown }).code === 'number') as { code?: number } | null)?.code : undefined;
  if (known.test(matched)) return new TransactionKnownError('the node already has this transaction', options);
  if (nonceTooLow.test(matched)) return new NonceTooLowError('the nonce is used already', options);
  if (rejected.test(matched)) return new TransactionRejectedError(`the node refused the transaction: ${text.slice(0, 200)}`, options);
  if (code === -32601 || unsupported.test(matched)) return new MethodUnsupportedError(`the node does not support this method: ${text.slice(0, 200)}`, options);
  return new NodeUnavailableError(`the node failed: ${text.slice(0, 200)}`, options);
}
