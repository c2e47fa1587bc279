/** Every kind of pool the routing service knows (kind.ts), by id: a new venue is a module of its own and a line here. */
import { zeroAddress } from 'viem';
import type { KnownFactory } from '../config/chain-data.ts';
import type { FactorySource, PoolKind, PoolKindId } from './kind.ts';
import { fpmmVenue } from './mento-fpmm/hop.ts';
import { mentoFpmm } from './mento-fpmm/kind.ts';
import { mentoExchangeVenue } from './mento/hop.ts';
import { mentoV2 } from './mento/kind.ts';
import type { FeedVenue } from './venue.ts';
import { uniswapV2 } from './uniswap-v2/kind.ts';
import { uniswapV3 } from './uniswap-v3/kind.ts';

export const poolKinds: Readonly<Record<PoolKindId, PoolKind>> = {
  'uniswap-v2': uniswapV2,
  'uniswap-v3': uniswapV3,
  'mento-v2': mentoV2,
  'mento-fpmm': mentoFpmm,
};

/**
 * The kinds whose venues are held to their own rate feed rather than to a history (venue.ts): the daemon proves and
 * checks a hop through one by its kind's venue module. The other kinds' hops are pools of a known factory.
 */
export const feedVenues: Readonly<Partial<Record<PoolKindId, FeedVenue>>> = {
  'mento-v2': mentoExchangeVenue as FeedVenue,
  'mento-fpmm': fpmmVenue as FeedVenue,
};

/** The events of every kind's factories and pools, once each: what each block's one log request asks for. */
export const poolKindEvents = Object.values(poolKinds).flatMap((kind) => kind.events);

/**
 * A factory of the daemon's chain data as a source of pools to look at (doctor samples one to check its init code
 * hash): no adapter routes through it.
 */
export function sampledFactory(factory: KnownFactory): FactorySource {
  const adapter = { address: zeroAddress, kind: factory.kind };
  return factory.kind === 'uniswap-v2'
    ? { address: factory.address, kind: factory.kind, protocol: factory.kind, feeBps: factory.feePpm / 100, adapter }
    : { address: factory.address, kind: factory.kind, protocol: factory.kind, fromBlock: 0n, adapter };
}
