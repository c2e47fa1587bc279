/** What a mined transaction actually paid, read from its logs (never from the quote). */
import { type Address, type TransactionReceipt, erc20Abi, isAddressEqual, parseEventLogs, zeroAddress } from 'viem';
import { oneClickWithdrawAbi, routerAbi } from './abi.ts';

/** The router's Swap event paying `recipient`. */
export function swapOutput(receipt: TransactionReceipt, router: Address, recipient: Address): bigint | undefined {
  const events = parseEventLogs({ abi: routerAbi, eventName: 'Swap', logs: receipt.logs });
  return events.find((event) => isAddressEqual(event.address, router) && isAddressEqual(event.args.to, recipient))?.args.outputAmount;
}

/** LP or gauge tokens minted to `recipient` by a deposit (ERC20 Transfer from the zero address). */
export function mintedTo(receipt: TransactionReceipt, token: Address, recipient: Address): bigint {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
    .filter((event) => isAddressEqual(event.address, token) && isAddressEqual(event.args.from, zeroAddress) && isAddressEqual(event.args.to, recipient))
    .reduce((sum, event) => sum + event.args.value, 0n);
}

/** What the one-transaction withdraw paid, from its OneClickWithdraw event. */
export function withdrawOutput(receipt: TransactionReceipt, oneClickFarm: Address, recipient: Address): bigint | undefined {
  const events = parseEventLogs({ abi: oneClickWithdrawAbi, eventName: 'OneClickWithdraw', logs: receipt.logs });
  return events.find((event) => isAddressEqual(event.address, oneClickFarm) && isAddressEqual(event.args.to, recipient))?.args.amountOut;
}
