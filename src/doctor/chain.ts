/**
 * What `routekeeper doctor` checks against a node, before any money relies on it: the node's support for the
 * methods the checks and the sender prefer, code at every address of the chain data, feeds that answer with
 * their decimals, are fresh and are allowed no more than twice their measured heartbeat, SortedOracles rate feeds
 * read as the daemon reads them, factories whose init code hash reproduces one of their real pools, how many oracle
 * observations Uniswap V3 pools keep, Mento's Broker with its providers and their exchanges, Mento v3's pools with
 * their adapters and breakers, what each Mento proxy runs, the sequencer (on an L2), and a price for every token a
 * strategy trades.
 * Each check is one finding.
 */
import { type Address, getAddress, isAddressEqual, zeroAddress } from 'viem';
import { getBlock, getBlockNumber, getCode, getStorageAt, readContract, simulateBlocks } from 'viem/actions';
import type { KnownContracts, PriceSources } from '../config/chain-data.ts';
import { mentoBrokerAbi, mentoExchangeProviderAbi, positionManagerAbi, sortedOraclesAbi, uniswapV3PoolAbi } from '../contracts/abi.ts';
import { V3RangeMover } from '../contracts/solidity-code.ts';
import type { Unreadable } from '../pools/kind.ts';
import { type FpmmState, fpmmRate } from '../pools/mento-fpmm/math.ts';
import { discoverFpmmPools, readFpmmStates } from '../pools/mento-fpmm/state.ts';
import { hasValidMedian } from '../pools/mento/math.ts';
import { discoverMentoExchanges, readMentoStates } from '../pools/mento/state.ts';
import { poolKinds, sampledFactory } from '../pools/registry.ts';
import { aggregatorV3Abi } from '../price/feed.ts';
import { type Heartbeat, measureHeartbeat } from '../price/heartbeat.ts';
import type { PriceReference, SequencerFeed } from '../price/reference.ts';
import type { ChainClient } from '../chains.ts';
import { MethodUnsupportedError, nodeErrorOf } from '../chain/node-errors.ts';

export type Finding = { level: 'ok' | 'warn' | 'fail'; message: string };

/** An error's first line, for a finding. */
export const firstLine = (error: unknown): string => (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));

/** Whether the node answers a JSON-RPC method (an error other than "method not found" means it does). */
async function supports(probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (error) {
    return !(nodeErrorOf(error) instanceof MethodUnsupportedError);
  }
}

export async function nodeFindings(client: ChainClient): Promise<Finding[]> {
  const [simulate, sendSync] = await Promise.all([
    supports(() => simulateBlocks(client, { blocks: [{ calls: [{ to: zeroAddress, data: '0x' }] }], traceTransfers: true })),
    supports(() => client.request({ method: 'eth_sendRawTransactionSync' as never, params: ['0x00'] as never })),
  ]);
  return [
    simulate
      ? { level: 'ok', message: 'node: eth_simulateV1 answers: routes are verified by their token flows' }
      : { level: 'warn', message: 'node: no eth_simulateV1: routes are checked against the lists only, and a route through an unlisted adapter is refused' },
    sendSync
      ? { level: 'ok', message: 'node: eth_sendRawTransactionSync answers: a send returns its receipt' }
      : { level: 'warn', message: 'node: no eth_sendRawTransactionSync: receipts are polled after each send' },
  ];
}

/** Every address the chain data names has code on this chain. */
export async function codeFindings(client: ChainClient, known: KnownContracts, sources: PriceSources, sequencer?: SequencerFeed): Promise<Finding[]> {
  const named = new Map<string, { address: Address; what: string }>();
  const add = (address: Address, what: string) => named.has(address.toLowerCase()) || named.set(address.toLowerCase(), { address, what });
  for (const router of known.routers) add(router, 'router');
  for (const farm of known.oneClickFarms) add(farm, 'OneClickFarm');
  for (const adapter of known.adapters) add(adapter.address, 'adapter');
  for (const factory of known.factories) add(factory.address, 'factory');
  for (const farm of known.farms) add(farm.address, 'farm');
  for (const gauge of known.gauges) add(gauge.address, 'gauge');
  for (const manager of known.positionManagers) add(manager.address, 'position manager');
  for (const mento of known.mento) {
    add(mento.broker, 'Mento Broker');
    for (const provider of mento.exchangeProviders) add(provider, 'Mento exchange provider');
    if (mento.breakerBox) add(mento.breakerBox, 'Mento BreakerBox');
    if (mento.fpmmFactory) add(mento.fpmmFactory, 'Mento v3 FPMMFactory');
  }
  for (const token of known.tokens) add(token, 'token');
  for (const list of sources.values()) {
    for (const source of list) {
      if (source.kind === 'pool') add(source.pool, 'price pool');
      else add(source.address, source.kind === 'feed' ? 'price feed' : 'SortedOracles');
    }
  }
  if (sequencer) add(sequencer.address, 'sequencer uptime feed');
  const codes = await Promise.all(
    [...named.values()].map(async (entry) => ({ ...entry, code: await getCode(client, { address: entry.address }).catch(() => undefined) })),
  );
  const missing = codes.filter((entry) => !entry.code || entry.code === '0x');
  return missing.length === 0
    ? [{ level: 'ok', message: `code: all ${codes.length} addresses of the chain data have code` }]
    : missing.map((entry) => ({ level: 'fail', message: `code: ${entry.what} ${entry.address} has no code on this chain` }));
}

/**
 * Each feed answers decimals() (as the chain data expects, when it says) and latestRoundData within its age, and
 * its age limit is no looser than twice the heartbeat its recent rounds show.
 */
export async function feedFindings(client: ChainClient, sources: PriceSources, symbols: ReadonlyMap<string, string>): Promise<Finding[]> {
  const { timestamp } = await getBlock(client, { blockTag: 'latest' });
  const feeds = [...sources].flatMap(([token, list]) => list.flatMap((source) => (source.kind === 'feed' ? [{ token, source }] : [])));
  const perFeed = await Promise.all(
    feeds.map(async ({ token, source }): Promise<Finding[]> => {
      const name = `feed ${source.address} (${symbols.get(token) ?? token})`;
      try {
        const [decimals, [roundId, answer, , updatedAt]] = await Promise.all([
          readContract(client, { address: source.address, abi: aggregatorV3Abi, functionName: 'decimals' }),
          readContract(client, { address: source.address, abi: aggregatorV3Abi, functionName: 'latestRoundData' }),
        ]);
        if (source.decimals !== undefined && decimals !== source.decimals)
          return [{ level: 'fail', message: `${name}: answers ${decimals} decimals, the chain data expects ${source.decimals}` }];
        if (answer <= 0n) return [{ level: 'fail', message: `${name}: answers ${answer}` }];
        const age = timestamp - updatedAt;
        const heartbeat = heartbeatFinding(name, source.maxAgeSeconds, await measureHeartbeat(client, source.address, roundId, updatedAt));
        if (age > BigInt(source.maxAgeSeconds))
          return [{ level: 'fail', message: `${name}: stale, updated ${age} s ago (more than ${source.maxAgeSeconds} s)` }, heartbeat];
        return [{ level: 'ok', message: `${name}: ${decimals} decimals, updated ${age} s ago (at most ${source.maxAgeSeconds} s)` }, heartbeat];
      } catch (error) {
        return [{ level: 'fail', message: `${name}: does not answer as a feed (${firstLine(error)})` }];
      }
    }),
  );
  return perFeed.flat();
}

function heartbeatFinding(name: string, maxAgeSeconds: number, heartbeat: Heartbeat | undefined): Finding {
  if (!heartbeat) return { level: 'warn', message: `${name}: fewer than 3 rounds to measure its heartbeat; its limit of ${maxAgeSeconds} s is unchecked` };
  const measured = `its last ${heartbeat.rounds} rounds came at most ${heartbeat.longestSeconds} s apart (median ${heartbeat.medianSeconds} s)`;
  const allowance = 2n * heartbeat.longestSeconds;
  return BigInt(maxAgeSeconds) > allowance
    ? {
        level: 'warn',
        message: `${name}: ${measured}; its limit of ${maxAgeSeconds} s is looser than twice that (${allowance} s): a stalled feed would go on pricing trades`,
      }
    : { level: 'ok', message: `${name}: ${measured}; its limit of ${maxAgeSeconds} s is within twice that` };
}

/**
 * Each SortedOracles source: the contract answers the rate feed's own median (what the daemon reads), says whether
 * governance maps the feed to another, and its own report expiry is no shorter than the age the source allows.
 */
export async function sortedOraclesFindings(client: ChainClient, sources: PriceSources, symbols: ReadonlyMap<string, string>): Promise<Finding[]> {
  const oracles = [...sources].flatMap(([token, list]) => list.flatMap((source) => (source.kind === 'sorted-oracles' ? [{ token, source }] : [])));
  const perSource = await Promise.all(
    oracles.map(async ({ token, source }): Promise<Finding[]> => {
      const name = `SortedOracles ${source.address} rate feed ${source.rateFeedId} (${symbols.get(token) ?? token})`;
      const at = { address: source.address, abi: sortedOraclesAbi, args: [source.rateFeedId] } as const;
      const [own, mapped, expiry] = await Promise.all([
        readContract(client, { ...at, functionName: 'medianRateWithoutEquivalentMapping' }).catch((error: unknown) => ({
          unanswered: firstLine(error) ?? 'no answer',
        })),
        readContract(client, { ...at, functionName: 'getEquivalentToken' }).catch(() => undefined),
        readContract(client, { ...at, functionName: 'getTokenReportExpirySeconds' }).catch(() => undefined),
      ]);
      if ('unanswered' in own)
        return [{ level: 'fail', message: `${name}: does not answer medianRateWithoutEquivalentMapping (${own.unanswered}): this source gives no price` }];
      const findings: Finding[] = [{ level: own[1] === 0n ? 'warn' : 'ok', message: `${name}: ${own[1] === 0n ? 'has no report' : 'answers its own median'}` }];
      if (mapped && mapped !== zeroAddress) {
        findings.push({
          level: 'warn',
          message: `${name}: is mapped to ${mapped} (setEquivalentToken): its medianRate answers that feed's rate; routekeeper reads the feed's own`,
        });
      }
      if (expiry !== undefined && BigInt(source.maxAgeSeconds) > expiry) {
        findings.push({
          level: 'warn',
          message: `${name}: allows reports ${source.maxAgeSeconds} s old, longer than the contract's own expiry of ${expiry} s`,
        });
      }
      return findings;
    }),
  );
  return perSource.flat();
}

/**
 * A factory's init code hash gives the address of one of its real pools from that pool's tokens (and, for its kind,
 * its immutables): its kind samples the pool (a V2 factory's first pair; a V3 factory's pool of two of the chain's
 * first tokens) and computes where the hash puts it.
 */
export async function factoryFindings(client: ChainClient, known: KnownContracts): Promise<Finding[]> {
  return Promise.all(
    known.factories.map(async (factory): Promise<Finding> => {
      const kind = poolKinds[factory.kind];
      if (!factory.initCodeHash)
        return { level: 'ok', message: `factory ${factory.address}: no init code hash listed; its pools are proven by ${kind.provenBy}` };
      try {
        const [pool] = await kind.samplePools(client, sampledFactory(factory), known.tokens.slice(0, 8), await getBlockNumber(client), 1);
        if (!pool) return { level: 'warn', message: `factory ${factory.address}: has no pool to check its init code hash against` };
        const computed = kind.createdAt(factory.address, factory.initCodeHash, pool);
        return isAddressEqual(computed, pool.address)
          ? { level: 'ok', message: `factory ${factory.address}: init code hash ${factory.initCodeHash} reproduces its pool ${pool.address}` }
          : {
              level: 'fail',
              message: `factory ${factory.address}: init code hash ${factory.initCodeHash} gives ${computed}, not its pool ${pool.address}: its pools would not be recognised`,
            };
      } catch (error) {
        return { level: 'fail', message: `factory ${factory.address}: cannot be read (${firstLine(error)})` };
      }
    }),
  );
}

/**
 * Each position manager of the chain data makes its positions' pools in the factory the chain data names beside it
 * (its own `factory()`): otherwise a position's pool, found by CREATE2 from that factory, would not be its pool.
 */
export async function positionManagerFindings(client: ChainClient, known: KnownContracts): Promise<Finding[]> {
  return Promise.all(
    known.positionManagers.map(async (manager): Promise<Finding> => {
      try {
        const factory = await readContract(client, { address: manager.address, abi: positionManagerAbi, functionName: 'factory' });
        return isAddressEqual(factory, manager.factory)
          ? { level: 'ok', message: `position manager ${manager.address}: its factory() is the chain data's ${manager.factory}` }
          : { level: 'fail', message: `position manager ${manager.address}: its factory() is ${factory}, not the chain data's ${manager.factory}` };
      } catch (error) {
        return { level: 'fail', message: `position manager ${manager.address}: cannot be read (${firstLine(error)})` };
      }
    }),
  );
}

/**
 * The position mover the chain data names holds exactly this build's code (the daemon holds it to that at every use
 * and sends it nothing otherwise); none named: re-ranges and exits go in steps, each its own transaction.
 */
export async function positionMoverFindings(client: ChainClient, known: KnownContracts): Promise<Finding[]> {
  if (known.positionManagers.length === 0) return [];
  if (known.positionMovers.length === 0) {
    return [
      {
        level: 'ok',
        message:
          "no position mover is named: a V3 position's re-range and exit go in steps, each its own transaction ('routekeeper deploy-adapter v3-range-mover' deploys one)",
      },
    ];
  }
  return Promise.all(
    known.positionMovers.map(async (mover): Promise<Finding> => {
      const code = await getCode(client, { address: mover }).catch(() => undefined);
      return code?.toLowerCase() === V3RangeMover.runtimeCode.toLowerCase()
        ? { level: 'ok', message: `position mover ${mover}: this build's code; re-ranges and exits move through it in one transaction` }
        : {
            level: 'fail',
            message: `position mover ${mover}: its code is not this build's; nothing is sent to it (deploy one with 'routekeeper deploy-adapter v3-range-mover')`,
          };
    }),
  );
}

/**
 * Each Mento Broker of the chain data lists the providers named for it, each provider uses the breaker box named (when
 * one is), and its exchanges: how many, and those whose rate feed has no valid median now (not routed until it has).
 */
export async function mentoFindings(client: ChainClient, known: KnownContracts): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const mento of known.mento) {
    const name = `Mento Broker ${mento.broker}`;
    try {
      const listed = await readContract(client, { address: mento.broker, abi: mentoBrokerAbi, functionName: 'getExchangeProviders' });
      const missing = mento.exchangeProviders.filter((provider) => !listed.some((entry) => isAddressEqual(entry, provider)));
      if (missing.length > 0) {
        findings.push({
          level: 'fail',
          message: `${name}: does not list the exchange provider${missing.length === 1 ? '' : 's'} ${missing.join(', ')} the chain data names`,
        });
        continue;
      }
      if (mento.breakerBox) {
        for (const provider of mento.exchangeProviders) {
          const used = await readContract(client, { address: provider, abi: mentoExchangeProviderAbi, functionName: 'breakerBox' });
          if (!isAddressEqual(used, mento.breakerBox))
            findings.push({ level: 'fail', message: `${name}: provider ${provider} uses breaker box ${used}, not ${mento.breakerBox} as the chain data says` });
        }
      }
      const block = await getBlock(client, { blockTag: 'latest' });
      const exchanges = await discoverMentoExchanges(client, mento.broker, mento.exchangeProviders, block.number);
      const states = await readMentoStates(client, exchanges, block.number);
      const unreadable = exchanges.flatMap((exchange, i) => {
        const state = states[i];
        return state && 'unreadable' in state ? [{ exchange, why: state.unreadable }] : [];
      });
      const readable = exchanges.flatMap((exchange, i) => {
        const state = states[i];
        return state && !('unreadable' in state) ? [{ exchange, state }] : [];
      });
      const stale = readable.filter(({ state }) => !hasValidMedian(state, block.timestamp + 1n)).map(({ exchange }) => exchange);
      const halted = readable.filter(({ state }) => state.tradingMode !== 0).map(({ exchange }) => exchange);
      for (const { exchange, why } of unreadable)
        findings.push({ level: 'warn', message: `${name}: exchange ${exchange.exchangeId} cannot be read now (${why}): not routed` });
      findings.push({
        level: exchanges.length === 0 ? 'warn' : 'ok',
        message: `${name}: ${exchanges.length} exchanges of ${mento.exchangeProviders.length} provider${mento.exchangeProviders.length === 1 ? '' : 's'} found`,
      });
      for (const exchange of stale)
        findings.push({
          level: 'warn',
          message: `${name}: exchange ${exchange.exchangeId} has no valid median on rate feed ${exchange.rateFeed} now: not routed until it has`,
        });
      for (const exchange of halted)
        findings.push({ level: 'warn', message: `${name}: exchange ${exchange.exchangeId}'s rate feed ${exchange.rateFeed} is halted by the breaker box now` });
    } catch (error) {
      findings.push({ level: 'fail', message: `${name}: cannot be read (${firstLine(error)})` });
    }
  }
  for (const factory of known.mentoFpmmFactories) findings.push(...(await fixedPricePoolFindings(client, factory)));
  for (const mento of known.mento) findings.push(...(await implementationFindings(client, mento)));
  // Mento v3's pools need an adapter no one publishes: routed only once the user deployed routekeeper's own.
  if (known.mentoFpmmFactories.length > 0 && !known.adapters.some((adapter) => adapter.kind === 'mento-fpmm')) {
    findings.push({
      level: 'warn',
      message: `Mento v3 pool factory ${known.mentoFpmmFactories.join(', ')}: its pools are not routed, as no adapter for them is known; deploy one from your wallet with 'routekeeper deploy-adapter mento-fpmm --address-book <file>'`,
    });
  }
  return findings;
}

/**
 * Each Mento v3 pool of a factory, one line each, as the chain has it now: its oracle adapter and that adapter's
 * market-hours breaker, whether the breaker keeps the FX market's hours (an FX pool: closed at weekends) or has its
 * checks off (Celo's USD pools: open at any hour), and whether it would take a swap in the next block and why not.
 */
async function fixedPricePoolFindings(client: ChainClient, factory: Address): Promise<Finding[]> {
  const name = `Mento v3 pool factory ${factory}`;
  try {
    const block = await getBlock(client, { blockTag: 'latest' });
    const pools = await discoverFpmmPools(client, factory, block.number);
    const states = await readFpmmStates(client, pools, block.number);
    if (pools.length === 0) return [{ level: 'warn', message: `${name}: lists no pool` }];
    return pools.map((pool, i): Finding => {
      const state = states[i] as FpmmState | Unreadable;
      const where = `Mento v3 pool ${pool.pool} of factory ${factory}: oracle adapter ${pool.oracleAdapter}, market-hours breaker ${pool.marketHoursBreaker}`;
      if ('unreadable' in state) return { level: 'warn', message: `${where}: cannot be read now (${state.unreadable}): not routed` };
      const hours = state.marketHoursChecked ? "keeps the FX market's hours (closed at weekends and on holidays)" : 'has its checks off (open at any hour)';
      const rate = fpmmRate(state, block.timestamp + 1n);
      const now = 'kind' in rate ? `takes no swap in the next block (${rate.kind})` : 'open now';
      return { level: 'ok', message: `${where} ${hours}; ${now}` };
    });
  } catch (error) {
    return [{ level: 'fail', message: `${name}: cannot be read (${firstLine(error)})` }];
  }
}

/** The V3 pools of each V3 factory looked at for their oracle, at most. */
const V3_POOLS_LOOKED_AT = 8;

/**
 * How many oracle observations each of a Uniswap V3 factory's pools among the chain's tokens keeps (`slot0`): a pool
 * with one (Uniswap's default, kept until someone pays to grow it) answers its own 10-minute average only while it has
 * not traded within those 10 minutes, so the daemon cannot hold a hop through it to its own history while it is busy.
 */
export async function v3OracleFindings(client: ChainClient, known: KnownContracts, sources: PriceSources): Promise<Finding[]> {
  const findings: Finding[] = [];
  const unpriced = (token: Address) => (sources.get(token.toLowerCase())?.length ?? 0) === 0;
  for (const factory of known.factories.filter((entry) => entry.kind === 'uniswap-v3')) {
    try {
      const kind = poolKinds[factory.kind];
      const pools = await kind.samplePools(client, sampledFactory(factory), known.tokens, await getBlockNumber(client), V3_POOLS_LOOKED_AT);
      if (pools.length === 0) findings.push({ level: 'warn', message: `Uniswap V3 factory ${factory.address}: no pool among the chain's tokens to look at` });
      for (const pool of pools) {
        const [, , , cardinality, cardinalityNext] = await readContract(client, { address: pool.address, abi: uniswapV3PoolAbi, functionName: 'slot0' });
        const where = `Uniswap V3 pool ${pool.address} (${pool.feeBps / 100}%)`;
        const observations = `${cardinality} oracle observation${cardinality === 1 ? '' : 's'}`;
        if (cardinalityNext > 1) {
          findings.push({
            level: 'ok',
            message: `${where}: keeps ${observations}${cardinality < cardinalityNext ? `, growing to ${cardinalityNext} as it trades` : ''}`,
          });
          continue;
        }
        // One observation: no mean of its own while it trades. The daemon then holds a hop to the reference of its
        // two tokens, which needs both priced (docs/safety.md, "Pools whose own oracle does not reach the window").
        const withoutPrice = [pool.token0, pool.token1].find(unpriced);
        findings.push(
          withoutPrice
            ? {
                level: 'warn',
                message: `${where}: keeps ${observations}, and will not grow: while it trades (within 10 minutes) a hop through it is refused, as nothing independent prices ${withoutPrice}`,
              }
            : {
                level: 'ok',
                message: `${where}: keeps ${observations}: while it trades, a hop through it is held to the reference of its two tokens`,
              },
        );
      }
    } catch (error) {
      findings.push({ level: 'fail', message: `Uniswap V3 factory ${factory.address}: its pools' oracles cannot be read (${firstLine(error)})` });
    }
  }
  return findings;
}

/** EIP-1967's implementation slot: `bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1)`. */
const IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

/**
 * What each of Mento's contracts runs, as its EIP-1967 implementation slot says: the Broker, its exchange providers,
 * the BreakerBox, the v3 pool factory, each of its pools (upgradeable proxies) and their oracle adapters; named
 * against the implementation the chain data expects, where it lists one (governance upgrades them: a contract that
 * runs another than the one the model was written for fails).
 */
async function implementationFindings(client: ChainClient, mento: KnownContracts['mento'][number]): Promise<Finding[]> {
  const named = new Map<string, { address: Address; name: string }>();
  const add = (address: Address | undefined, name: string) => {
    if (address && !named.has(address.toLowerCase())) named.set(address.toLowerCase(), { address, name });
  };
  add(mento.broker, 'Mento Broker');
  for (const provider of mento.exchangeProviders) add(provider, 'Mento exchange provider');
  add(mento.breakerBox, 'Mento BreakerBox');
  add(mento.fpmmFactory, 'Mento v3 pool factory');
  if (mento.fpmmFactory) {
    for (const pool of await discoverFpmmPools(client, mento.fpmmFactory, 'latest').catch(() => [])) {
      add(pool.pool, 'Mento v3 pool');
      if (!isAddressEqual(pool.oracleAdapter, zeroAddress)) add(pool.oracleAdapter, 'Mento v3 oracle adapter');
    }
  }
  const expected = new Map(Object.entries(mento.implementations ?? {}).map(([proxy, implementation]) => [proxy.toLowerCase(), implementation]));
  return Promise.all(
    [...named.values()].map(async ({ address, name }): Promise<Finding> => {
      const where = `${name} ${address}`;
      try {
        const slot = await getStorageAt(client, { address, slot: IMPLEMENTATION_SLOT });
        const runs = slot && BigInt(slot) !== 0n ? getAddress(`0x${slot.slice(-40)}`) : undefined;
        const wanted = expected.get(address.toLowerCase());
        if (wanted === undefined)
          return {
            level: 'ok',
            message: `${where}: ${runs ? `an EIP-1967 proxy running ${runs}` : 'not an EIP-1967 proxy'} (the chain data expects no implementation: not compared)`,
          };
        if (runs && isAddressEqual(runs, wanted)) return { level: 'ok', message: `${where}: an EIP-1967 proxy running ${runs}, as the chain data expects` };
        return {
          level: 'fail',
          message: `${where}: ${runs ? `runs ${runs}` : 'is not an EIP-1967 proxy'}, not the implementation ${wanted} the chain data expects: upgraded since; what routekeeper models of it may no longer hold`,
        };
      } catch (error) {
        return { level: 'warn', message: `${where}: its implementation cannot be read (${firstLine(error)})` };
      }
    }),
  );
}

/** Every token a strategy trades has a price now; a strategy without one cannot trade. */
export async function strategyFindings(
  prices: PriceReference,
  strategies: readonly { id: string; tokens: readonly { address: Address; symbol: string }[] }[],
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const strategy of strategies) {
    const problems: string[] = [];
    for (const token of strategy.tokens) {
      if (!prices.hasSource(token.address)) {
        problems.push(`${token.symbol} has no price source`);
        continue;
      }
      await prices.usdPrice(token.address).catch((error: unknown) => problems.push(`${token.symbol} has no price now (${firstLine(error)})`));
    }
    findings.push(
      problems.length === 0
        ? { level: 'ok', message: `strategy ${strategy.id}: every token it trades has a price` }
        : { level: 'fail', message: `strategy ${strategy.id} cannot trade: ${problems.join('; ')}` },
    );
  }
  return findings;
}

/** The L2 sequencer is up, and has been for longer than the grace period. */
export async function sequencerFindings(client: ChainClient, sequencer: SequencerFeed | undefined): Promise<Finding[]> {
  if (!sequencer) return [];
  try {
    const [{ timestamp }, [, status, startedAt]] = await Promise.all([
      getBlock(client, { blockTag: 'latest' }),
      readContract(client, { address: sequencer.address, abi: aggregatorV3Abi, functionName: 'latestRoundData' }),
    ]);
    if (startedAt === 0n)
      return [{ level: 'fail', message: `sequencer: feed ${sequencer.address} answers a round that started at 0 (an invalid round): nothing trades` }];
    if (status !== 0n) return [{ level: 'fail', message: `sequencer: feed ${sequencer.address} says the sequencer is down: nothing trades` }];
    const upFor = timestamp - startedAt;
    return upFor < BigInt(sequencer.gracePeriodSeconds)
      ? [{ level: 'warn', message: `sequencer: up for ${upFor} s only; nothing trades until ${sequencer.gracePeriodSeconds} s` }]
      : [{ level: 'ok', message: `sequencer: up for ${upFor} s (feed ${sequencer.address})` }];
  } catch (error) {
    return [{ level: 'fail', message: `sequencer: feed ${sequencer.address} cannot be read (${firstLine(error)}): nothing trades` }];
  }
}
