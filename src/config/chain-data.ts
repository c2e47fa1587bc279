/**
 * What routekeeper knows about a chain, as data: its tokens, the contracts a trade may run through (routers,
 * OneClickFarms, pair adapters, pool factories, listed pools, farms, gauges), the routing partners that are
 * ours, and where each token's independent price comes from. Built in per chain from `config/chains/<id>.json`
 * (public sources cited in the file), plus an address book for the same chain (the devnet writes one).
 * Nothing here comes from the routing service: it is what the service's answers are checked against.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, type Hex, getAddress, isAddressEqual } from 'viem';
import { pairAddress } from '../contracts/encoding.ts';
import { z } from 'zod';
import { addressSchema } from '../primitives.ts';
import type { AddressBook } from './address-book.ts';
import { ConfigError } from '../errors.ts';

/** Mento's protocol id (its v2 exchanges and v3 pools), for a routing request's `exclude`. */
export const mentoProtocol = 'mento';

export type AdapterKind = 'uniswap-v2' | 'uniswap-v3' | 'mento-v2' | 'mento-fpmm';
export type FarmKind = 'uniswap-v2' | 'gauge';

/** Uniswap V2 core pairs charge 0.3% (997/1000 in the pair's swap); forks with another fee list their pools. */
export const uniswapV2FeePerMille = 3;

/** A pool's fee in millionths of what it swaps (Uniswap V3's unit: 3000 is 0.3%, 500 is 0.05%). */
export type FeePpm = number;

export const feePpmOfPerMille = (feePerMille: number): FeePpm => feePerMille * 1000;

/**
 * A Mento Broker and the exchange providers of it whose exchanges a route may use (each must be listed on chain too);
 * the breaker box those providers must use and Mento v3's pool factory, where the chain data names them (`doctor`).
 */
export type MentoBroker = {
  broker: Address;
  exchangeProviders: readonly Address[];
  breakerBox?: Address;
  fpmmFactory?: Address;
  /**
   * The implementation each of Mento's upgradeable proxies (by its address) is expected to run: `doctor` names what
   * each runs (its EIP-1967 slot) against it. Governance upgrades them; none listed: named, not compared.
   */
  implementations?: Readonly<Record<string, Address>>;
};

/** A factory whose pools a route may use, and how its pools are proven and charge. */
export type KnownFactory =
  /** A Uniswap V2 factory: its pools all charge `feePpm`. */
  | { address: Address; kind: 'uniswap-v2'; feePpm: FeePpm; initCodeHash?: Hex }
  /** A Uniswap V3 factory: a pool is its when getPool (or CREATE2 of its init code hash) for the tokens and fee says so. */
  | { address: Address; kind: 'uniswap-v3'; initCodeHash?: Hex };

export type KnownContracts = {
  chainId: number;
  routers: readonly Address[];
  oneClickFarms: readonly Address[];
  /** Pair adapters a route may name in `pairs`, by how their `extras` are read. */
  adapters: readonly { address: Address; kind: AdapterKind }[];
  /**
   * Factories whose pools a route may use: a pool is theirs when its CREATE2 address from the factory and the
   * pool's init code hash is the pool's (no chain read), or, without a hash, when the factory's getPair (V2) or
   * getPool (V3) says so.
   */
  factories: readonly KnownFactory[];
  /** Pools known without a factory (constant-product). */
  pools: readonly { address: Address; token0: Address; token1: Address; feePpm: FeePpm }[];
  farms: readonly { address: Address; kind: FarmKind }[];
  /** Gauges and the pool each one stakes. */
  gauges: readonly { address: Address; pool: Address }[];
  /** Mento Brokers, and the exchange providers of each whose exchanges a route may swap through. */
  mento: readonly MentoBroker[];
  /** Mento v3's pool factories: a route may swap in a fixed-price pool one of them lists. */
  mentoFpmmFactories: readonly Address[];
  /**
   * Uniswap V3 position managers, each over its factory and with that factory's pool init code hash when the chain
   * data names one: the contracts whose positions (NFTs) a strategy may manage.
   */
  positionManagers: readonly { address: Address; factory: Address; poolInitCodeHash?: Hex }[];
  /** routekeeper's own V3 position movers the user deployed (none is published): held to this build's code at every use. */
  positionMovers: readonly Address[];
  /** Tokens a route may pass through. */
  tokens: readonly Address[];
  /** Partner ids besides 0 that quotes may carry (ours). */
  partners: readonly bigint[];
  /** Partners whose fee recipient is known: a route's fee to one of them is accounted for, up to its numerator. */
  partnerFees: readonly { id: bigint; recipient: Address; feeNumerator: bigint }[];
};

/** Where a token's USD price comes from, in order of preference. */
export type PriceSource =
  /**
   * A Chainlink-style AggregatorV3Interface feed of token/USD; older than maxAgeSeconds is stale; `decimals` as
   * published. `peg`: the feed prices the currency the token is pegged to (an exchange rate such as EUR / USD), not
   * the token, so it counts only beside a market source of the token that answers and agrees with it.
   */
  | { kind: 'feed'; address: Address; maxAgeSeconds: number; decimals?: number; peg?: boolean }
  /**
   * A known pool pairing the token with `quote`, a token that has a source of its own: a Uniswap V2 pool (its
   * cumulative prices) or, with `uniswapV3`, a V3 pool (its own oracle's mean tick).
   */
  | { kind: 'pool'; pool: Address; quote: Address; uniswapV3?: boolean }
  /**
   * Mento's SortedOracles: the rate feed's own median (`medianRateWithoutEquivalentMapping`) is how many `quote` (a
   * token with a price of its own, or 'USD') one whole token is worth, as a fraction; a median reported longer ago
   * than maxAgeSeconds is stale. Celo's CELO rate feed (id: USDm's address) is USD per CELO, not USDm per CELO.
   */
  | { kind: 'sorted-oracles'; address: Address; rateFeedId: Address; quote: Address | 'USD'; maxAgeSeconds: number };

export type PriceSources = ReadonlyMap<string, readonly PriceSource[]>;

const feedSource = z.object({
  kind: z.literal('feed'),
  address: addressSchema,
  maxAgeSeconds: z.number().int().positive(),
  decimals: z.number().int().min(0).max(36).optional(),
  peg: z.boolean().optional(),
});
/**
 * In files a pool source names its quote token by symbol, and the pool by address, or by the factory whose pair of
 * the two tokens it is (its address then follows from the factory's init code hash, as the factory creates it).
 */
const poolSource = z
  .object({ kind: z.literal('pool'), pool: addressSchema.optional(), factory: addressSchema.optional(), quote: z.string(), uniswapV3: z.boolean().optional() })
  .refine((source) => (source.pool === undefined) !== (source.factory === undefined), {
    message: 'a pool source names either its pool or its factory, not both',
  });
/** A Chainlink L2 sequencer uptime feed, and how long after the sequencer comes back no price is trusted. */
export const sequencerFeedSchema = z.object({ address: addressSchema, gracePeriodSeconds: z.number().int().min(0) });

/** In files a SortedOracles source names its quote token by symbol, or 'USD'. */
const sortedOraclesSource = z.object({
  kind: z.literal('sorted-oracles'),
  address: addressSchema,
  rateFeedId: addressSchema,
  quote: z.string(),
  maxAgeSeconds: z.number().int().positive(),
});

export const priceSourcesSchema = z.record(z.string(), z.array(z.discriminatedUnion('kind', [feedSource, poolSource, sortedOraclesSource])).min(1));

const chainFileSchema = z.object({
  chainId: z.number().int().positive(),
  name: z.string(),
  sources: z.record(z.string(), z.string()),
  /** By current symbol; `aliases` are earlier symbols of the same contract (Mento's cUSD is USDm since Dec 2025). */
  tokens: z.record(z.string(), z.object({ address: addressSchema, decimals: z.number().int().min(0).max(255), aliases: z.array(z.string()).optional() })),
  contracts: z.object({
    routers: z.array(addressSchema),
    oneClickFarms: z.array(addressSchema),
    adapters: z.array(z.object({ address: addressSchema, kind: z.enum(['uniswap-v2', 'uniswap-v3', 'mento-v2', 'mento-fpmm']) })),
    factories: z.array(
      z.discriminatedUnion('kind', [
        z.object({
          address: addressSchema,
          kind: z.literal('uniswap-v2'),
          /** Its id in a routing request's `exclude` (`ubeswap`, `sushiswap`). */
          protocol: z.string().optional(),
          feePerMille: z.number().int().min(0).max(999),
          initCodeHash: z
            .string()
            .regex(/^0x[0-9a-fA-F]{64}$/)
            .transform((hash) => hash as Hex)
            .optional(),
        }),
        z.object({
          address: addressSchema,
          kind: z.literal('uniswap-v3'),
          protocol: z.string().optional(),
          initCodeHash: z
            .string()
            .regex(/^0x[0-9a-fA-F]{64}$/)
            .transform((hash) => hash as Hex)
            .optional(),
          /** The block the factory was deployed in: its pools are found from its `PoolCreated` logs from there. */
          fromBlock: z.number().int().min(0).optional(),
          /** Uniswap's NonfungiblePositionManager over this factory: the only contract a V3 position strategy calls. */
          positionManager: addressSchema.optional(),
        }),
      ]),
    ),
    farms: z.array(z.object({ address: addressSchema, kind: z.enum(['uniswap-v2', 'gauge']) })),
    gauges: z.array(z.object({ address: addressSchema, pool: addressSchema })),
    /**
     * Mento: its v2 Broker and the exchange providers (BiPoolManager) whose exchanges routes may use; the breaker box
     * the providers must use and v3's pool factory, for `doctor`.
     */
    mento: z
      .object({
        broker: addressSchema,
        exchangeProviders: z.array(addressSchema).min(1),
        breakerBox: addressSchema.optional(),
        fpmmFactory: addressSchema.optional(),
        implementations: z.record(addressSchema, addressSchema).optional(),
      })
      .optional(),
  }),
  /** What the self-hosted routing service routes through: per pool kind, the pair adapter and its fee unit. */
  routing: z
    .object({
      adapters: z.array(
        z.discriminatedUnion('kind', [
          z.object({ address: addressSchema, kind: z.literal('uniswap-v2'), feeUnit: z.enum(['per-mille', 'bips']) }),
          z.object({ address: addressSchema, kind: z.literal('uniswap-v3') }),
          z.object({ address: addressSchema, kind: z.literal('mento-v2') }),
          z.object({ address: addressSchema, kind: z.literal('mento-fpmm') }),
        ]),
      ),
    })
    .optional(),
  priceSources: priceSourcesSchema,
  /** The chain's usual block time, to find past blocks by their time (price averages). */
  blockTimeSeconds: z.number().positive().optional(),
  sequencerUptimeFeed: z.lazy(() => sequencerFeedSchema).optional(),
});

type ChainFile = z.infer<typeof chainFileSchema>;

const chainsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'config', 'chains');

/** A cache: each built-in chain file read once per process (they ship with the code and do not change). */
const builtInChains = new Map<number, ChainFile | undefined>();

/** The built-in data of a chain, read and checked once per process. */
function builtInChain(chainId: number): ChainFile | undefined {
  if (builtInChains.has(chainId)) return builtInChains.get(chainId);
  const file = join(chainsDir, `${chainId}.json`);
  let data: ChainFile | undefined;
  if (existsSync(file)) {
    const parsed = chainFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new ConfigError(`invalid chain data ${file}: ${z.prettifyError(parsed.error).split('\n').join(' ')}`);
    data = parsed.data;
  }
  builtInChains.set(chainId, data);
  return data;
}

/**
 * The built-in data of a chain, unless the address book is of a chain of its own under the same id (the devnet
 * uses Celo's 42220 so that the daemon's chain handling is the real one; Celo's addresses mean nothing there).
 */
function builtInFor(chainId: number, book?: AddressBook): ChainFile | undefined {
  return book?.chainId === chainId && book.standalone ? undefined : builtInChain(chainId);
}

/** The symbols known on a chain, earlier symbols included: its built-in list, then the address book's (which win). */
export function tokenDirectory(chainId: number, book?: AddressBook): Pick<AddressBook, 'tokens'> {
  const own = book && book.chainId === chainId ? book : undefined;
  const builtIn: AddressBook['tokens'] = {};
  for (const [symbol, { address, decimals, aliases }] of Object.entries(builtInFor(chainId, book)?.tokens ?? {})) {
    for (const name of [symbol, ...(aliases ?? [])]) builtIn[name] = { address, decimals };
  }
  return { tokens: { ...builtIn, ...own?.tokens } };
}

/**
 * Address book adapter names and their kinds: `uniswapV3` is a view-quoting V3 adapter (the devnet's own),
 * `swappaUniswapV3` Swappa's PairUniswapV3, which quotes through Uniswap's QuoterV2; both read `extras` as the pool.
 */
const adapterKinds: Record<string, AdapterKind> = {
  uniswapV2: 'uniswap-v2',
  uniswapV3: 'uniswap-v3',
  swappaUniswapV3: 'uniswap-v3',
  mentoV2: 'mento-v2',
  mentoFpmm: 'mento-fpmm',
};

/** The address book's name for the adapter a kind of pool is routed through. */
export const addressBookAdapterName = (kind: AdapterKind) => Object.keys(adapterKinds).find((name) => adapterKinds[name] === kind);
const farmKinds: Record<string, FarmKind> = { uniswapV2: 'uniswap-v2', gauge: 'gauge' };

/** The contracts a trade may use on a chain: built in, plus an address book for the same chain. */
export function knownContractsFor(chainId: number, book?: AddressBook): KnownContracts {
  const base = builtInFor(chainId, book);
  const own = book && book.chainId === chainId ? book : undefined;
  const tokens = tokenDirectory(chainId, book).tokens;
  const symbolAddress = (symbol: string, where: string): Address => {
    const token = tokens[symbol];
    if (!token) throw new ConfigError(`${where}: unknown token '${symbol}'`);
    return token.address;
  };
  const kindOf = <K>(kinds: Record<string, K>, name: string, where: string): K => {
    const kind = kinds[name];
    if (!kind) throw new ConfigError(`${where}: unknown kind '${name}' (known: ${Object.keys(kinds).join(', ')})`);
    return kind;
  };
  const contracts = own?.contracts;
  const known = {
    chainId,
    routers: [...(base?.contracts.routers ?? []), ...(contracts?.router ? [contracts.router] : [])],
    oneClickFarms: [...(base?.contracts.oneClickFarms ?? []), ...(contracts?.oneClickFarm ? [contracts.oneClickFarm] : [])],
    adapters: [
      ...(base?.contracts.adapters ?? []),
      ...Object.entries(contracts?.adapters ?? {}).map(([name, address]) => ({
        address,
        kind: kindOf(adapterKinds, name, `address book contracts.adapters.${name}`),
      })),
    ],
    factories: [
      ...(base?.contracts.factories ?? []).map(
        (factory): KnownFactory =>
          factory.kind === 'uniswap-v2'
            ? { address: factory.address, kind: factory.kind, feePpm: feePpmOfPerMille(factory.feePerMille), initCodeHash: factory.initCodeHash }
            : { address: factory.address, kind: factory.kind, initCodeHash: factory.initCodeHash },
      ),
      ...(contracts?.uniswapV2Factory
        ? [
            {
              address: contracts.uniswapV2Factory,
              kind: 'uniswap-v2' as const,
              feePpm: feePpmOfPerMille(uniswapV2FeePerMille),
              initCodeHash: contracts.uniswapV2PairInitCodeHash,
            },
          ]
        : []),
      ...(contracts?.uniswapV3Factory
        ? [{ address: contracts.uniswapV3Factory, kind: 'uniswap-v3' as const, initCodeHash: contracts.uniswapV3PoolInitCodeHash }]
        : []),
    ],
    pools: (own?.pools ?? []).map((pool) => ({
      address: pool.address,
      token0: symbolAddress(pool.token0, `address book pool ${pool.name}`),
      token1: symbolAddress(pool.token1, `address book pool ${pool.name}`),
      feePpm: feePpmOfPerMille(pool.feePerMille),
    })),
    farms: [
      ...(base?.contracts.farms ?? []),
      ...Object.entries(contracts?.farms ?? {}).map(([name, address]) => ({ address, kind: kindOf(farmKinds, name, `address book contracts.farms.${name}`) })),
    ],
    gauges: [...(base?.contracts.gauges ?? []), ...Object.values(contracts?.gauges ?? {}).map((gauge) => ({ address: gauge.address, pool: gauge.pool }))],
    mento: [...(base?.contracts.mento ? [base.contracts.mento] : []), ...(contracts?.mento ? [contracts.mento] : [])],
    mentoFpmmFactories: [base?.contracts.mento?.fpmmFactory, contracts?.mento?.fpmmFactory].filter((factory): factory is Address => factory !== undefined),
    positionManagers: [
      ...(base?.contracts.factories ?? []).flatMap((factory) =>
        factory.kind === 'uniswap-v3' && factory.positionManager ? [{ address: factory.positionManager, factory: factory.address }] : [],
      ),
      ...(contracts?.uniswapV3Factory && contracts.uniswapV3PositionManager
        ? [{ address: contracts.uniswapV3PositionManager, factory: contracts.uniswapV3Factory }]
        : []),
    ],
    positionMovers: contracts?.v3RangeMover ? [contracts.v3RangeMover] : [],
    tokens: Object.values(tokens).map((token) => token.address),
    partners: (own?.partners ?? []).map((partner) => BigInt(partner.id)),
    partnerFees: (own?.partners ?? []).map((partner) => ({ id: BigInt(partner.id), recipient: partner.admin, feeNumerator: BigInt(partner.feeNumerator) })),
  };
  // Each manager's pools are its factory's: their addresses come from that factory's init code hash (CREATE2).
  const hashOf = (factory: Address) => known.factories.find((candidate) => isAddressEqual(candidate.address, factory))?.initCodeHash;
  return { ...known, positionManagers: known.positionManagers.map((manager) => ({ ...manager, poolInitCodeHash: hashOf(manager.factory) })) };
}

/** Each token's price sources, by lower-case address: built in, then the address book's (which win per token). */
export function priceSourcesFor(chainId: number, book?: AddressBook): PriceSources {
  const base = builtInFor(chainId, book);
  const own = book && book.chainId === chainId ? book : undefined;
  const tokens = tokenDirectory(chainId, book).tokens;
  const sources = new Map<string, PriceSource[]>();
  const factories = knownContractsFor(chainId, book).factories;
  // A pool named by its factory is the pair the factory creates for the two tokens (CREATE2 of its init code hash).
  const factoryPair = (address: Address, pair: readonly [Address, Address], where: string): Address => {
    const factory = factories.find((known) => isAddressEqual(known.address, address));
    if (factory?.kind !== 'uniswap-v2' || !factory.initCodeHash)
      throw new ConfigError(`${where}: the pool's factory ${address} is not a known factory with an init code hash`);
    return pairAddress(factory.address, factory.initCodeHash, pair);
  };
  for (const [origin, listed] of [
    ['built-in chain data', base?.priceSources],
    ['address book', own?.priceSources],
  ] as const) {
    for (const [symbol, entries] of Object.entries(listed ?? {})) {
      const token = tokens[symbol];
      if (!token) throw new ConfigError(`${origin} priceSources.${symbol}: unknown token '${symbol}'`);
      sources.set(
        token.address.toLowerCase(),
        entries.map((entry): PriceSource => {
          if (entry.kind === 'feed') return entry;
          if (entry.kind === 'sorted-oracles' && entry.quote === 'USD') return { ...entry, quote: 'USD' };
          const quote = tokens[entry.quote];
          if (!quote) throw new ConfigError(`${origin} priceSources.${symbol}: unknown quote token '${entry.quote}'`);
          if (entry.kind === 'sorted-oracles') return { ...entry, quote: quote.address };
          const pool = entry.pool ?? factoryPair(entry.factory as Address, [token.address, quote.address], `${origin} priceSources.${symbol}`);
          return { kind: 'pool', pool: getAddress(pool), quote: quote.address, ...(entry.uniswapV3 && { uniswapV3: true }) };
        }),
      );
    }
  }
  return sources;
}

/** What the price reference needs to know of a chain besides its sources: its block time and sequencer feed. */
export function chainTimingFor(chainId: number, book?: AddressBook): { blockTimeSeconds?: number; sequencer?: z.infer<typeof sequencerFeedSchema> } {
  const base = builtInFor(chainId, book);
  const own = book && book.chainId === chainId ? book : undefined;
  return { blockTimeSeconds: base?.blockTimeSeconds, sequencer: own?.sequencerUptimeFeed ?? base?.sequencerUptimeFeed };
}

/** A factory a self-hosted routing service finds pools from. */
export type RoutingFactory =
  | { address: Address; protocol: string; kind: 'uniswap-v2'; feeBps: number }
  /** Pools found from its `PoolCreated` logs, read from `fromBlock` (its deployment) on. */
  | { address: Address; protocol: string; kind: 'uniswap-v3'; fromBlock: bigint }
  /** A Mento Broker: its exchanges are those these exchange providers of it list. */
  | { address: Address; protocol: string; kind: 'mento-v2'; exchangeProviders: readonly Address[] }
  /** Mento v3's pool factory: its pools are those it lists. */
  | { address: Address; protocol: string; kind: 'mento-fpmm' };

/** What a self-hosted routing service needs of a chain: the router, the factories it finds pools from, the adapters. */
export type RoutingData = {
  routers: readonly Address[];
  factories: readonly RoutingFactory[];
  /** Per kind of pool, the adapter its hops go through (a Uniswap V2 adapter with the unit of its fee byte). */
  adapters: Partial<Record<AdapterKind, { address: Address; kind: AdapterKind; feeUnit?: 'per-mille' | 'bips' }>>;
};

/**
 * The chain's routing data: built in, then an address book's (its router first, its factory and adapter, a
 * per-mille one like Minima's). A factory with no protocol id of its own is `uniswap-v2`.
 */
export function routingDataFor(chainId: number, book?: AddressBook): RoutingData {
  const base = builtInFor(chainId, book);
  const own = book && book.chainId === chainId ? book : undefined;
  const factories: RoutingFactory[] = [
    ...(own?.contracts.uniswapV2Factory
      ? [{ address: own.contracts.uniswapV2Factory, protocol: 'uniswap-v2', kind: 'uniswap-v2' as const, feeBps: uniswapV2FeePerMille * 10 }]
      : []),
    ...(own?.contracts.uniswapV3Factory
      ? [{ address: own.contracts.uniswapV3Factory, protocol: 'uniswap-v3', kind: 'uniswap-v3' as const, fromBlock: 0n }]
      : []),
    ...(base?.contracts.factories ?? []).map(
      (factory): RoutingFactory =>
        factory.kind === 'uniswap-v2'
          ? { address: factory.address, protocol: factory.protocol ?? 'uniswap-v2', kind: factory.kind, feeBps: factory.feePerMille * 10 }
          : { address: factory.address, protocol: factory.protocol ?? 'uniswap-v3', kind: factory.kind, fromBlock: BigInt(factory.fromBlock ?? 0) },
    ),
  ];
  for (const mento of [own?.contracts.mento, base?.contracts.mento])
    if (mento) factories.push({ address: mento.broker, protocol: mentoProtocol, kind: 'mento-v2', exchangeProviders: mento.exchangeProviders });
  const ownMentoAdapter = own?.contracts.adapters.mentoV2;
  const builtInMento = base?.routing?.adapters.find((adapter) => adapter.kind === 'mento-v2');
  const ownAdapter = own?.contracts.adapters.uniswapV2;
  const ownV3Adapter = own?.contracts.adapters.uniswapV3;
  const builtIn = (kind: AdapterKind) => base?.routing?.adapters.find((adapter) => adapter.kind === kind);
  // No adapter for Mento v3's pools is published: they are routed once the user deployed ours (`deploy-adapter`).
  const fpmmAdapter = own?.contracts.adapters.mentoFpmm ?? builtIn('mento-fpmm')?.address;
  if (fpmmAdapter) {
    for (const factory of [own?.contracts.mento?.fpmmFactory, base?.contracts.mento?.fpmmFactory])
      if (factory) factories.push({ address: factory, protocol: mentoProtocol, kind: 'mento-fpmm' });
  }
  const builtInV2 = builtIn('uniswap-v2');
  const builtInV3 = builtIn('uniswap-v3');
  return {
    routers: [...(own?.contracts.router ? [own.contracts.router] : []), ...(base?.contracts.routers ?? [])],
    factories: factories.filter((factory, i) => factories.findIndex((other) => isAddressEqual(other.address, factory.address)) === i),
    adapters: {
      'uniswap-v2': ownAdapter
        ? { address: ownAdapter, kind: 'uniswap-v2', feeUnit: 'per-mille' }
        : builtInV2 && { address: builtInV2.address, kind: 'uniswap-v2', feeUnit: builtInV2.kind === 'uniswap-v2' ? builtInV2.feeUnit : undefined },
      'uniswap-v3': ownV3Adapter ? { address: ownV3Adapter, kind: 'uniswap-v3' } : builtInV3 && { address: builtInV3.address, kind: 'uniswap-v3' },
      'mento-v2': ownMentoAdapter ? { address: ownMentoAdapter, kind: 'mento-v2' } : builtInMento && { address: builtInMento.address, kind: 'mento-v2' },
      'mento-fpmm': fpmmAdapter && { address: fpmmAdapter, kind: 'mento-fpmm' },
    },
  };
}
