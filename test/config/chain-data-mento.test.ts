/**
 * Celo's built-in chain data with and without an address book that only adds routekeeper's Mento v3 adapter (what
 * `routekeeper deploy-adapter mento-fpmm` writes): Mento v3's pool factory is known to the daemon either way, and the
 * routing service finds pools from it only once an adapter routes through them.
 */
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { addressBookSchema } from '../../src/config/address-book.ts';
import { knownContractsFor, routingDataFor } from '../../src/config/chain-data.ts';

const celoFpmmFactory = getAddress('0xa849b475FE5a4B5C9C3280152c7a1945b907613b');
const adapter = getAddress('0x00000000000000000000000000000000000a11ce');

describe("Celo's Mento v3 pools in the chain data", () => {
  it('knows the factory, but routes nothing through it without an adapter', () => {
    expect(knownContractsFor(42220).mentoFpmmFactories).toEqual([celoFpmmFactory]);
    expect(knownContractsFor(42220).adapters.filter((entry) => entry.kind === 'mento-fpmm')).toEqual([]);
    const routing = routingDataFor(42220);
    expect(routing.factories.filter((factory) => factory.kind === 'mento-fpmm')).toEqual([]);
    expect(routing.adapters['mento-fpmm']).toBeUndefined();
  });

  it('routes through its pools once a book that only adds the adapter names one', () => {
    const book = addressBookSchema.parse({ chainId: 42220, contracts: { adapters: { mentoFpmm: adapter.toLowerCase() } } });
    const known = knownContractsFor(42220, book);
    expect(known.adapters.filter((entry) => entry.kind === 'mento-fpmm')).toEqual([{ address: adapter, kind: 'mento-fpmm' }]);
    // The book adds no router or OneClickFarm of its own: Celo's stay the only ones.
    expect(known.routers).toEqual(knownContractsFor(42220).routers);
    expect(known.oneClickFarms).toEqual(knownContractsFor(42220).oneClickFarms);
    const routing = routingDataFor(42220, book);
    expect(routing.factories.filter((factory) => factory.kind === 'mento-fpmm')).toEqual([{ address: celoFpmmFactory, protocol: 'mento', kind: 'mento-fpmm' }]);
    expect(routing.adapters['mento-fpmm']).toEqual({ address: adapter, kind: 'mento-fpmm' });
    expect(routing.routers).toEqual(routingDataFor(42220).routers);
  });
});
