/**
 * The balance check of a block in which the wallet sent several of our trades (pipelined nonces mine together): their
 * changes mix in the balances, so the block's trades are compared together. Each token's balance must have changed
 * by at least what the trades together say it should: what their receipts' logs say arrived, less what they were
 * signed to spend (at most). The native coin paid no more than the gas of the wallet's transactions in the block
 * (and what trades selling the native token spent). A transaction of the wallet the ledger does not know makes the
 * comparison meaningless: skipped, with why. Computed once per wallet and block, for every trade in it.
 */
import { type Address, type Block, type Hex, type TransactionReceipt, isAddressEqual } from 'viem';
import type { ChainClient } from '../chains.ts';
import { transferredTo } from '../chain/outcome.ts';
import type { AttemptPurpose } from '../model/attempt.ts';
import { type BalanceCheck, type BalanceReads, anomalyReadTwice, readWalletAround, readsOfBlock, tokensOfCall } from './call-tokens.ts';
import type { TradeRecord, WalletBalances } from '../model/trade.ts';
import { spentTokens } from '../model/kinds/registry.ts';
import { kindOf } from './kinds/registry.ts';

/** What the ledger knows of one of the wallet's transactions: its purpose, and for a trade's call, the trade. */
export type OwnTransaction = { purpose: AttemptPurpose; record?: TradeRecord };

/** Finds a transaction of the wallet in the ledger, by hash; undefined: not one of ours. */
export type OwnLookup = (hash: Hex) => Promise<OwnTransaction | undefined>;

export type BlockCheckOptions = { lookup: OwnLookup; receipts?: ReadonlyMap<Hex, TransactionReceipt>; nativeToken?: Address };

/** Checks of recent blocks, shared by the trades in them (a block's trades settle at about the same time). */
const recent = new Map<string, Promise<BalanceCheck>>();
const keptChecks = 64;

export function checkBlockTogether(client: ChainClient, wallet: Address, block: Block<bigint, true>, options: BlockCheckOptions): Promise<BalanceCheck> {
  const key = `${client.chain?.id}:${wallet.toLowerCase()}:${block.hash}`;
  let check = recent.get(key);
  if (!check) {
    check = compare(client, wallet, block, options);
    recent.set(key, check);
    // A failed read is not kept: the next trade of the block asks again.
    check.catch(() => recent.get(key) === check && recent.delete(key));
    for (const old of recent.keys()) {
      if (recent.size <= keptChecks) break;
      recent.delete(old);
    }
  }
  return check;
}

async function compare(client: ChainClient, wallet: Address, block: Block<bigint, true>, options: BlockCheckOptions): Promise<BalanceCheck> {
  if (block.number === null) throw new Error('checkBlockTogether: a pending block has no balances to compare');
  const number = block.number;
  const sent = block.transactions.filter((tx) => isAddressEqual(tx.from, wallet));
  const own = await Promise.all(sent.map((tx) => options.lookup(tx.hash)));
  const stranger = sent.find((_tx, i) => own[i] === undefined);
  if (stranger) return { ok: 'skipped', why: `the wallet sent ${stranger.hash} in block ${number}, a transaction routekeeper did not sign` };
  const trades = own.flatMap((tx, i) => (tx?.purpose === 'trade' && tx.record ? [{ record: tx.record, tx: sent[i] as (typeof sent)[number] }] : []));
  const tokens: Address[] = [];
  for (const { record } of trades)
    for (const token of tokensOfCall(record, record.call?.data)) if (!tokens.some((known) => isAddressEqual(known, token))) tokens.push(token);

  // One batch: the receipts not in hand and the balances compared; then the rule that they are the block's own.
  const readAll = async () => {
    const [receipts, balances] = await Promise.all([
      Promise.all(sent.map((tx) => options.receipts?.get(tx.hash) ?? client.getTransactionReceipt({ hash: tx.hash }))),
      readWalletAround(client, wallet, tokens, number),
    ]);
    return { ...balances, receipts };
  };
  const read = await readsOfBlock(await readAll(), readAll, sent.length, number);
  if (!('moved' in read)) return read;
  const judgeReads = (reads: Awaited<ReturnType<typeof readAll>>) => judge(wallet, trades, tokens, number, reads, options.nativeToken);
  return anomalyReadTwice(judgeReads(read), async () => judgeReads(await readAll()));
}

/** The block's trades' balance rules over one read of the balances and the receipts of the wallet's transactions. */
function judge(
  wallet: Address,
  trades: readonly { record: TradeRecord; tx: { hash: Hex } }[],
  tokens: readonly Address[],
  number: bigint,
  read: BalanceReads & { receipts: readonly TransactionReceipt[] },
  nativeToken: Address | undefined,
): BalanceCheck {
  const { receipts, tokensBefore, tokensAfter, nativeBefore, nativeAfter } = read;
  const after: WalletBalances = { blockNumber: number, tokens: tokens.map((token, i) => ({ token, balance: tokensAfter[i] as bigint })), native: nativeAfter };

  // What the trades that succeeded say: each token's least change, and the native coin's most spent.
  const least = new Map<string, bigint>(tokens.map((token) => [token.toLowerCase(), 0n]));
  const add = (token: Address, amount: bigint) => least.set(token.toLowerCase(), (least.get(token.toLowerCase()) ?? 0n) + amount);
  let nativeMost = receipts.reduce((sum, receipt) => sum + receipt.gasUsed * receipt.effectiveGasPrice, 0n);
  for (const { record, tx } of trades) {
    const receipt = receipts.find((candidate) => candidate.transactionHash.toLowerCase() === tx.hash.toLowerCase());
    if (receipt?.status !== 'success') continue;
    // What arrived (a collect or a removal: both of its tokens), less what the trade was signed to spend at most.
    for (const token of kindOf(record).receives(record)) add(token, transferredTo(receipt.logs, token, wallet));
    for (const spend of spentTokens(record)) {
      add(spend.token, -spend.amount);
      if (nativeToken && isAddressEqual(nativeToken, spend.token)) nativeMost += spend.amount;
    }
  }
  const problems: string[] = [];
  tokens.forEach((token, i) => {
    const change = (tokensAfter[i] as bigint) - (tokensBefore[i] as bigint);
    const expected = least.get(token.toLowerCase()) ?? 0n;
    if (change < expected) problems.push(`the balance of ${token} changed by ${change}; the trades' logs and signed amounts allow no less than ${expected}`);
  });
  const nativeSpent = nativeBefore - nativeAfter;
  if (nativeSpent > nativeMost)
    problems.push(`${nativeSpent} wei of the native coin left the wallet; its ${receipts.length} transactions' gas was ${nativeMost}`);
  const together = `the wallet's ${trades.length} trades in block ${number} together`;
  return problems.length === 0 ? { ok: true, after } : { ok: false, anomaly: `balances after block ${number}, for ${together}: ${problems.join('; ')}`, after };
}
