/**
 * What a routing service is started with, from what routekeeper knows of a chain: the built-in chain data and an
 * address book for the same chain (the devnet writes one; a self-hoster may write their own, pools optional).
 */
import { type Address, isAddressEqual } from 'viem';
import type { AddressBook } from '../config/address-book.ts';
import { addressBookAdapterName, chainTimingFor, priceSourcesFor, routingDataFor, tokenDirectory } from '../config/chain-data.ts';
import { ConfigError } from '../errors.ts';
import type { FactorySource, PairAdapter } from '../pools/kind.ts';
import type { EarnConfig } from './quotes.ts';
import type { RoutingServiceOptions } from './server.ts';

export type RoutingSetup = Pick<
  RoutingServiceOptions,
  'chainId' | 'rpcUrl' | 'router' | 'factories' | 'adapterOverride' | 'earn' | 'tokens' | 'headMaxAgeMs' | 'gasToken' | 'pricedTokens' | 'through'
>;

export function routingSetupFor(chainId: number, rpcUrl: string, book?: AddressBook): RoutingSetup {
  const data = routingDataFor(chainId, book);
  const [router] = data.routers;
  if (!router) throw new ConfigError(`no router is known on chain ${chainId}: name one in an address book (contracts.router)`);
  if (data.factories.length === 0)
    throw new ConfigError(`no pool factory is known on chain ${chainId}: name one in an address book (contracts.uniswapV2Factory)`);
  const factories = data.factories.map((factory): FactorySource => {
    const adapter = data.adapters[factory.kind];
    if (!adapter)
      throw new ConfigError(
        `no pair adapter for ${factory.kind} pools is known on chain ${chainId}: name one in an address book (contracts.adapters.${addressBookAdapterName(factory.kind)})`,
      );
    return { ...factory, adapter };
  });
  const own = book && book.chainId === chainId ? book : undefined;
  const timing = chainTimingFor(chainId, book);
  const tokens = tokenDirectory(chainId, book).tokens;
  return {
    chainId,
    rpcUrl,
    router,
    factories,
    adapterOverride: own ? secondAdapterOf(own) : undefined,
    earn: own ? earnOf(own) : undefined,
    tokens,
    // What the daemon prices on its own, from the same chain data: the service proposes no hop it could not hold to it.
    pricedTokens: new Set([...priceSourcesFor(chainId, book)].flatMap(([token, sources]) => (sources.length > 0 ? [token.toLowerCase()] : []))),
    // A route's middle tokens are those the daemon's token list holds them to.
    through: new Set(Object.values(tokens).map((token) => token.address.toLowerCase())),
    // Celo's gas is paid in CELO, which is also an ERC-20 that trades in the pools.
    gasToken: tokens.CELO?.address,
    // One head read per block on a chain with a block time; on demand where blocks come on demand (the devnet).
    headMaxAgeMs: own?.standalone || timing.blockTimeSeconds === undefined ? 0 : timing.blockTimeSeconds * 1000,
  };
}

/** The devnet routes its named pools through its second adapter (fee byte in bips). */
function secondAdapterOf(book: AddressBook): ((pool: Address) => PairAdapter | undefined) | undefined {
  const second = book.routingService;
  if (!second) return undefined;
  const pools = book.pools.filter((pool) => second.bipsPools.includes(pool.name)).map((pool) => pool.address);
  const adapter: PairAdapter = { address: second.bipsAdapter, kind: 'uniswap-v2', feeUnit: 'bips' };
  return (pool) => (pools.some((named) => isAddressEqual(named, pool)) ? adapter : undefined);
}

/** A book's OneClickFarm and farms, which the service's deposit and withdraw quotes name; none without a OneClickFarm. */
function earnOf(book: AddressBook): EarnConfig | undefined {
  if (!book.contracts.oneClickFarm) return undefined;
  return {
    oneClickFarm: book.contracts.oneClickFarm,
    uniswapV2Farm: book.contracts.farms.uniswapV2,
    gaugeFarm: book.contracts.farms.gauge,
    gauges: Object.values(book.contracts.gauges).map((gauge) => ({ address: gauge.address, pool: gauge.pool })),
  };
}
