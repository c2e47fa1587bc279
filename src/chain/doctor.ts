/**
 * What `routekeeper doctor` checks against a node, before any money relies on it: the node's support for the
 * methods the checks and the sender prefer, code at every address of the chain data, feeds that answer with
 * their decimals and are fresh, factories whose init code hash reproduces one of their real pairs, the sequencer
 * (on an L2), and a price for every token a strategy trades. Each check is one finding.
 */
import { type Address, isAddressEqual, zeroAddress } from 'viem';
import { getBlock, getCode, readContract, simulateBlocks } from 'viem/actions';
import type { KnownContracts, PriceSources } from '../config/chain-data.ts';
import { uniswapV2FactoryAbi as factoryAbi, uniswapV2PairAbi as pairAbi } from '../contracts/abi.ts';
import { pairAddress } from '../guard/route.ts';
import { aggregatorV3Abi } from '../price/feed.ts';
import type { PriceReference, SequencerFeed } from '../price/reference.ts';
import type { ChainClient } from './chains.ts';
import { MethodUnsupportedError, nodeErrorOf } from './node-errors.ts';

export type Finding = { level: 'ok' | 'warn' | 'fail'; message: string };


const firstLine = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));

/** Whether the node answers a JSON-RPC method (an error other than "method not found" means it does). */
async function supports(client: ChainClient, probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (error) {
    return !(nodeErrorOf(error) instanceof MethodUnsupportedError);
  }
}

export async function nodeFindings(client: ChainClient): Promise<Finding[]> {
  const [simulate, sendSync] = await Promise.all([
    supports(client, () => simulateBlocks(client, { blocks: [{ calls: [{ to: zeroAddress, data: '0x' }] }], traceTransfers: true })),
    supports(client, () => client.request({ method: 'eth_sendRawTransactionSync' as never, params: ['0x00'] as never })),
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
  for (const token of known.tokens) add(token, 'token');
  for (const list of sources.values()) {
    for (const source of list) {
      if (source.kind === 'pool') add(source.pool, 'price pool');
      else add(source.address, source.kind === 'feed' ? 'price feed' : 'SortedOracles');
    }
  }
  if (sequencer) add(sequencer.address, 'sequencer uptime feed');
  const codes = await Promise.all([...named.values()].map(async (entry) => ({ ...entry, code: await getCode(client, { address: entry.address }).catch(() => undefined) })));
  const missing = codes.filter((entry) => !entry.code || entry.code === '0x');
  return missing.length === 0
    ? [{ level: 'ok', message: `code: all ${codes.length} addresses of the chain data have code` }]
    : missing.map((entry) => ({ level: 'fail', message: `code: ${entry.what} ${entry.address} has no code on this chain` }));
}

/** Each feed answers decimals() (as the chain data expects, when it says) and latestRoundData within its age. */
export async function feedFindings(client: ChainClient, sources: PriceSources, symbols: ReadonlyMap<string, string>): Promise<Finding[]> {
  const { timestamp } = await getBlock(client, { blockTag: 'latest' });
  const feeds = [...sources].flatMap(([token, list]) => list.flatMap((source) => (source.kind === 'feed' ? [{ token, source }] : [])));
  return Promise.all(
    feeds.map(async ({ token, source }): Promise<Finding> => {
      const name = `feed ${source.address} (${symbols.get(token) ?? token})`;
      try {
        const [decimals, [, answer, , updatedAt]] = await Promise.all([
          readContract(client, { address: source.address, abi: aggregatorV3Abi, functionName: 'decimals' }),
          readContract(client, { address: source.address, abi: aggregatorV3Abi, functionName: 'latestRoundData' }),
        ]);
        if (source.decimals !== undefined && decimals !== source.decimals) return { level: 'fail', message: `${name}: answers ${decimals} decimals, the chain data expects ${source.decimals}` };
        if (answer <= 0n) return { level: 'fail', message: `${name}: answers ${answer}` };
        const age = timestamp - updatedAt;
        if (age > BigInt(source.maxAgeSeconds)) return { level: 'fail', message: `${name}: stale, updated ${age} s ago (more than ${source.maxAgeSeconds} s)` };
        return { level: 'ok', message: `${name}: ${decimals} decimals, updated ${age} s ago (at most ${source.maxAgeSeconds} s)` };
      } catch (error) {
        return { level: 'fail', message: `${name}: does not answer as a feed (${firstLine(error)})` };
      }
    }),
  );
}

/** A factory's init code hash gives the address of its first real pair from that pair's tokens. */
export async function factoryFindings(client: ChainClient, known: KnownContracts): Promise<Finding[]> {
  return Promise.all(
    known.factories.map(async (factory): Promise<Finding> => {
      if (!factory.initCodeHash) return { level: 'ok', message: `factory ${factory.address}: no init code hash listed; its pools are proven by getPair` };
      try {
        const count = await readContract(client, { address: factory.address, abi: factoryAbi, functionName: 'allPairsLength' });
        if (count === 0n) return { level: 'warn', message: `factory ${factory.address}: has no pair to check its init code hash against` };
        const pair = await readContract(client, { address: factory.address, abi: factoryAbi, functionName: 'allPairs', args: [0n] });
        const [token0, token1] = await Promise.all([
          readContract(client, { address: pair, abi: pairAbi, functionName: 'token0' }),
          readContract(client, { address: pair, abi: pairAbi, functionName: 'token1' }),
        ]);
        const computed = pairAddress(factory.address, factory.initCodeHash, [token0, token1]);
        return isAddressEqual(computed, pair)
          ? { level: 'ok', message: `factory ${factory.address}: init code hash ${factory.initCodeHash} reproduces its pair ${pair}` }
          : { level: 'fail', message: `factory ${factory.address}: init code hash ${factory.initCodeHash} gives ${computed}, not its pair ${pair}: its pools would not be recognised` };
      } catch (error) {
        return { level: 'fail', message: `factory ${factory.address}: cannot be read (${firstLine(error)})` };
      }
    }),
  );
}

/** Every token a strategy trades has a price now; a strategy without one cannot trade. */
export async function strategyFindings(prices: PriceReference, strategies: readonly { id: string; tokens: readonly { address: Address; symbol: string }[] }[]): Promise<Finding[]> {
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
    if (status !== 0n) return [{ level: 'fail', message: `sequencer: feed ${sequencer.address} says the sequencer is down: nothing trades` }];
    const upFor = timestamp - startedAt;
    return upFor < BigInt(sequencer.gracePeriodSeconds)
      ? [{ level: 'warn', message: `sequencer: up for ${upFor} s only; nothing trades until ${sequencer.gracePeriodSeconds} s` }]
      : [{ level: 'ok', message: `sequencer: up for ${upFor} s (feed ${sequencer.address})` }];
  } catch (error) {
    return [{ level: 'fail', message: `sequencer: feed ${sequencer.address} cannot be read (${firstLine(error)}): nothing trades` }];
  }
}
