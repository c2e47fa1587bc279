/**
 * The approve and sign stages: the approval a trade needs (if its allowance is short) and the trade itself,
 * signed on consecutive nonces with the fees and gas the check stage read, and stored before any is sent.
 */
import { encodeFunctionData, erc20Abi } from 'viem';
import { gasWithHeadroom } from '../chain/fees.ts';
import type { ProvenNonces } from '../chain/nonces.ts';
import type { UnsignedTx, Wallet } from '../chain/wallet.ts';
import type { Attempt } from '../model/attempt.ts';
import type { Checked } from './check-types.ts';
import type { Trade } from '../model/trade.ts';

/** The approval transactions to sign before the trade, from `first` on, one per allowance the check found short. */
export function approvalTxs(checked: Checked, first: number): UnsignedTx[] {
  return checked.approvals.map(({ approval, gas }, i) => ({
    to: approval.token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [approval.spender, approval.value] }),
    purpose: 'approve',
    nonce: first + i,
    // Without a simulated figure (a node that cannot simulate), an ERC20 approval's usual ceiling.
    gas: gas === undefined ? 100_000n : gasWithHeadroom(gas),
    fees: checked.fees,
  }));
}

/** Signs [...approvals, trade] on consecutive nonces (after `proven`, the wallet's proven history) and stores them; the trade moves to `signed`. */
export async function signTrade(wallet: Wallet, trade: Trade, checked: Checked, proven: ProvenNonces): Promise<Attempt[]> {
  if (checked.gas.trade === undefined) throw new Error('signTrade: the trade was not simulated');
  const first = await wallet.nonces.next(checked.reads.pendingNonce, trade.id, proven);
  const approvals = approvalTxs(checked, first);
  const tradeTx: UnsignedTx = {
    to: checked.call.target,
    data: checked.call.data,
    purpose: 'trade',
    nonce: first + approvals.length,
    gas: gasWithHeadroom(checked.gas.trade),
    fees: checked.fees,
  };
  return wallet.sign(trade.id, [...approvals, tradeTx]);
}
