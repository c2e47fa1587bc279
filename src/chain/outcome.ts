/** What a mined transaction actually paid, read from its logs (never from the quote). */
import { type Address, type TransactionReceipt, erc20Abi, isAddressEqual, parseEventLogs, zeroAddress } from 'viem';
import { oneClickWithdrawAbi, routerAbi } from './abi.ts';

/** The router's Swap event paying `recipient`. */
export function swapOutput(receipt: TransactionReceipt, router: Address, recipient: Address): bigint | undefined {
  const events = parseEventLogs({ abi: routerAbi, eventName: 'Swap', logs: receipt.logs });
  return events.find((event) => isAddressEqual(event.address, router) && isAddressEqual(event.args.to, recipient))?.args.outputAmount;
}

/** Tokens transferred to `recipient` in the receipt (from `from` only, when given). */
export function transferredTo(receipt: TransactionReceipt, token: Address, recipient: Address, from?: Address): bigint {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
    .filter((event) => isAddressEqual(event.address, token) && isAddressEqual(event.args.to, recipient) && (!from || isAddressEqual(event.args.from, from)))
    .reduce((sum, event) => sum + event.args.value, 0n);
}

/** LP or gauge tokens minted to `recipient` by a deposit (ERC20 Transfer from the zero address). */
export function mintedTo(receipt: TransactionReceipt, token: Address, recipient: Address): bigint {
  return transferredTo(receipt, token, recipient, zeroAddress);
}

/** What the one-transaction withdraw paid, from its OneClickWithdraw event. */
export function withdrawOutput(receipt: TransactionReceipt, oneClickFarm: Address, recipient: Address): bigint | undefined {
  const events = parseEventLogs({ abi: oneClickWithdrawAbi, eventName: 'OneClickWithdraw', logs: receipt.logs });
  return events.find((event) => isAddressEqual(event.address, oneClickFarm) && isAddressEqual(event.args.to, recipient))?.args.amountOut;
}
