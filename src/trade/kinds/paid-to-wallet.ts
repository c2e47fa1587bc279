/**
 * What a receipt shows a routed trade or a claim paid the wallet: the output token's Transfer logs to the wallet, and
 * for a swap what the router's Swap event (either version) says, which must agree, and the partner's fee beside it.
 */
import type { Address, Log } from 'viem';
import { swapEventOutput, transferredTo, transferredToOthers } from '../../chain/outcome.ts';
import type { TradeRecord } from '../../model/trade.ts';
import type { Outcome } from './kind.ts';

/** `router`: the router whose Swap event must agree (a swap's), none for a kind whose call reports no such event. */
export function paidToWallet(trade: Pick<TradeRecord, 'tokenOut' | 'wallet' | 'call'>, receipt: { logs: readonly Log[] }, router?: Address): Outcome {
  const logs = receipt.logs as Log[];
  const amountOut = transferredTo(logs, trade.tokenOut, trade.wallet);
  const reportedOut = router ? swapEventOutput(logs, router, trade.wallet) : undefined;
  // The router pays a routing partner's fee out of the output before the wallet's share (docs/spec/onchain-interfaces.md).
  const partnerFee = router ? transferredToOthers(logs, trade.tokenOut, router, trade.wallet) : undefined;
  if (amountOut === 0n) {
    const said = reportedOut === undefined ? '' : ` (the router's Swap event says ${reportedOut})`;
    return { reportedOut, anomaly: `the receipt shows no transfer of ${trade.tokenOut} to the wallet${said}` };
  }
  if (reportedOut !== undefined && reportedOut !== amountOut) {
    return { amountOut, reportedOut, partnerFee, anomaly: `the router's Swap event says ${reportedOut}, the token's Transfer logs say ${amountOut}` };
  }
  if (trade.call && amountOut < trade.call.minOut) {
    return { amountOut, reportedOut, partnerFee, anomaly: `the wallet received ${amountOut}, less than the minimum ${trade.call.minOut} the call enforces` };
  }
  return { amountOut, reportedOut, partnerFee };
}

/**
 * A routed trade's balances: no more than signed left the wallet (`spends`: none for a claim, whose `tokenIn` is the
 * gauge), and the output grew by at least the minimum and what the receipt's logs say arrived.
 */
export function paidBalanceProblems(
  record: Pick<TradeRecord, 'tokenIn' | 'tokenOut' | 'amountIn' | 'call'>,
  [change0, change1]: readonly [bigint, bigint],
  mined: Pick<Outcome, 'amountOut'>,
  spends = true,
): string[] {
  const problems: string[] = [];
  const spent = -change0;
  if (spends && spent > record.amountIn) problems.push(`${spent} of ${record.tokenIn} left the wallet; ${record.amountIn} was signed`);
  const minOut = record.call?.minOut ?? 1n;
  if (change1 < minOut) problems.push(`the balance of ${record.tokenOut} grew by ${change1}, less than the minimum ${minOut}`);
  else if (mined.amountOut !== undefined && change1 < mined.amountOut) {
    problems.push(`the receipt's logs say ${mined.amountOut} of ${record.tokenOut} arrived; the balance grew by ${change1}`);
  }
  return problems;
}

/** What a routed trade brings to the wallet: its output. */
export const receivesOutput = (record: Pick<TradeRecord, 'tokenOut'>) => [record.tokenOut];
