/** What a mined transaction paid, read from its logs (never from the quote). */
import { type Address, type Log, erc20Abi, isAddressEqual, parseEventLogs } from 'viem';
import { routerAbi, routerTenantSwapEventAbi } from '../contracts/abi.ts';

/** Tokens transferred to `recipient` in these logs (ERC20 Transfer events of `token`). */
export function transferredTo(logs: readonly Log[], token: Address, recipient: Address): bigint {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: logs as Log[] })
    .filter((event) => isAddressEqual(event.address, token) && isAddressEqual(event.args.to, recipient))
    .reduce((sum, event) => sum + event.args.value, 0n);
}

/** Tokens `sender` transferred to anyone but `recipient` in these logs: what a router kept back as fees. */
export function transferredToOthers(logs: readonly Log[], token: Address, sender: Address, recipient: Address): bigint {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: logs as Log[] })
    .filter((event) => isAddressEqual(event.address, token) && isAddressEqual(event.args.from, sender) && !isAddressEqual(event.args.to, recipient))
    .reduce((sum, event) => sum + event.args.value, 0n);
}

/**
 * What `router`'s Swap events say it paid `recipient`, from either version of the event (the published ABI's
 * 6-field one, or the public source's 7-field one with `tenantId`); undefined when the router emitted none.
 */
export function swapEventOutput(logs: readonly Log[], router: Address, recipient: Address): bigint | undefined {
  const fromRouter = logs.filter((log) => isAddressEqual(log.address, router)) as Log[];
  const events = [
    ...parseEventLogs({ abi: routerAbi, eventName: 'Swap', logs: fromRouter }),
    ...parseEventLogs({ abi: routerTenantSwapEventAbi, eventName: 'Swap', logs: fromRouter }),
  ].filter((event) => isAddressEqual(event.args.to, recipient));
  if (events.length === 0) return undefined;
  return events.reduce((sum, event) => sum + event.args.outputAmount, 0n);
}
