/**
 * What a V3 position strategy's own steps left in the wallet of the position's two tokens, which its next compound puts
 * back: the leftover of a ratio swap sized at the reference (its fee and impact), what a move's mint could not use,
 * what a compound stopped after its collect holds. Read from the chain, never from a column: for each run of the
 * strategy, the wallet's own transactions of its trades (the wallet history's rows, proven by its tags), each one the
 * chain shows from the wallet with the call the wallet tagged and mined successfully, and in each receipt the two
 * tokens' transfers to and from the wallet. A run's steps together left their sum; an opening's also had the file's
 * amounts to spend (what it did not use is left over too); an exit's proceeds are the user's and are never put back.
 * What the runs left, less what later runs put back, is never more than the wallet holds.
 */
import { type Address, type Hex, type Log, erc20Abi, isAddressEqual, parseEventLogs } from 'viem';
import type { ChainClient } from '../chains.ts';
import { parseTradeSlot } from '../model/trade-slot.ts';
import type { TokenAmounts } from '../pools/uniswap-v3/liquidity.ts';
import type { V3PositionStrategy } from '../strategy/types.ts';
import { ownTransactionReceipt } from '../trade/own-transaction.ts';
import type { PastTrade, WalletHistory } from '../trade/wallet-history.ts';

/** The strategy's leftovers in the wallet now, token0 and token1, raw; none below zero. */
export async function leftovers(strategy: V3PositionStrategy, deps: { client: ChainClient; wallet: Address; history: WalletHistory }): Promise<TokenAmounts> {
  const { token0, token1 } = strategy.pool;
  const trades = deps.history.ofStrategy(strategy.id).filter((past) => !stepOf(past).startsWith('exit'));
  const flows = await Promise.all(trades.map((past) => walletFlows(deps.client, deps.wallet, past, [token0.address, token1.address])));
  let [left0, left1] = [0n, 0n];
  for (const [amount0, amount1] of flows) {
    left0 += amount0;
    left1 += amount1;
  }
  // An opening spent what the file gave it, not what the wallet held before: what it did not use is left over.
  const opened = new Set(trades.filter((past) => stepOf(past).startsWith('open')).map((past) => parseTradeSlot(past.record.slot).runSlot));
  if (opened.size > 0 && strategy.open) {
    left0 += strategy.open.amounts.amount0 * BigInt(opened.size);
    left1 += strategy.open.amounts.amount1 * BigInt(opened.size);
  }
  const [held0, held1] = await Promise.all(
    [token0.address, token1.address].map((token) =>
      deps.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [deps.wallet] }),
    ),
  );
  const bounded = (left: bigint, held: bigint) => (left < 0n ? 0n : left > held ? held : left);
  return { amount0: bounded(left0, held0 as bigint), amount1: bounded(left1, held1 as bigint) };
}

const stepOf = (past: PastTrade) => parseTradeSlot(past.record.slot).key ?? '';

/**
 * What one trade's own transactions moved of the two tokens to the wallet (less what they took from it): each signed
 * trade transaction the chain shows mined successfully, from the wallet, with the call the wallet tagged.
 */
async function walletFlows(client: ChainClient, wallet: Address, past: PastTrade, tokens: readonly [Address, Address]): Promise<[bigint, bigint]> {
  const flows: [bigint, bigint] = [0n, 0n];
  for (const attempt of past.attempts.filter((signed) => signed.purpose === 'trade')) {
    const receipt = await ownTransactionReceipt(client, wallet, past.record, attempt.hash as Hex);
    if (!receipt) continue;
    for (const [i, token] of tokens.entries()) flows[i] = (flows[i] as bigint) + netTransfers(receipt.logs, token, wallet);
  }
  return flows;
}

/** `token`'s transfers to `wallet` less those from it, in a receipt's logs. */
function netTransfers(logs: readonly Log[], token: Address, wallet: Address): bigint {
  let net = 0n;
  for (const event of parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: logs as Log[] })) {
    if (!isAddressEqual(event.address, token)) continue;
    if (isAddressEqual(event.args.to, wallet)) net += event.args.value;
    if (isAddressEqual(event.args.from, wallet)) net -= event.args.value;
  }
  return net;
}
