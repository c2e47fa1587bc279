/**
 * The approve and sign stages: the approval a trade needs (if its allowance is short) and the trade itself,
 * signed on consecutive nonces with the fees and gas the check stage read, and stored before any is sent.
 */
import { encodeFunctionData, erc20Abi } from 'viem';
import { gasWithHeadroom } from '../chain/fees.ts';
import type { ProvenNonces } from '../chain/nonces.ts';
import type { UnsignedTx, Wallet } from '../chain/wallet.ts';
import type { Attempt } from '../model/attempt.ts';
import type { Checked } from './check.ts';
import type { Trade } from '../model/trade.ts';

/** The approval transaction to sign before the trade, when the check found the allowance short. */
export function approvalTx(checked: Checked, nonce: number): UnsignedTx | undefined {
  const { approval } = checked;
  if (!approval) return undefined;
  return {
    to: approval.token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [approval.spender, approval.value] }),
    purpose: 'approve',
    nonce,
    // Without a simulated figure (a node that cannot simulate), an ERC20 approval's usual ceiling.
    gas: checked.gas.approve === undefined ? 100_000n : gasWithHeadroom(checked.gas.approve),
    fees: checked.fees,
  };
}

/** Signs [approval?, trade] on consecutive nonces (after `proven`, the wallet's proven history) and stores them; the trade moves to `signed`. */
export async function signTrade(wallet: Wallet, trade: Trade, checked: Checked, proven: ProvenNonces): Promise<Attempt[]> {
  if (checked.gas.trade === undefined) throw new Error('signTrade: the trade was not simulated');
  const first = await wallet.nonces.next(checked.reads.pendingNonce, trade.id, proven);
  const approve = approvalTx(checked, first);
  const tradeTx: UnsignedTx = {
    to: checked.call.target,
    data: checked.call.data,
    purpose: 'trade',
    nonce: approve ? first + 1 : first,
    gas: gasWithHeadroom(checked.gas.trade),
    fees: checked.fees,
  };
  return wallet.sign(trade.id, approve ? [approve, tradeTx] : [tradeTx]);
}
