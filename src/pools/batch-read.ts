/**
 * Many view calls in one `eth_call` (viem's deployless multicall, never split: one request however many calls), in
 * the two ways a pool kind needs them: every answer or an error (what never changes for a pool, read once), or each
 * call's own answer (the states read every block), so that one pool's reverting view (a destroyed exchange, a feed
 * removed from a BreakerBox, a paused pool) is that pool's alone. A node that does not answer is an error either way.
 */
import type { PublicClient } from 'viem';
import { multicall } from 'viem/actions';
import { reasonOf } from '../contracts/revert.ts';

/** One call's answer in a batch that lets each call fail on its own (a multicall with `allowFailure`). */
export type CallAnswer = { status: 'success'; result: unknown } | { status: 'failure'; error: Error };

/**
 * Why a pool's state could not be read at a block (a destroyed exchange, a removed feed, a paused pool): it is not
 * routed. `rediscover`: what was read of the pool once (its oracle adapter, rate feed) has moved since: its factory's
 * pools are read again before it is quoted, never at the old settings.
 */
export type Unreadable = { unreadable: string; rediscover?: true };

type At = bigint | 'latest';
const blockOf = (at: At) => (at === 'latest' ? { blockTag: 'latest' as const } : { blockNumber: at });

/** Every call's answer, in order; the first that reverts throws. */
export async function readAll(client: PublicClient, contracts: readonly unknown[], at: At): Promise<unknown[]> {
  if (contracts.length === 0) return [];
  return multicall(client, { contracts: contracts as never, deployless: true, allowFailure: false, batchSize: 0, ...blockOf(at) });
}

/** Each call's own answer, in order: a call that reverts is a failure in its place, and the others still answer. */
export async function readEach(client: PublicClient, contracts: readonly unknown[], at: At): Promise<CallAnswer[]> {
  if (contracts.length === 0) return [];
  const answers = await multicall(client, { contracts: contracts as never, deployless: true, allowFailure: true, batchSize: 0, ...blockOf(at) });
  return answers as CallAnswer[];
}

/**
 * One entity's answers (a pool's, an exchange's: `calls` and `answers` side by side) as its results, or why they are
 * not: the first call that failed, by function and contract, in the contract's own words.
 */
export function resultsOrWhy(calls: readonly unknown[], answers: readonly CallAnswer[]): unknown[] | Unreadable {
  const results: unknown[] = [];
  for (const [i, answer] of answers.entries()) {
    if (answer.status === 'failure') {
      const call = calls[i] as { address?: string; functionName?: string };
      return { unreadable: `${call.functionName ?? 'a view'} on ${call.address ?? 'a contract'} reverted: ${reasonOf(answer.error)}` };
    }
    results.push(answer.result);
  }
  return results;
}

export const isUnreadable = (value: unknown): value is Unreadable =>
  typeof value === 'object' && value !== null && 'unreadable' in value && typeof (value as Unreadable).unreadable === 'string';
