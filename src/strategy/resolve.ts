/**
 * Turns a checked strategy file into what the engine runs: token symbols to addresses (the address book,
 * else the chain's built-in data in config/chains), human amounts to raw units with each token's on-chain
 * decimals, each wallet with its account (its key read once, by wallet-keys.ts). Every error names the field path.
 */
import { type Address, isAddress, isAddressEqual, parseAbi, parseUnits } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { ChainClient } from '../chains.ts';
import { parseTokenAmount, readNamedToken, readTokenInfo, resolveTokenAddress } from '../chain/tokens.ts';
import type { TokenInfo } from '../units.ts';
import type { Budget } from '../guard/guards.ts';
import type { Schedule, SplitOrders, Strategy, V3PositionStrategy } from './types.ts';
import type { AddressBook } from '../config/address-book.ts';
import { knownContractsFor, tokenDirectory } from '../config/chain-data.ts';
import { positionManagerAbi, uniswapV3PoolAbi } from '../contracts/abi.ts';
import { v3PoolAddress } from '../contracts/encoding.ts';
import type { PositionManagerOf } from '../pools/uniswap-v3/position.ts';
import { sqrtPriceX96FromUsd } from '../pools/uniswap-v3/liquidity.ts';
import { MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, tickAtSqrtRatio } from '../pools/uniswap-v3/math.ts';
import { ConfigError } from '../errors.ts';
import { type StrategyConfig, type StrategyFile, parseDuration, shortestIntervalMs } from '../config/strategy-file.ts';

export type ResolvedWallet = { name: string; account: LocalAccount; budgets: Budget[] };

export type ResolvedConfig = {
  wallets: Map<string, ResolvedWallet>;
  strategies: Strategy[];
  defaults: StrategyFile['defaults'];
  webhooks: NonNullable<StrategyFile['notifications']>['webhooks'];
  /** Every token the strategies name (and the gauges' own tokens), with symbol and decimals: for telling people amounts. */
  tokens: TokenInfo[];
};

const gaugeAbi = parseAbi(['function stakingToken() view returns (address)', 'function rewardToken() view returns (address)']);

export async function resolveConfig(
  file: StrategyFile,
  context: {
    client: ChainClient;
    chainId: number;
    book?: AddressBook;
    /** Each wallet's account, its key read once (wallet-keys.ts). */
    accounts: ReadonlyMap<string, LocalAccount>;
    /** The first-start policy of strategies that set none (nor `defaults.firstRun`): `now` for the devnet demo. */
    firstRun?: Schedule['firstRun'];
  },
): Promise<ResolvedConfig> {
  const directory = tokenDirectory(context.chainId, context.book);
  const infoCache = new Map<string, Promise<TokenInfo>>();
  const token = async (value: string, path: string): Promise<TokenInfo> => {
    const address = resolveTokenAddress(value, directory, path);
    const key = address.toLowerCase();
    if (!infoCache.has(key)) infoCache.set(key, readNamedToken(context.client, address, path, context.chainId));
    return (infoCache.get(key) as Promise<TokenInfo>).catch((error: unknown) => {
      // The cache holds the first path that named the token; the error names this one.
      if (error instanceof ConfigError) throw new ConfigError(`${path}: ${address} does not answer as an ERC20 token on chain ${context.chainId}`);
      throw error;
    });
  };
  const amount = (value: string, info: TokenInfo, path: string) => parseTokenAmount(value, info, path);

  const wallets = new Map<string, ResolvedWallet>();
  for (const [name, wallet] of Object.entries(file.wallets)) {
    const budgets: Budget[] = [];
    for (const [symbol, limits] of Object.entries(wallet.budgets ?? {})) {
      const info = await token(symbol, `wallets.${name}.budgets.${symbol}`);
      budgets.push({
        token: info.address,
        symbol: info.symbol,
        decimals: info.decimals,
        perDay: limits.perDay === undefined ? undefined : amount(limits.perDay, info, `wallets.${name}.budgets.${symbol}.perDay`),
        total: limits.total === undefined ? undefined : amount(limits.total, info, `wallets.${name}.budgets.${symbol}.total`),
      });
    }
    const account = context.accounts.get(name);
    if (!account) throw new ConfigError(`wallets.${name}: its key was not read`);
    wallets.set(name, { name, account, budgets });
  }

  const strategies: Strategy[] = [];
  for (const [i, config] of file.strategies.entries()) {
    const firstRun = config.firstRun ?? file.defaults.firstRun ?? context.firstRun ?? 'slot';
    const spreadMs = parseDuration(file.defaults.spread);
    strategies.push(
      await resolveStrategy(config, `strategies.${i}`, { slippageBps: file.defaults.slippageBps, firstRun, spreadMs }, { wallets, token, amount, context }),
    );
  }
  // A strategy that opens its own position may do so beside the positions the file's other strategies keep.
  for (const strategy of strategies) {
    if (strategy.kind !== 'uniswap-v3-position' || !strategy.open) continue;
    const beside = strategies.flatMap((other) =>
      other !== strategy &&
      other.kind === 'uniswap-v3-position' &&
      other.positionId !== undefined &&
      isAddressEqual(other.positionManager.address, strategy.positionManager.address)
        ? [other.positionId]
        : [],
    );
    if (beside.length > 0) strategy.open = { ...strategy.open, beside };
  }
  const tokens = await Promise.all(infoCache.values());
  // A gauge's own token (a compound's deposit output) is named too, when it answers as a token.
  for (const strategy of strategies) {
    if (strategy.kind === 'compound') {
      const gaugeToken = await readTokenInfo(context.client, strategy.gauge.address).catch(() => undefined);
      if (gaugeToken) tokens.push(gaugeToken);
    }
  }
  return { wallets, strategies, defaults: file.defaults, webhooks: file.notifications?.webhooks ?? [], tokens };
}

type Resolvers = {
  /** The file's wallets, their accounts resolved. */
  wallets: ReadonlyMap<string, ResolvedWallet>;
  token(value: string, path: string): Promise<TokenInfo>;
  amount(value: string, info: TokenInfo, path: string): bigint;
  context: { client: ChainClient; chainId: number; book?: AddressBook };
};

/** A file's `split`, in the engine's terms (none: each order is one trade). */
function splitOf(config: { split?: { maxImpactBps: number; within: string; every: string } | undefined }): { split?: SplitOrders } {
  const { split } = config;
  return split ? { split: { maxImpactBps: split.maxImpactBps, withinMs: parseDuration(split.within), everyMs: parseDuration(split.every) } } : {};
}

async function resolveStrategy(
  config: StrategyConfig,
  path: string,
  defaults: { slippageBps: number; firstRun: Schedule['firstRun']; spreadMs: number },
  r: Resolvers,
): Promise<Strategy> {
  const common = {
    id: config.id,
    wallet: config.wallet,
    schedule: scheduleOf(config, defaults),
    slippageBps: config.slippageBps ?? defaults.slippageBps,
    maxPriceDeviationBps: config.maxPriceDeviationBps,
  };
  switch (config.kind) {
    case 'dca': {
      const sell = await r.token(config.sell.token, `${path}.sell.token`);
      return {
        ...common,
        kind: 'dca',
        sell,
        amount: r.amount(config.sell.amount, sell, `${path}.sell.amount`),
        buy: await distinctToken(r, config.buy, `${path}.buy`, sell),
        minPrice: config.minPrice,
        budget: config.budget && {
          perDay: config.budget.perDay === undefined ? undefined : r.amount(config.budget.perDay, sell, `${path}.budget.perDay`),
          total: config.budget.total === undefined ? undefined : r.amount(config.budget.total, sell, `${path}.budget.total`),
        },
        ...splitOf(config),
      };
    }
    case 'limit': {
      const sell = await r.token(config.sell.token, `${path}.sell.token`);
      return {
        ...common,
        kind: 'limit',
        sell,
        amount: r.amount(config.sell.amount, sell, `${path}.sell.amount`),
        buy: await distinctToken(r, config.buy, `${path}.buy`, sell),
        takeProfit: config.takeProfit,
        stopLoss: config.stopLoss,
        repeat: config.repeat,
        expiresMs: config.expires === undefined ? undefined : Date.parse(config.expires),
        ...splitOf(config),
      };
    }
    case 'rebalance': {
      const quote = await r.token(config.quoteToken, `${path}.quoteToken`);
      const targets = [];
      for (const [symbol, weight] of Object.entries(config.targets)) targets.push({ token: await r.token(symbol, `${path}.targets.${symbol}`), weight });
      const minTrade = r.amount(config.minTrade, quote, `${path}.minTrade`);
      return { ...common, kind: 'rebalance', targets, quote, driftBps: config.driftBps, minTrade, ...splitOf(config) };
    }
    case 'compound': {
      const valueToken = await r.token(config.valueToken, `${path}.valueToken`);
      return {
        ...common,
        kind: 'compound',
        gauge: await resolveGauge(config.gauge, `${path}.gauge`, r),
        valueToken,
        minRewardValue: r.amount(config.minRewardValue, valueToken, `${path}.minRewardValue`),
        exit: config.exit && {
          to: await r.token(config.exit.to, `${path}.exit.to`),
          atMs: config.exit.at === undefined ? undefined : Date.parse(config.exit.at),
        },
      };
    }
    case 'uniswap-v3-position': {
      const owner = r.wallets.get(config.wallet)?.account.address;
      if (!owner) throw new ConfigError(`${path}.wallet: no wallet '${config.wallet}'`);
      const positionManager = positionManagerFor(config.positionManager, `${path}.positionManager`, r);
      if ((config.position === undefined) === (config.open === undefined)) {
        throw new ConfigError(
          `${path}: name the position (position: its NFT id) or the one to open (open: pool, range, amounts), not ${config.position === undefined ? 'neither' : 'both'}`,
        );
      }
      const pool = config.open
        ? await poolToOpenIn(positionManager, config.open, `${path}.open`, r)
        : await positionPool(positionManager, config.position as bigint, owner, config.pool as Address | undefined, path, r);
      if (config.open && config.pool !== undefined && !isAddressEqual(config.pool as Address, pool.address)) {
        throw new ConfigError(`${path}.pool: the position opens in ${pool.address}, not ${config.pool}`);
      }
      if (config.keepInRange?.oldPosition === 'burn' && config.pool === undefined) {
        throw new ConfigError(`${path}.pool: keepInRange.oldPosition 'burn' needs the pool named: once burned, an NFT no longer says its pool`);
      }
      return {
        ...common,
        kind: 'uniswap-v3-position',
        positionManager,
        ...(config.position !== undefined && { positionId: config.position }),
        ...(config.open && { open: await positionToOpen(config.open, pool, `${path}.open`, r) }),
        pool,
        valueToken: await r.token(config.valueToken, `${path}.valueToken`),
        compound: { minFeesToGas: config.compound.minFeesToGas },
        ...(config.keepInRange && {
          keepInRange: { outsideMs: parseDuration(config.keepInRange.outsideFor), oldPosition: config.keepInRange.oldPosition },
        }),
        ...(config.exit && { exit: await positionExit(config.exit, pool, `${path}.exit`, r) }),
      };
    }
  }
}

/** The chain data's position manager the file names, or its only one; with its factory and that factory's pool init code hash. */
function positionManagerFor(named: string | undefined, path: string, r: Resolvers): PositionManagerOf {
  const known = knownContractsFor(r.context.chainId, r.context.book);
  const managers = known.positionManagers.filter((manager) => named === undefined || isAddressEqual(manager.address, named as Address));
  if (managers.length === 0) {
    throw new ConfigError(
      named === undefined
        ? `${path}: the chain data of chain ${r.context.chainId} names no Uniswap V3 position manager`
        : `${path}: ${named} is not a position manager the chain data names`,
    );
  }
  if (managers.length > 1)
    throw new ConfigError(`${path}: the chain data names several position managers; name one (${managers.map((m) => m.address).join(', ')})`);
  const manager = managers[0] as (typeof managers)[number];
  if (!manager.poolInitCodeHash)
    throw new ConfigError(`${path}: the chain data gives no pool init code hash for ${manager.address}'s factory ${manager.factory}`);
  return { address: manager.address, factory: manager.factory, poolInitCodeHash: manager.poolInitCodeHash };
}

/** The position as the chain holds it now: the wallet's, its tokens, and its pool (the factory's, by CREATE2) with its spacing. */
type PositionPool = V3PositionStrategy['pool'];

/**
 * The pool of the file's position, read from the chain: the position must be the wallet's. A position that no longer
 * exists (burned by a re-range) is the file's `pool`'s, which must then be named; one that does is checked against it.
 * An empty position is fine: the strategy may have exited or moved on, and its runs say so.
 */
async function positionPool(
  manager: PositionManagerOf,
  positionId: bigint,
  owner: Address,
  named: Address | undefined,
  path: string,
  r: Resolvers,
): Promise<PositionPool> {
  const { client } = r.context;
  const at = { address: manager.address, abi: positionManagerAbi } as const;
  const read = await Promise.all([
    client.readContract({ ...at, functionName: 'ownerOf', args: [positionId] }),
    client.readContract({ ...at, functionName: 'positions', args: [positionId] }),
  ]).catch(() => undefined);
  if (!read) {
    if (named === undefined) throw new ConfigError(`${path}.position: position ${positionId} does not exist at ${manager.address}`);
    return poolNamed(manager, named, `${path}.pool`, r);
  }
  const [holder, position] = read;
  if (!isAddressEqual(holder, owner)) throw new ConfigError(`${path}.position: position ${positionId} belongs to ${holder}, not to the wallet ${owner}`);
  const [, , token0, token1, fee] = position;
  const address = v3PoolAddress(manager.factory, manager.poolInitCodeHash, [token0, token1], fee);
  if (named !== undefined && !isAddressEqual(named, address)) throw new ConfigError(`${path}.pool: position ${positionId} is in pool ${address}, not ${named}`);
  const tickSpacing = await client.readContract({ address, abi: uniswapV3PoolAbi, functionName: 'tickSpacing' });
  return { address, token0: await r.token(token0, `${path}.position`), token1: await r.token(token1, `${path}.position`), fee, tickSpacing };
}

/** A pool the file names: one the position manager's factory made (by CREATE2 from its own tokens and fee). */
async function poolNamed(manager: PositionManagerOf, address: Address, path: string, r: Resolvers): Promise<PositionPool> {
  const at = { address, abi: uniswapV3PoolAbi } as const;
  const { client } = r.context;
  const read = await Promise.all([
    client.readContract({ ...at, functionName: 'token0' }),
    client.readContract({ ...at, functionName: 'token1' }),
    client.readContract({ ...at, functionName: 'fee' }),
    client.readContract({ ...at, functionName: 'tickSpacing' }),
  ]).catch(() => undefined);
  if (!read || !isAddressEqual(v3PoolAddress(manager.factory, manager.poolInitCodeHash, [read[0], read[1]], read[2]), address)) {
    throw new ConfigError(`${path}: ${address} is not a pool of the position manager's factory ${manager.factory}`);
  }
  const [token0, token1, fee, tickSpacing] = read;
  return { address, token0: await r.token(token0, path), token1: await r.token(token1, path), fee, tickSpacing };
}

/** An exit's time, its price levels as the reference's √price × 2⁹⁶ of token0 in token1, and the token to end in. */
async function positionExit(
  exit: NonNullable<Extract<StrategyConfig, { kind: 'uniswap-v3-position' }>['exit']>,
  pool: PositionPool,
  path: string,
  r: Resolvers,
): Promise<NonNullable<V3PositionStrategy['exit']>> {
  const ofPool = (value: string, at: string) => tokenOfPool(pool, value, at, r);
  const levels: { belowSqrtPriceX96?: bigint; aboveSqrtPriceX96?: bigint } = {};
  if (exit.price) {
    const of = await ofPool(exit.price.of, `${path}.price.of`);
    const inToken = await ofPool(exit.price.in, `${path}.price.in`);
    if (isAddressEqual(of.address, inToken.address)) throw new ConfigError(`${path}.price.in: must be the pool's other token`);
    if (exit.price.below === undefined && exit.price.above === undefined) throw new ConfigError(`${path}.price: give below, above, or both`);
    // A price of token1 in token0 is token0's in token1 upside down: its "below" is token0's "above".
    const ofToken0 = isAddressEqual(of.address, pool.token0.address);
    const [below, above] = ofToken0 ? [exit.price.below, exit.price.above] : [exit.price.above, exit.price.below];
    if (below !== undefined) levels.belowSqrtPriceX96 = poolSqrtPrice(pool, of, below, `${path}.price.${ofToken0 ? 'below' : 'above'}`).sqrtPriceX96;
    if (above !== undefined) levels.aboveSqrtPriceX96 = poolSqrtPrice(pool, of, above, `${path}.price.${ofToken0 ? 'above' : 'below'}`).sqrtPriceX96;
  }
  if (exit.at === undefined && !exit.price) throw new ConfigError(`${path}: give at, price, or both`);
  return {
    ...(exit.at !== undefined && { atMs: Date.parse(exit.at) }),
    ...levels,
    ...(exit.to !== undefined && { to: await ofPool(exit.to, `${path}.to`) }),
  };
}

/** A token the file names, which must be one of the pool's two. */
async function tokenOfPool(pool: PositionPool, value: string, at: string, r: Resolvers): Promise<TokenInfo> {
  const token = await r.token(value, at);
  if (!isAddressEqual(token.address, pool.token0.address) && !isAddressEqual(token.address, pool.token1.address)) {
    throw new ConfigError(`${at}: ${token.symbol} is not one of the pool's tokens (${pool.token0.symbol}, ${pool.token1.symbol})`);
  }
  return token;
}

/**
 * A price of one of the pool's tokens in the other as √price × 2⁹⁶ of token0 in token1 (a price of token1 in token0 is
 * token0's upside down), and whether it was token1's (its order then turns round).
 */
function poolSqrtPrice(pool: PositionPool, of: TokenInfo, value: string, path: string): { sqrtPriceX96: bigint; inverted: boolean } {
  const priceE18 = parseUnits(value, 18);
  const inverted = !isAddressEqual(of.address, pool.token0.address);
  const [usd0, usd1] = inverted ? [10n ** 18n, priceE18] : [priceE18, 10n ** 18n];
  const sqrtPriceX96 = priceE18 === 0n ? 0n : sqrtPriceX96FromUsd(usd0, usd1, pool.token0.decimals, pool.token1.decimals);
  if (sqrtPriceX96 < MIN_SQRT_RATIO || sqrtPriceX96 >= MAX_SQRT_RATIO)
    throw new ConfigError(`${path}: ${value} is outside the prices a Uniswap V3 pool can hold`);
  return { sqrtPriceX96, inverted };
}

type OpenConfig = NonNullable<Extract<StrategyConfig, { kind: 'uniswap-v3-position' }>['open']>;

/** The pool a position opens in: the one the file names, or the factory's pool of its pair at its fee tier. */
async function poolToOpenIn(manager: PositionManagerOf, open: OpenConfig, path: string, r: Resolvers): Promise<PositionPool> {
  const byPair = open.pair !== undefined || open.fee !== undefined;
  if ((open.pool !== undefined) === byPair) {
    throw new ConfigError(
      `${path}: name the pool (pool: its address) or its pair and fee tier (pair: [A, B], fee: '0.3%'), not ${byPair ? 'both' : 'neither'}`,
    );
  }
  if (open.pool !== undefined) return poolNamed(manager, open.pool as Address, `${path}.pool`, r);
  if (!open.pair || !open.fee) throw new ConfigError(`${path}.${open.pair ? 'fee' : 'pair'}: a pool by pair needs both its pair and its fee tier`);
  const [a, b] = await Promise.all([r.token(open.pair[0], `${path}.pair.0`), r.token(open.pair[1], `${path}.pair.1`)]);
  if (isAddressEqual(a.address, b.address)) throw new ConfigError(`${path}.pair: the two tokens must differ`);
  // Hundredths of a basis point, as the factory's fee tiers are: '0.3%' is 3000.
  const fee = Math.round(Number(open.fee.slice(0, -1)) * 10_000);
  const address = v3PoolAddress(manager.factory, manager.poolInitCodeHash, [a.address, b.address], fee);
  return poolNamed(manager, address, `${path}.pair`, r).catch((error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(`${path}.pair: the position manager's factory has no pool of ${a.symbol} and ${b.symbol} at ${open.fee} (${address} holds none)`);
  });
}

/**
 * The range and amounts of a position to open: prices turned into ticks on the pool's spacing (rounded outwards), or
 * ticks given on it, or a width below and above the reference price when it opens (kept as basis points); amounts in
 * raw units.
 */
async function positionToOpen(open: OpenConfig, pool: PositionPool, path: string, r: Resolvers): Promise<NonNullable<V3PositionStrategy['open']>> {
  const given = [open.range !== undefined && 'range', open.width !== undefined && 'width', open.ticks !== undefined && 'ticks'].filter(Boolean);
  if (given.length !== 1)
    throw new ConfigError(`${path}: give exactly one of range, width or ticks (${given.length === 0 ? 'none given' : `${given.join(' and ')} given`})`);
  const range = await openRange(open, pool, path, r);
  const amounts = { amount0: 0n, amount1: 0n };
  for (const [name, value] of Object.entries(open.amounts)) {
    const token = await tokenOfPool(pool, name, `${path}.amounts.${name}`, r);
    amounts[isAddressEqual(token.address, pool.token0.address) ? 'amount0' : 'amount1'] = r.amount(value, token, `${path}.amounts.${name}`);
  }
  if (amounts.amount0 === 0n && amounts.amount1 === 0n) throw new ConfigError(`${path}.amounts: give an amount of at least one of the pool's tokens`);
  return { range, amounts };
}

/** The range a position opens over: ticks from prices or given, or a width around the reference kept for the opening. */
async function openRange(open: OpenConfig, pool: PositionPool, path: string, r: Resolvers): Promise<NonNullable<V3PositionStrategy['open']>['range']> {
  const spacing = pool.tickSpacing;
  if (open.width !== undefined) {
    const [belowBps, aboveBps] = typeof open.width === 'number' ? [open.width, open.width] : [open.width.below, open.width.above];
    return { belowBps, aboveBps };
  }
  if (open.ticks) {
    const { lower, upper } = open.ticks;
    if (lower >= upper || lower % spacing !== 0 || upper % spacing !== 0 || lower < MIN_TICK || upper > MAX_TICK) {
      throw new ConfigError(`${path}.ticks: [${lower}, ${upper}) is no range of the pool's ticks (on a spacing of ${spacing}, lower below upper)`);
    }
    return { tickLower: lower, tickUpper: upper };
  }
  const range = open.range as NonNullable<OpenConfig['range']>;
  const of = await tokenOfPool(pool, range.of, `${path}.range.of`, r);
  const inToken = await tokenOfPool(pool, range.in, `${path}.range.in`, r);
  if (isAddressEqual(of.address, inToken.address)) throw new ConfigError(`${path}.range.in: must be the pool's other token`);
  if (parseUnits(range.low, 18) === 0n || parseUnits(range.low, 18) >= parseUnits(range.high, 18)) {
    throw new ConfigError(`${path}.range: low must be above 0 and below high`);
  }
  const [low, high] = [poolSqrtPrice(pool, of, range.low, `${path}.range.low`), poolSqrtPrice(pool, of, range.high, `${path}.range.high`)];
  const [lowerTick, upperTick] = (low.inverted ? [high, low] : [low, high]).map((price) => tickAtSqrtRatio(price.sqrtPriceX96)) as [number, number];
  const ticks = { tickLower: Math.floor(lowerTick / spacing) * spacing, tickUpper: Math.ceil(upperTick / spacing) * spacing };
  if (ticks.tickLower >= ticks.tickUpper || ticks.tickLower < MIN_TICK || ticks.tickUpper > MAX_TICK) {
    throw new ConfigError(`${path}.range: ${range.low} to ${range.high} is no range of the pool's ticks`);
  }
  return ticks;
}

async function distinctToken(r: Resolvers, value: string, path: string, other: TokenInfo): Promise<TokenInfo> {
  const info = await r.token(value, path);
  if (isAddressEqual(info.address, other.address)) throw new ConfigError(`${path}: must differ from the token sold (${other.symbol})`);
  return info;
}

/** A gauge by its address-book name, or by address (then its pool and reward token are read on chain). */
async function resolveGauge(value: string, path: string, r: Resolvers): Promise<{ address: Address; pool: Address; rewardToken: TokenInfo }> {
  const gauges = r.context.book?.contracts.gauges ?? {};
  const named = gauges[value] ?? Object.values(gauges).find((g) => isAddress(value) && isAddressEqual(g.address, value as Address));
  if (named) return { address: named.address, pool: named.pool, rewardToken: await r.token(named.rewardToken, `${path} (reward token)`) };
  if (!isAddress(value)) {
    throw new ConfigError(`${path}: unknown gauge '${value}'; give an address or one of ${Object.keys(gauges).join(', ') || '(none: pass an --address-book)'}`);
  }
  try {
    const [pool, reward] = await Promise.all([
      r.context.client.readContract({ address: value, abi: gaugeAbi, functionName: 'stakingToken' }),
      r.context.client.readContract({ address: value, abi: gaugeAbi, functionName: 'rewardToken' }),
    ]);
    return { address: value, pool, rewardToken: await r.token(reward, `${path} (reward token)`) };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${path}: ${value} does not answer as a staking gauge (stakingToken, rewardToken)`);
  }
}

/** A late run is missed after this fraction of the interval, unless the strategy sets its own `lateness`. */
const defaultLatenessFraction = 0.25;

function scheduleOf(config: StrategyConfig, defaults: { firstRun: Schedule['firstRun']; spreadMs: number }): Schedule {
  // A cron schedule's interval is its shortest gap: spread and lateness must fit every one of its slots. A schedule
  // with no gap to measure (no two runs ahead) gets neither.
  const intervalMs = shortestIntervalMs(config);
  return {
    firstRun: defaults.firstRun,
    everyMs: config.every === undefined ? undefined : parseDuration(config.every),
    cron: config.cron,
    jitterMs: config.jitter === undefined ? 0 : parseDuration(config.jitter),
    catchUp: config.catchUp,
    startMs: config.start === undefined ? undefined : Date.parse(config.start),
    endMs: config.end === undefined ? undefined : Date.parse(config.end),
    spreadMs: intervalMs === undefined ? 0 : Math.min(defaults.spreadMs, Math.floor(intervalMs / 2)),
    latenessMs:
      config.lateness !== undefined ? parseDuration(config.lateness) : intervalMs === undefined ? undefined : Math.floor(intervalMs * defaultLatenessFraction),
  };
}
