/**
 * The check after every trade: the wallet's balances just before and just after the mined block, compared with
 * what was signed. The input spent is at most the amount signed, the output grew by at least the minimum and by
 * as much as the receipt's logs claim, no other token of the route left the wallet, and the native coin paid gas
 * only. A receipt can lie (a token's events are its own); balances are what the wallet has.
 */
import { type Address, type Block, type Hex, type TransactionReceipt, isAddressEqual } from 'viem';
import type { ChainClient } from '../chains.ts';
import { isStateUnavailable } from '../chain/node-errors.ts';
import { type BlockCheckOptions, checkBlockTogether } from './block-balances.ts';
import { type BalanceCheck, type BalanceReads, anomalyReadTwice, readWalletAround, readsOfBlock, tokensOfCall } from './call-tokens.ts';
import type { Settlement, TradeRecord, WalletBalances } from '../model/trade.ts';
import { kindOf } from './kinds/registry.ts';
import { spentTokens } from '../model/kinds/registry.ts';

export type { BalanceCheck, BalanceReads } from './call-tokens.ts';

/**
 * Blocks a node surely keeps the state of: older ones may be gone. Geth keeps 128 by default; anvil, mining many
 * blocks a second, has been seen to lose the state of blocks a few dozen old.
 */
const stateKeptBlocks = 16n;

/** Reads what the check of a trade compares, in this tick (one batch with whatever else the caller asks now). */
export function readBalances(client: ChainClient, record: TradeRecord, blockNumber: bigint): Promise<BalanceReads> {
  return readWalletAround(client, record.wallet, tokensOfCall(record, record.call?.data), blockNumber);
}

/**
 * What the check may take from reads already made: the balances (`readBalances` for the trade's block), and the
 * block with its transactions and the receipts in hand (to tell the gas of the trade's own transactions in it).
 */
export type BalanceCheckOptions = {
  nativeToken?: Address;
  ownHashes?: readonly Hex[];
  reads?: Promise<BalanceReads>;
  block?: Block<bigint, true>;
  receipts?: ReadonlyMap<Hex, TransactionReceipt>;
  /** Finds the wallet's other transactions in the ledger: a block holding several of our trades is checked as one. */
  lookup?: BlockCheckOptions['lookup'];
};

export async function checkBalanceChanges(
  client: ChainClient,
  record: TradeRecord,
  mined: { blockNumber: bigint; gasUsed: bigint; effectiveGasPrice: bigint; amountOut?: bigint; position?: Settlement['position'] },
  options: BalanceCheckOptions = {},
): Promise<BalanceCheck> {
  const wallet = record.wallet;
  const tokens = tokensOfCall(record, record.call?.data);
  const readAgain = () => readOrSkip(client, mined.blockNumber, readBalances(client, record, mined.blockNumber));
  let read = await readOrSkip(client, mined.blockNumber, options.reads ?? readBalances(client, record, mined.blockNumber));
  if (!('moved' in read)) return read;
  // The reads must be of the block itself (readsOfBlock): checked whenever the block is in hand, or more than this
  // trade's one transaction seems to be in it.
  let block = options.block?.number === mined.blockNumber ? options.block : undefined;
  if (block || read.moved !== 1) {
    block ??= await client.getBlock({ blockNumber: mined.blockNumber, includeTransactions: true });
    const listed = block.transactions.filter((tx) => isAddressEqual(tx.from, wallet)).length;
    read = await readsOfBlock(read, readAgain, listed, mined.blockNumber);
    if (!('moved' in read)) return read;
  }
  // The trade's approval may share its block (it moves no balance, only gas); another of our trades in it is checked
  // with it (block-balances.ts); a transaction of the wallet that is not ours makes the comparison meaningless.
  let gas = mined.gasUsed * mined.effectiveGasPrice;
  if (read.moved !== 1 && block) {
    const together = await sameBlockGas(client, wallet, block, options);
    if (together === undefined) {
      if (options.lookup)
        return checkBlockTogether(client, wallet, block, { lookup: options.lookup, receipts: options.receipts, nativeToken: options.nativeToken });
      return {
        ok: 'skipped',
        why: `the wallet sent ${read.moved} transactions in block ${mined.blockNumber}, not all of this trade`,
        after: afterOf(tokens, mined.blockNumber, read),
      };
    }
    gas = together;
  }
  return anomalyReadTwice(judge(record, tokens, mined, gas, read, options.nativeToken), async () => {
    const again = await readAgain();
    return 'moved' in again ? judge(record, tokens, mined, gas, again, options.nativeToken) : again;
  });
}

const afterOf = (tokens: readonly Address[], blockNumber: bigint, read: BalanceReads): WalletBalances => ({
  blockNumber,
  tokens: tokens.map((token, i) => ({ token, balance: read.tokensAfter[i] as bigint })),
  native: read.nativeAfter,
});

/** The trade's balance rules over one read of the balances; `gas`: what the wallet's transactions in the block paid. */
function judge(
  record: TradeRecord,
  tokens: readonly Address[],
  mined: { blockNumber: bigint; amountOut?: bigint; position?: Settlement['position'] },
  gas: bigint,
  read: BalanceReads,
  nativeToken: Address | undefined,
): BalanceCheck {
  const { tokensBefore, tokensAfter, nativeBefore, nativeAfter } = read;
  const after = afterOf(tokens, mined.blockNumber, read);
  const problems: string[] = [];
  const change = (i: number) => (tokensAfter[i] as bigint) - (tokensBefore[i] as bigint);
  problems.push(...kindOf(record).balanceProblems(record, [change(0), change(1)], mined));
  for (let i = 2; i < tokens.length; i++) {
    if (change(i) < 0n) problems.push(`${-change(i)} of ${tokens[i]}, a token the route only passes through, left the wallet`);
  }
  // Gas is the native coin's only way out, unless the trade's input is the chain's native token itself (CELO on Celo).
  const nativeAsInput = spentTokens(record).find((spend) => nativeToken !== undefined && isAddressEqual(nativeToken, spend.token))?.amount ?? 0n;
  const nativeSpent = nativeBefore - nativeAfter;
  if (nativeSpent > gas + nativeAsInput) problems.push(`${nativeSpent} wei of the native coin left the wallet; gas was ${gas}`);
  return problems.length === 0 ? { ok: true, after } : { ok: false, anomaly: `balances after block ${mined.blockNumber}: ${problems.join('; ')}`, after };
}

/**
 * The reads, or `skipped` for a node that no longer keeps the block's state: a trade followed long after it was mined
 * (a daemon taking over a wallet, a restart) cannot have its balances shown, and never will. Only for a block that is
 * old indeed: a node that says so of a recent one is asked again later (the error is thrown).
 */
async function readOrSkip(client: ChainClient, blockNumber: bigint, reads: Promise<BalanceReads>): Promise<BalanceReads | BalanceCheck> {
  try {
    return await reads;
  } catch (error) {
    const head = isStateUnavailable(error) ? await client.getBlockNumber().catch(() => undefined) : undefined;
    if (head === undefined || head - blockNumber < stateKeptBlocks) throw error;
    return { ok: 'skipped', why: `the node no longer has the state of block ${blockNumber} (${head - blockNumber} blocks ago) to compare the balances` };
  }
}

/** The gas of the wallet's transactions in a block when all of them are this trade's; undefined otherwise. */
async function sameBlockGas(client: ChainClient, wallet: Address, block: Block<bigint, true>, options: BalanceCheckOptions): Promise<bigint | undefined> {
  const ownHashes = options.ownHashes ?? [];
  const sent = block.transactions.filter((tx) => isAddressEqual(tx.from, wallet));
  if (!sent.every((tx) => ownHashes.some((hash) => hash.toLowerCase() === tx.hash.toLowerCase()))) return undefined;
  const receipts = await Promise.all(sent.map((tx) => options.receipts?.get(tx.hash) ?? client.getTransactionReceipt({ hash: tx.hash })));
  return receipts.reduce((sum, receipt) => sum + receipt.gasUsed * receipt.effectiveGasPrice, 0n);
}
