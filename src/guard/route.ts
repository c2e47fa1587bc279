/**
 * Route verification from the route's own fields, before anything is signed: our partner, listed intermediate
 * tokens and, for each hop through a listed adapter, the pool its `extras` names (a known factory's, with its real
 * fee). A hop through an adapter no list names is left to the flow accounting (guard/flows.ts), which proves from a
 * simulation of the exact transaction that its adapter kept nothing and swapped in a known factory's pool; a node
 * that cannot simulate leaves such a hop unproven, and it is refused.
 * Facts read from the chain (a factory's pair for two tokens, a pool's tokens, a gauge's staking token) never
 * change once non-zero, so they are read once per process.
 */
import { type Address, type Hex, getAddress, isAddressEqual, parseAbi, size, sliceHex, zeroAddress } from 'viem';
import type { ChainClient } from '../chains.ts';
import { isContractRevert } from '../contracts/revert.ts';
import { type FarmKind, type FeePpm, type KnownContracts, feePpmOfPerMille } from '../config/chain-data.ts';
import { pairAddress } from '../contracts/encoding.ts';
import type { PoolFacts, PoolKindId } from '../pools/kind.ts';
import { feedVenues, poolKinds } from '../pools/registry.ts';
import type { VenueList, VenueOfHop } from '../pools/venue.ts';
import { listed } from './guards.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';

/** The kinds of pool a route may swap in (src/pools/). */
export type PoolKind = PoolKindId;

/**
 * A hop of a verified route: the pool it swaps in, that pool's fee (millionths of what it swaps) and, when known
 * from its factory, its kind; a hop through a venue held to its own feed (src/pools/venue.ts) carries that venue.
 */
export type VerifiedHop = { tokenIn: Address; tokenOut: Address; pool: Address; feePpm: FeePpm; kind?: PoolKind; venue?: VenueOfHop };

/** A hop through an adapter no list names: its pool is proven by the flows of the simulated transaction, or not at all. */
export type UnlistedHop = { tokenIn: Address; tokenOut: Address; adapter: Address; field: string };

export const isUnlisted = (hop: VerifiedHop | UnlistedHop): hop is UnlistedHop => 'adapter' in hop;

/** The pool (and gauge) a verified farm position is made of. */
export type VerifiedFarm = { kind: FarmKind; pool: Address; token0: Address; token1: Address; gauge?: Address };

export type RouteLike = { path: readonly Address[]; pairs: readonly Address[]; extras: readonly Hex[]; partner: bigint | number };

const factoryAbi = parseAbi(['function getPair(address, address) view returns (address)', 'function feeTo() view returns (address)']);
const pairAbi = parseAbi(['function token0() view returns (address)', 'function token1() view returns (address)']);
const gaugeAbi = parseAbi(['function stakingToken() view returns (address)']);

/** Who made a pool (of which kind; a listed pool's factory only when its init code hash gives it), and what it charges. */
type PoolOrigin = { kind: PoolKind; feePpm: FeePpm; factory?: Address };

/** Pools an address book lists are constant-product pairs of a fee of their own. */
const listedPoolKind: PoolKind = 'uniswap-v2';

const sameSet = (a: readonly [Address, Address], b: readonly [Address, Address]) =>
  (isAddressEqual(a[0], b[0]) && isAddressEqual(a[1], b[1])) || (isAddressEqual(a[0], b[1]) && isAddressEqual(a[1], b[0]));

export class RouteVerifier {
  readonly known: KnownContracts;
  readonly #client: ChainClient;
  /** Addresses views answer that never change once non-zero (a factory's pair, a pool's tokens), read once. */
  readonly #facts = new Map<string, Promise<Address>>();
  /** Numbers views answer that never change (a pool's fee): undefined when the view reverts, read once. */
  readonly #numbers = new Map<string, Promise<number | undefined>>();
  /** What a pool kind's proof of a pool reads, through the caches above. */
  readonly #poolFacts: PoolFacts;
  /** The chain data's venues of each kind held to its own feed, which a hop through such an adapter must name. */
  readonly #venues = new Map<PoolKind, VenueList<unknown>>();

  constructor(known: KnownContracts, client: ChainClient) {
    this.known = known;
    this.#client = client;
    this.#poolFacts = {
      client,
      address: (key, read) =>
        once(
          this.#facts,
          key,
          () => read().then(getAddress),
          (value) => isAddressEqual(value, zeroAddress),
        ),
      // A revert is the contract's answer and kept; a node that did not answer is asked again next time.
      number: (key, read) => once(this.#numbers, key, () => read().catch((error: unknown) => (isContractRevert(error) ? undefined : Promise.reject(error)))),
    };
  }

  /**
   * A swap route, or one leg of a deposit or withdraw (`field` names it in refusals, e.g. `underlyingRoutes[0]`):
   * our partner, listed intermediate tokens, and per hop through a listed adapter a verified pool with its real fee.
   * Hops through other adapters come back unlisted when `unlisted` is 'prove-by-flows', else they are refused.
   */
  verifyRoute(route: RouteLike, field: string, unlisted?: 'refuse'): Promise<VerifiedHop[]>;
  verifyRoute(route: RouteLike, field: string, unlisted: 'prove-by-flows'): Promise<(VerifiedHop | UnlistedHop)[]>;
  async verifyRoute(route: RouteLike, field: string, unlisted: 'prove-by-flows' | 'refuse' = 'refuse'): Promise<(VerifiedHop | UnlistedHop)[]> {
    const partner = BigInt(route.partner);
    if (partner !== 0n && !this.known.partners.includes(partner)) {
      throw new GuardRefusal('unknown-partner', `${field}.partner ${partner} is neither 0 nor one of our partner ids`, undefined, `${field}.partner`);
    }
    if (route.path.length !== route.pairs.length + 1 || route.pairs.length !== route.extras.length) {
      throw new GuardRefusal(
        'quote-mismatch',
        `${field}: path, pairs and extras do not line up (${route.path.length}, ${route.pairs.length}, ${route.extras.length})`,
        undefined,
        field,
      );
    }
    for (let i = 1; i < route.path.length - 1; i++) {
      const token = route.path[i] as Address;
      if (!listed(this.known.tokens, token)) {
        throw new GuardRefusal(
          'unknown-token',
          `${field}.path[${i}] ${token} is not on the token list of chain ${this.known.chainId}`,
          undefined,
          `${field}.path[${i}]`,
        );
      }
    }
    return Promise.all(
      route.pairs.map(async (adapter, i) => {
        const tokenIn = route.path[i] as Address;
        const tokenOut = route.path[i + 1] as Address;
        const known = this.known.adapters.find((entry) => isAddressEqual(entry.address, adapter));
        if (!known && unlisted === 'prove-by-flows') return { tokenIn, tokenOut, adapter: getAddress(adapter), field: `${field}.pairs[${i}]` };
        if (!known) {
          throw new GuardRefusal(
            'unknown-adapter',
            `${field}.pairs[${i}] ${adapter} is not a known pair adapter on chain ${this.known.chainId}`,
            undefined,
            `${field}.pairs[${i}]`,
          );
        }
        const venue = feedVenues[known.kind];
        if (venue) {
          // A venue held to its own feed is proven by the chain data's list of its kind (src/pools/venue.ts).
          const facts = await this.#venueList(known.kind).verify(route.extras[i] as Hex, tokenIn, tokenOut, `${field}.extras[${i}]`);
          return { tokenIn, tokenOut, pool: venue.poolOf(facts), feePpm: venue.feePpmOf(facts), kind: known.kind, venue: { of: venue, facts } };
        }
        // The adapter's kind of pool reads `extras`: the pool, and for some kinds the fee the route says it charges.
        const kind = poolKinds[known.kind];
        const read = kind.readExtras(route.extras[i] as Hex);
        if (typeof read === 'string') throw new GuardRefusal('unknown-pool', `${field}.extras[${i}] ${read}`, undefined, `${field}.extras[${i}]`);
        const { pool } = read;
        const origin = await this.#poolOrigin(pool, [tokenIn, tokenOut]);
        if (origin?.kind !== known.kind) {
          throw new GuardRefusal(
            'unknown-pool',
            `${field}.extras[${i}] names pool ${pool}, which no known ${kind.name} factory made for ${tokenIn} → ${tokenOut} and no list holds`,
            undefined,
            `${field}.extras[${i}]`,
          );
        }
        if (read.feePpm !== undefined && origin.feePpm !== read.feePpm) {
          throw new GuardRefusal(
            'unknown-pool',
            `${field}.extras[${i}] gives pool ${pool} a fee of ${read.feePpm / 1000}‰; the pool charges ${origin.feePpm / 1000}‰`,
            undefined,
            `${field}.extras[${i}]`,
          );
        }
        return { tokenIn, tokenOut, pool, feePpm: origin.feePpm, kind: known.kind };
      }),
    );
  }

  /**
   * A deposit's or withdraw's farm data names exactly the position's pool (and its gauge): a known farm,
   * data of that farm's shape, the pool a known one, the gauge known and staking that pool, and the position
   * token (what a deposit mints or a withdraw spends) that pool or gauge.
   */
  async verifyFarm(farm: { addr: Address; extra: Hex }, position: Address): Promise<VerifiedFarm> {
    const known = this.known.farms.find((entry) => isAddressEqual(entry.address, farm.addr));
    if (!known)
      throw new GuardRefusal('contract-not-allowed', `farm ${farm.addr} is not a known farm on chain ${this.known.chainId}`, undefined, 'depositData.addr');
    const mismatch: (what: string) => never = (what) => {
      throw new GuardRefusal('farm-mismatch', `depositData.extra ${what}`, undefined, 'depositData.extra');
    };
    const expectedSize = known.kind === 'gauge' ? 40 : 21;
    if (size(farm.extra) !== expectedSize) mismatch(`is ${size(farm.extra)} bytes, not the ${expectedSize} a ${known.kind} farm reads`);
    const pool = getAddress(sliceHex(farm.extra, 0, 20));
    const [token0, token1] = await Promise.all([
      this.#fact(`token0:${pool}`, pool, pairAbi, 'token0'),
      this.#fact(`token1:${pool}`, pool, pairAbi, 'token1'),
    ]).catch(() => mismatch(`names ${pool}, which does not answer as a pool`));
    const origin = await this.#poolOrigin(pool, [token0, token1]);
    // Farms hold ERC-20 positions: a pool of a kind without them (a V3 pool's positions are NFTs) is not one.
    if (!origin || !poolKinds[origin.kind].lpPositions) mismatch(`names pool ${pool}, which no known Uniswap V2 factory made and no list holds`);
    const fee = (origin as PoolOrigin).feePpm;
    if (known.kind === 'uniswap-v2') {
      const feeByte = Number.parseInt(sliceHex(farm.extra, 20, 21).slice(2), 16);
      if (feePpmOfPerMille(feeByte) !== fee) mismatch(`gives pool ${pool} a fee of ${feeByte}‰; the pool charges ${fee / 1000}‰`);
      if (!isAddressEqual(pool, position)) mismatch(`names pool ${pool}, not the position ${position}`);
      return { kind: known.kind, pool, token0, token1 };
    }
    const gauge = getAddress(sliceHex(farm.extra, 20, 40));
    const knownGauge = this.known.gauges.find((entry) => isAddressEqual(entry.address, gauge));
    if (!knownGauge) mismatch(`names gauge ${gauge}, which is not a known gauge on chain ${this.known.chainId}`);
    if (!isAddressEqual(knownGauge.pool, pool)) mismatch(`pairs gauge ${gauge} with pool ${pool}; the gauge stakes ${knownGauge.pool}`);
    const staked = await this.#fact(`staking:${gauge}`, gauge, gaugeAbi, 'stakingToken').catch(() => zeroAddress);
    if (!isAddressEqual(staked, pool)) mismatch(`names gauge ${gauge}, which stakes ${staked} on chain, not ${pool}`);
    if (!isAddressEqual(gauge, position)) mismatch(`names gauge ${gauge}, not the position ${position}`);
    return { kind: known.kind, pool, token0, token1, gauge };
  }

  /**
   * The fee a hop through an unlisted adapter is assumed to pay until the flows prove its pool: the highest of any
   * known factory or listed pool, so the reference (and the minimum it sets) is never above what a proven pool gives.
   */
  highestKnownFee(): FeePpm {
    return Math.max(
      0,
      ...this.known.factories.map((factory) => poolKinds[factory.kind].highestFeePpm(factory)),
      ...this.known.pools.map((pool) => pool.feePpm),
    );
  }

  /**
   * The fee of a pool of exactly these two tokens, when a list holds it or a known factory made it: by the CREATE2
   * address from the factory's init code hash (no chain read), else by the factory's getPair (V2) or getPool (V3).
   */
  async poolFee(pool: Address, tokens: readonly [Address, Address]): Promise<FeePpm | undefined> {
    return (await this.#poolOrigin(pool, tokens))?.feePpm;
  }

  /**
   * Who a pool's factory mints its protocol fee to (Uniswap V2's `feeTo`: a share of the pool's growth, as LP
   * tokens, at each deposit or withdrawal), when that is switched on; read each time, since the factory may change it.
   */
  async protocolFeeRecipient(pool: Address, tokens: readonly [Address, Address]): Promise<Address | undefined> {
    const origin = await this.#poolOrigin(pool, tokens);
    // Only a pool with ERC-20 positions mints its protocol fee as them (Uniswap V2's `feeTo`).
    const factory = origin && poolKinds[origin.kind].lpPositions ? origin.factory : undefined;
    if (!factory) return undefined;
    const feeTo = await this.#client.readContract({ address: factory, abi: factoryAbi, functionName: 'feeTo' });
    return isAddressEqual(feeTo, zeroAddress) ? undefined : feeTo;
  }

  /** A pool of exactly these two tokens as a list holds it, or as a known factory made it (which one, of which kind). */
  /** The chain data's venues of a kind held to its own feed, made once per verifier (each keeps what it read). */
  #venueList(kind: PoolKind): VenueList<unknown> {
    let list = this.#venues.get(kind);
    if (!list) {
      list = (feedVenues[kind] as NonNullable<(typeof feedVenues)[PoolKind]>).list(this.#client, this.known);
      this.#venues.set(kind, list);
    }
    return list;
  }

  async #poolOrigin(pool: Address, tokens: readonly [Address, Address]): Promise<PoolOrigin | undefined> {
    const [a, b] = BigInt(tokens[0]) < BigInt(tokens[1]) ? tokens : [tokens[1], tokens[0]];
    const listedPool = this.known.pools.find((entry) => isAddressEqual(entry.address, pool));
    if (listedPool) {
      if (!sameSet([listedPool.token0, listedPool.token1], tokens)) return undefined;
      // A listed pool is a constant-product pair of its own fee; its factory, when a known one's init code hash gives
      // its address (no chain read).
      const maker = this.known.factories.find(
        (factory) =>
          factory.kind === listedPoolKind && factory.initCodeHash && isAddressEqual(pairAddress(factory.address, factory.initCodeHash, [a, b]), pool),
      );
      return { kind: listedPoolKind, feePpm: listedPool.feePpm, factory: maker?.address };
    }
    for (const factory of this.known.factories) {
      const feePpm = await poolKinds[factory.kind].madeBy(this.#poolFacts, factory, pool, [a, b]);
      if (feePpm !== undefined) return { kind: factory.kind, feePpm, factory: factory.address };
    }
    return undefined;
  }

  /** A view call whose non-zero answer never changes: read once, kept for the process. */
  #fact(
    key: string,
    address: Address,
    abi: typeof factoryAbi | typeof pairAbi | typeof gaugeAbi,
    functionName: string,
    args: readonly Address[] = [],
  ): Promise<Address> {
    return this.#poolFacts.address(key, () => this.#client.readContract({ address, abi, functionName, args } as never) as Promise<Address>);
  }
}

/** `read` once per key: its answer kept (unless `forget` says otherwise), a failure forgotten so the next call asks again. */
function once<T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>, forget: (value: T) => boolean = () => false): Promise<T> {
  const id = key.toLowerCase();
  const cached = cache.get(id);
  if (cached) return cached;
  const answer = read().then((value) => {
    if (forget(value)) cache.delete(id);
    return value;
  });
  cache.set(id, answer);
  answer.catch(() => cache.delete(id));
  return answer;
}
