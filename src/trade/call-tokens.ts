/**
 * What the balance checks share (balances.ts for a trade, block-balances.ts for a block's trades together): the tokens
 * a trade's call can move, the wallet's balances of them around a block, and what a check concludes.
 */
import { type Address, type Hex, erc20Abi, isAddressEqual } from 'viem';
import type { ChainClient } from '../chains.ts';
import type { TradeRecord, WalletBalances } from '../model/trade.ts';
import { kindOf } from './kinds/registry.ts';

export type BalanceCheck = ({ ok: true } | { ok: false; anomaly: string } | { ok: 'skipped'; why: string }) & { after?: WalletBalances };

/** The tokens a call can move: the trade's own, and those its kind's call names (every token on its routes). */
export function tokensOfCall(record: Pick<TradeRecord, 'kind' | 'tokenIn' | 'tokenOut'>, data: Hex | undefined): Address[] {
  const tokens: Address[] = [record.tokenIn, record.tokenOut];
  let named: readonly Address[] = [];
  try {
    named = data ? kindOf(record).callTokens(data) : [];
  } catch {
    // A call we cannot decode is our own encoding gone wrong; the trade's own tokens are still checked.
  }
  for (const token of named) if (!tokens.some((known) => isAddressEqual(known, token))) tokens.push(token);
  return tokens;
}

/** The wallet's balances of some tokens, of its native coin, and its transaction count, just before and at a block. */
export type BalanceReads = { tokensBefore: readonly bigint[]; tokensAfter: readonly bigint[]; nativeBefore: bigint; nativeAfter: bigint; moved: number };

/** Reads them, in this tick (one batch with whatever else the caller asks now). */
export async function readWalletAround(client: ChainClient, wallet: Address, tokens: readonly Address[], blockNumber: bigint): Promise<BalanceReads> {
  const before = blockNumber - 1n;
  const balancesAt = (at: bigint) =>
    Promise.all(tokens.map((token) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet], blockNumber: at })));
  const [tokensBefore, tokensAfter, nativeBefore, nativeAfter, countBefore, countAfter] = await Promise.all([
    balancesAt(before),
    balancesAt(blockNumber),
    client.getBalance({ address: wallet, blockNumber: before }),
    client.getBalance({ address: wallet, blockNumber }),
    client.getTransactionCount({ address: wallet, blockNumber: before }),
    client.getTransactionCount({ address: wallet, blockNumber }),
  ]);
  return { tokensBefore, tokensAfter, nativeBefore, nativeAfter, moved: countAfter - countBefore };
}

/**
 * Reads that are the block's own. A node asked about its head block while it mines the next may answer with a state
 * that already holds the next block's transactions (anvil does): the wallet's count must have moved by exactly its
 * transactions the block lists, or the reads are of another state. Asked again once (the block is no longer being
 * built on by then); if they still disagree, `skipped` with why, never a conclusion drawn from another state.
 */
export async function readsOfBlock<T extends { moved: number }>(
  first: T,
  readAgain: () => Promise<T | BalanceCheck>,
  listed: number,
  blockNumber: bigint,
): Promise<T | BalanceCheck> {
  if (first.moved === listed) return first;
  const again = await readAgain();
  if (!('moved' in again) || again.moved === listed) return again;
  return {
    ok: 'skipped',
    why: `the node's count of the wallet's transactions moved by ${again.moved} in block ${blockNumber}, which lists ${listed}: its state is not that block's`,
  };
}

/**
 * An anomaly pauses the wallet, and a node's state of its head block can move while it mines the next (anvil's does,
 * for some reads of a batch and not others): an anomaly is concluded only when the balances read again say so too.
 */
export function anomalyReadTwice(first: BalanceCheck, judgeReadAgain: () => Promise<BalanceCheck>): Promise<BalanceCheck> {
  return first.ok === false ? judgeReadAgain() : Promise.resolve(first);
}
