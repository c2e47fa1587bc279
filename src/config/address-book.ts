/**
 * The address book: where a deployment's tokens and contracts live. The devnet writes one;
 * operators pass one with `--address-book <file>` to add a deployment's tokens and allowlisted contracts.
 */
import { readFileSync } from 'node:fs';
import { type Address, isHex } from 'viem';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { registerSecretUrl } from '../ops/secrets.ts';
import { addressSchema } from '../primitives.ts';
import { priceSourcesSchema, sequencerFeedSchema } from './chain-data.ts';

const address = addressSchema;

const privateKey = z
  .string()
  .refine((value) => isHex(value) && value.length === 66, { message: 'must be a 32-byte hex private key' })
  .transform((value) => value as `0x${string}`);

const token = z.object({ address, decimals: z.number().int().min(0).max(255) });

const pool = z.object({
  name: z.string(),
  address,
  token0: z.string(),
  token1: z.string(),
  feePerMille: z.number().int().min(0).max(999),
});

const gauge = z.object({
  name: z.string(),
  address,
  pool: address,
  rewardToken: z.string(),
});

export const addressBookSchema = z.object({
  chainId: z.number().int().positive(),
  /** Absent in a book that only adds to a chain's built-in data (what `deploy-adapter` writes): RPC_URL says. */
  rpcUrl: z.string().url().optional(),
  routingServiceUrl: z.string().url().optional(),
  /** A chain of its own under a real chain's id (the devnet's 42220): the built-in data of that chain does not apply. */
  standalone: z.boolean().optional(),
  tokens: z.record(z.string(), token).default({}),
  contracts: z.object({
    /** A deployment's own router and OneClickFarm; a book for a chain with built-in data may leave them to it. */
    router: address.optional(),
    oneClickFarm: address.optional(),
    uniswapV2Factory: address.optional(),
    /** keccak256 of the factory's pair creation code: proves a pool is the factory's without a chain read. */
    uniswapV2PairInitCodeHash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .transform((hash) => hash as `0x${string}`)
      .optional(),
    /** The Uniswap V3 factory whose pools a route may use (found by `getPool`, or by CREATE2 with the hash below). */
    uniswapV3Factory: address.optional(),
    /** keccak256 of the V3 pool's creation code: proves a pool is the factory's without a chain read. */
    uniswapV3PoolInitCodeHash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .transform((hash) => hash as `0x${string}`)
      .optional(),
    /** Uniswap's NonfungiblePositionManager over `uniswapV3Factory`, whose positions a strategy may manage. */
    uniswapV3PositionManager: address.optional(),
    /**
     * routekeeper's own V3 position mover (`src/contracts/solidity/V3RangeMover.sol`), deployed from the user's wallet
     * (`routekeeper deploy-adapter v3-range-mover`): re-ranges and exits move through it in one transaction, its code
     * held to this build's at every use.
     */
    v3RangeMover: address.optional(),
    /**
     * Mento's Broker and the exchange providers of it whose exchanges a route may swap through; Mento v3's pool
     * factory, whose listed pools a route may swap in; the implementation each of Mento's proxies is expected to run
     * (by the proxy's address), which `doctor` names what they run against.
     */
    mento: z
      .object({
        broker: address,
        exchangeProviders: z.array(address).min(1),
        fpmmFactory: address.optional(),
        implementations: z.record(address, address).optional(),
      })
      .optional(),
    adapters: z.record(z.string(), address).default({}),
    farms: z.record(z.string(), address).default({}),
    gauges: z.record(z.string(), gauge).default({}),
  }),
  pools: z.array(pool).default([]),
  /**
   * The devnet's Uniswap V3 pools and the contract that owns their positions (tests add and remove liquidity through
   * it). The daemon never reads this: a V3 pool is proven by its factory.
   */
  uniswapV3: z
    .object({
      liquidityProvider: address,
      pools: z.array(z.object({ name: z.string(), address, token0: z.string(), token1: z.string(), fee: z.number().int(), tickSpacing: z.number().int() })),
    })
    .optional(),
  /**
   * The devnet's Mento v2: its contracts, the rate feeds its reporter keeps fresh and the exchanges it created (tests
   * move the rates and read the state through them). The daemon never reads this: a Mento hop is proven by the Broker.
   */
  mento: z
    .object({
      broker: address,
      biPoolManager: address,
      reserve: address,
      breakerBox: address,
      medianDeltaBreaker: address,
      sortedOracles: address,
      pricingModules: z.object({ constantProduct: address, constantSum: address }),
      rateFeeds: z.array(z.object({ name: z.string(), id: address, base: z.string() })),
      exchanges: z.array(
        z.object({
          name: z.string(),
          id: z
            .string()
            .regex(/^0x[0-9a-fA-F]{64}$/)
            .transform((id) => id as `0x${string}`),
          asset0: z.string(),
          asset1: z.string(),
          pricing: z.enum(['ConstantProduct', 'ConstantSum']),
        }),
      ),
      /**
       * Mento v3: its two oracle adapters (the FX one, the factory's default, keeping the FX market's hours; the
       * collateral one, whose toggleable market-hours breaker has its checks off), pool factory and fixed-price pools
       * (ours, with their interface).
       */
      oracleAdapter: address,
      oracleAdapterCollateral: address,
      marketHoursBreaker: address,
      marketHoursBreakerToggleable: address,
      fpmmFactory: address,
      fixedPricePools: z.array(z.object({ name: z.string(), address })),
    })
    .optional(),
  /**
   * The devnet's routing service only (the daemon never reads this): a second adapter implementation it routes
   * the named pools through, which no list of the daemon names, so that flow accounting is what accepts it.
   */
  routingService: z.object({ bipsAdapter: address, bipsPools: z.array(z.string()) }).optional(),
  /** Per token symbol, where its independent price comes from (see chain-data.ts). */
  priceSources: priceSourcesSchema.optional(),
  /** The deployment's L2 sequencer uptime feed, if it has one: no trade while it says down, or within its grace period. */
  sequencerUptimeFeed: sequencerFeedSchema.optional(),
  /** The block explorer of this deployment, if it has one: the status page links transactions to `<explorer>/tx/<hash>`. */
  explorer: z
    .string()
    .url()
    .refine((url) => url.startsWith('https://'), { message: 'must be an https: URL (the status page links to it)' })
    .optional(),
  /** Blocks before a trade counts as mined on this deployment (a devnet: 1). */
  confirmations: z.number().int().min(1).optional(),
  /** A devnet's funded test accounts (local fixtures, not secrets). */
  accounts: z.array(z.object({ address, privateKey })).default([]),
  serviceSigner: z.object({ address, privateKey }).optional(),
  partners: z
    .array(
      z.object({
        id: z.number().int().positive(),
        admin: address,
        feeNumerator: z.string(),
        /** The devnet routing service's demo key for this partner (a local fixture, not a secret). */
        apiKey: z.string().optional(),
      }),
    )
    .optional(),
});

export type AddressBook = z.infer<typeof addressBookSchema>;

/** The book of a deployment of its own (the devnet's): its node, router and OneClickFarm named. */
export type DeploymentAddressBook = AddressBook & { rpcUrl: string; contracts: AddressBook['contracts'] & { router: Address; oneClickFarm: Address } };

/** A book as a deployment of its own, or a ConfigError naming what it lacks. */
export function asDeploymentBook(book: AddressBook, where: string): DeploymentAddressBook {
  const missing = [
    book.rpcUrl ? undefined : 'rpcUrl',
    book.contracts.router ? undefined : 'contracts.router',
    book.contracts.oneClickFarm ? undefined : 'contracts.oneClickFarm',
  ].filter(Boolean);
  if (missing.length > 0) throw new ConfigError(`${where} is no deployment of its own: it names no ${missing.join(', ')}`);
  return book as DeploymentAddressBook;
}

export class AddressBookError extends ConfigError {
  override name = 'AddressBookError';
}

/** Reads and validates an address book file; the error names the file and the field that is wrong. */
export function loadAddressBook(file: string): AddressBook {
  let raw: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    if (text.trim() === '') {
      throw new AddressBookError(`--address-book ${file} is empty (if \`routekeeper devnet --json\` writes it, wait until the devnet is ready)`);
    }
    raw = JSON.parse(text);
  } catch (error) {
    if (error instanceof AddressBookError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (code ?? `not JSON (${(error as Error).message.split('\n')[0]})`);
    throw new AddressBookError(`--address-book ${file}: ${why}`, { cause: error });
  }
  const parsed = addressBookSchema.safeParse(raw);
  // Its node and service URLs may carry keys, as the environment's may.
  if (parsed.success) for (const url of [parsed.data.rpcUrl, parsed.data.routingServiceUrl]) registerSecretUrl(url);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`);
    throw new AddressBookError(
      `--address-book ${file} is not an address book: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}`,
    );
  }
  return parsed.data;
}
