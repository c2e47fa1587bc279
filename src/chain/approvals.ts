import { type Address, encodeFunctionData, erc20Abi, maxUint256 } from 'viem';
import type { ChainClient } from './chains.ts';
import type { WalletSender } from './sender.ts';

export type ApprovalMode = 'exact' | 'unlimited';

export function readAllowance(client: ChainClient, token: Address, owner: Address, spender: Address): Promise<bigint> {
  return client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] });
}

/**
 * Makes sure `spender` may pull `amount` of `token` from the sender's wallet, approving exactly `amount`
 * (or unlimited when configured) through the same sender and ledger intent. Read again right before use.
 */
export async function ensureAllowance(
  client: ChainClient,
  sender: WalletSender,
  approval: { token: Address; spender: Address; amount: bigint; mode: ApprovalMode; intentId: string },
): Promise<'sufficient' | 'approved'> {
  const current = await readAllowance(client, approval.token, sender.address, approval.spender);
  if (current >= approval.amount) return 'sufficient';
  const value = approval.mode === 'unlimited' ? maxUint256 : approval.amount;
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [approval.spender, value] });
  const { receipt } = await sender.send({ to: approval.token, data }, { intentId: approval.intentId, purpose: 'approve' });
  if (receipt.status !== 'success') throw new Error(`the approval of ${approval.token} for ${approval.spender} reverted`);
  return 'approved';
}
