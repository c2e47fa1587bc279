import type { Address } from 'viem';
import type { Allowlist } from '../guard/guards.ts';
import type { AddressBook } from './address-book.ts';

/**
 * Contracts known per chain. Celo mainnet's router is built in; its OneClickFarm and farms are not
 * published, so deposits there need them from an address book.
 */
const builtIn: Record<number, Allowlist> = {
  42220: { routers: ['0xa730B463395f5ca07EcE5cefeccF7f45e1E2C9Bf'], oneClickFarms: [], farms: [], gauges: [] },
};

/** The allowlist for a chain: the built-in contracts plus those of an address book for the same chain. */
export function allowlistFor(chainId: number, book?: AddressBook): Allowlist {
  const base = builtIn[chainId] ?? { routers: [], oneClickFarms: [], farms: [], gauges: [] };
  if (!book || book.chainId !== chainId) return base;
  const farms: Address[] = Object.values(book.contracts.farms);
  return {
    routers: [...base.routers, book.contracts.router],
    oneClickFarms: [...base.oneClickFarms, book.contracts.oneClickFarm],
    farms: [...base.farms, ...farms],
    gauges: [...base.gauges, ...Object.values(book.contracts.gauges).map((gauge) => gauge.address)],
  };
}
