/**
 * A route's hops through Mento's exchanges, checked as strictly as hops through pools. A hop's `extras` name a Broker,
 * an exchange provider and an exchange id (src/pools/mento.ts); the hop is accepted only when:
 *  - the Broker is the chain data's, the provider is one the chain data names for it and the Broker lists it, and the
 *    provider lists that exchange for exactly the hop's two tokens (read from the chain once per process: an
 *    exchange's id stands for its assets, and one removed since fails the simulation of the exact transaction);
 *  - at the latest block the exchange's rate feed has a valid median (recent, not expired, enough reports), the
 *    BreakerBox lets it trade, and the swap fits both tokens' trading limits and the Reserve's collateral: what the
 *    Broker would refuse is refused here first, saying which limit and how much room it leaves, or which feed is halted;
 *  - what the hop pays is within the tolerance of its reference: the oracle's median rate less the exchange's spread
 *    (never the buckets alone, which any trader moves between resets).
 */
import { type Address, type PublicClient, isAddressEqual } from 'viem';
import type { MentoBroker } from '../../config/chain-data.ts';
import { FIXED1, type MentoExchangeState, hasValidMedian, mentoSwap } from './math.ts';
import { readMentoExtras } from './kind.ts';
import { type MentoExchange, discoverMentoExchanges, readMentoStates } from './state.ts';
import type { Unreadable } from '../kind.ts';
import type { FpmmState } from '../mento-fpmm/math.ts';
import { type FpmmPool, discoverFpmmPools, readFpmmStates } from '../mento-fpmm/state.ts';
import { type FpmmHopFacts, checkFpmmHop, fpmmClosedBecause } from '../mento-fpmm/hop.ts';
import { GuardRefusal } from '../../model/guard-refusal.ts';

/** A verified Mento v2 hop: the exchange, as found through the chain data's Broker. */
export type MentoExchangeHopFacts = { exchange: MentoExchange };

/** A verified Mento hop: a v2 exchange, or a v3 fixed-price pool (guard/mento-fpmm-hop.ts). */
export type MentoHopFacts = MentoExchangeHopFacts | FpmmHopFacts;

/** A Mento hop's state at the latest block, of its own kind. */
export type MentoHopState = MentoExchangeState | FpmmState;

/**
 * The exchanges each known Broker's known providers list, read once per process and again (once per check) when a
 * hop names one not among them (an exchange created since).
 */
export class MentoExchanges {
  readonly #client: PublicClient;
  readonly #brokers: readonly MentoBroker[];
  readonly #found = new Map<string, Promise<MentoExchange[]>>();

  constructor(client: PublicClient, brokers: readonly MentoBroker[]) {
    this.#client = client;
    this.#brokers = brokers;
  }

  /** The exchange a hop's `extras` (the answer's `field`) name, proven for these two tokens; refused by name otherwise. */
  async verify(extras: `0x${string}`, tokenIn: Address, tokenOut: Address, field: string): Promise<MentoExchangeHopFacts> {
    const refuse = (why: string): never => {
      throw new GuardRefusal('unknown-pool', `${field} ${why}`, undefined, field);
    };
    const hop = readMentoExtras(extras);
    if (typeof hop === 'string') return refuse(hop);
    const known = this.#brokers.find((entry) => isAddressEqual(entry.broker, hop.broker));
    if (!known) return refuse(`names Broker ${hop.broker}, which is not the chain data's Mento Broker`);
    if (!known.exchangeProviders.some((provider) => isAddressEqual(provider, hop.provider))) {
      return refuse(`names exchange provider ${hop.provider}, which the chain data does not name for Broker ${hop.broker}`);
    }
    const find = (list: readonly MentoExchange[]) =>
      list.find((entry) => isAddressEqual(entry.provider, hop.provider) && entry.exchangeId.toLowerCase() === hop.exchangeId.toLowerCase());
    let exchange = find(await this.#exchangesOf(known, false));
    exchange ??= find(await this.#exchangesOf(known, true));
    if (!exchange) return refuse(`names exchange ${hop.exchangeId}, which provider ${hop.provider} of Broker ${hop.broker} does not list`);
    const pair = [exchange.asset0, exchange.asset1];
    if (!pair.some((asset) => isAddressEqual(asset, tokenIn)) || !pair.some((asset) => isAddressEqual(asset, tokenOut)) || isAddressEqual(tokenIn, tokenOut)) {
      return refuse(`names exchange ${hop.exchangeId}, which trades ${exchange.asset0} and ${exchange.asset1}, not ${tokenIn} → ${tokenOut}`);
    }
    return { exchange };
  }

  #exchangesOf(broker: MentoBroker, again: boolean): Promise<MentoExchange[]> {
    const key = broker.broker.toLowerCase();
    const cached = this.#found.get(key);
    if (cached && !again) return cached;
    // What an exchange id stands for never changes: read at the latest block, without asking which block that is.
    const read = discoverMentoExchanges(this.#client, broker.broker, broker.exchangeProviders, 'latest');
    this.#found.set(key, read);
    read.catch(() => this.#found.delete(key));
    return read;
  }
}

/**
 * Each hop's state at the latest block, of its own kind: the exchanges in one call, the fixed-price pools in another.
 * Made in the tick of the check's batch, they join it.
 */
export async function readHopStates(client: PublicClient, hops: readonly MentoHopFacts[]): Promise<(MentoHopState | Unreadable)[]> {
  const exchanges = hops.flatMap((hop) => ('exchange' in hop ? [hop.exchange] : []));
  const pools = hops.flatMap((hop) => ('fpmm' in hop ? [hop.fpmm] : []));
  const [exchangeStates, poolStates] = await Promise.all([
    readMentoStates(client, exchanges, 'latest'),
    readFpmmStates(client, pools, 'latest').then((states) => withSettingsAsNow(client, pools, states)),
  ]);
  return hops.map((hop) => ('exchange' in hop ? exchangeStates.shift() : poolStates.shift()) as MentoHopState | Unreadable);
}

/**
 * The states of fixed-price pools whose settings moved since this process read them (an owner set another oracle
 * adapter or rate feed) read again with their settings as the factory's pools are now: never checked at the old ones.
 * Only when one moved: one more discovery and one more state read.
 */
async function withSettingsAsNow(client: PublicClient, pools: readonly FpmmPool[], states: (FpmmState | Unreadable)[]): Promise<(FpmmState | Unreadable)[]> {
  const moved = pools.flatMap((pool, i) => {
    const state = states[i];
    return state && 'unreadable' in state && state.rediscover ? [{ pool, i }] : [];
  });
  if (moved.length === 0) return states;
  const now = await Promise.all(
    moved.map(async ({ pool }) => (await discoverFpmmPools(client, pool.factory, 'latest')).find((entry) => isAddressEqual(entry.pool, pool.pool))),
  );
  const found = now.filter((pool): pool is FpmmPool => pool !== undefined);
  const reread = await readFpmmStates(client, found, 'latest');
  const next = [...states];
  for (const [j, { i }] of moved.entries()) {
    const pool = now[j];
    if (pool) next[i] = reread[found.indexOf(pool)] as FpmmState | Unreadable;
  }
  return next;
}

/**
 * The hops' states, each one readable: a hop whose exchange or pool reverts its views at the latest block (destroyed by
 * governance since it was listed, its feed removed from the BreakerBox, a paused pool) is refused by name, as the
 * routing service leaves it out.
 */
export function readableHopStates(hops: readonly (MentoHopFacts & { field: string })[], states: readonly (MentoHopState | Unreadable)[]): MentoHopState[] {
  return hops.map((hop, i) => {
    const state = states[i] as MentoHopState | Unreadable;
    if (!('unreadable' in state)) return state;
    const venue = 'exchange' in hop ? `Mento exchange ${hop.exchange.exchangeId}` : `Mento v3 pool ${hop.fpmm.pool}`;
    throw new GuardRefusal(
      'unknown-pool',
      `${hop.field}: ${venue} cannot be read at the latest block (${state.unreadable}): it is no venue now`,
      undefined,
      hop.field,
    );
  });
}

/** A Mento hop with what it swaps: its input (the previous hop's quoted output) and what its adapter quotes it pays. */
export type MentoHopTrade = MentoHopFacts & { tokenIn: Address; amountIn: bigint; quotedOut: bigint; field: string };
type MentoExchangeHopTrade = MentoHopTrade & MentoExchangeHopFacts;

/** What the oracle's median rate less the spread gives for a hop's input (raw units of its output). */
export function mentoReferenceOut(exchange: MentoExchange, state: MentoExchangeState, inIs0: boolean, amountIn: bigint): bigint {
  const { rateNumerator, rateDenominator } = state.oracle;
  const [multiplierIn, multiplierOut] = inIs0 ? [exchange.multiplier0, exchange.multiplier1] : [exchange.multiplier1, exchange.multiplier0];
  const net = (amountIn * multiplierIn * (FIXED1 - state.spread)) / FIXED1;
  // The rate is asset0 per asset1.
  const scaledOut = inIs0 ? (net * rateDenominator) / rateNumerator : (net * rateNumerator) / rateDenominator;
  return scaledOut / multiplierOut;
}

/**
 * Every Mento v3 hop whose pool would take no swap at all in the block after `now`, whatever its size: the FX market
 * closed, its feed halted by the BreakerBox, or no valid median. Checked before what a hop pays is known, since such
 * a pool's quote reverts: the refusal says why rather than that the quote could not be read. (A v2 exchange still
 * quotes then; `checkMentoHops` refuses it.)
 */
export function checkMentoHopsOpen(hops: readonly (MentoHopFacts & { field: string })[], states: readonly MentoHopState[], now: bigint): void {
  for (const [i, hop] of hops.entries()) {
    const state = states[i] as MentoHopState;
    if ('fpmm' in hop) {
      const closed = fpmmClosedBecause(hop, state as FpmmState, now);
      if (closed) throw new GuardRefusal(closed.reason, `${hop.field}: ${closed.why}`, undefined, hop.field);
    }
  }
}

/**
 * Every Mento hop at the state read, for a swap in the block after `now`: refused if the Broker would refuse it (and
 * why), if its feed has no valid median, or if its quote pays less than the oracle's rate less the spread beyond the
 * tolerance.
 */
export function checkMentoHops(hops: readonly MentoHopTrade[], states: readonly MentoHopState[], now: bigint, toleranceBps: number): void {
  for (const [i, hop] of hops.entries()) {
    if ('fpmm' in hop) checkFpmmHop(hop, states[i] as FpmmState, now, toleranceBps);
    else checkExchangeHop(hop as MentoExchangeHopTrade, states[i] as MentoExchangeState, now, toleranceBps);
  }
}

function checkExchangeHop(hop: MentoExchangeHopTrade, state: MentoExchangeState, now: bigint, toleranceBps: number): void {
  const { exchange } = hop;
  const inIs0 = isAddressEqual(hop.tokenIn, exchange.asset0);
  const feed = `rate feed ${exchange.rateFeed}`;
  if (state.tradingMode !== 0) {
    throw new GuardRefusal(
      'halted',
      `${hop.field}: Mento's BreakerBox halts trading on ${feed} (trading mode ${state.tradingMode}): the Broker would refuse the swap`,
      undefined,
      hop.field,
    );
  }
  const landsAt = now + 1n;
  if (!hasValidMedian(state, landsAt)) {
    throw new GuardRefusal(
      'no-price',
      `${hop.field}: ${feed} has no valid median (its last report at ${state.oracle.medianTimestamp} is stale or expired): the exchange is no price, and its quote is not taken`,
      undefined,
      hop.field,
    );
  }
  const swapped = mentoSwap(state, inIs0, hop.amountIn, landsAt);
  if ('refused' in swapped) {
    const { refused } = swapped;
    if (refused.kind === 'limit') {
      const token = refused.token === 0 ? exchange.asset0 : exchange.asset1;
      const decimals = refused.token === 0 ? exchange.decimals0 : exchange.decimals1;
      const flow = (refused.token === 0) === inIs0 ? 'into' : 'out of';
      throw new GuardRefusal(
        'trading-limit',
        `${hop.field}: the swap moves ${token} ${flow} Mento's Reserve past its trading limit ${refused.breach.limit} on exchange ${exchange.exchangeId}: ${refused.breach.headroom} whole tokens (of ${decimals} decimals) of room left that way`,
        undefined,
        hop.field,
      );
    }
    if (refused.kind === 'reserve')
      throw new GuardRefusal('simulation', `${hop.field}: Mento's Reserve holds ${refused.holds} of the output, less than the swap pays`, undefined, hop.field);
    throw new GuardRefusal('no-price', `${hop.field}: ${feed} has no valid median`, undefined, hop.field);
  }
  const reference = mentoReferenceOut(exchange, state, inIs0, hop.amountIn);
  const lowest = (reference * BigInt(10_000 - toleranceBps)) / 10_000n;
  if (hop.quotedOut < lowest) {
    throw new GuardRefusal(
      'price',
      `${hop.field}: the Mento exchange pays ${hop.quotedOut}, below ${reference} (${feed}'s median less the ${(Number((state.spread * 10_000n) / FIXED1) / 100).toFixed(2)}% spread) by more than ${toleranceBps} bps (least accepted ${lowest}): its buckets are off the oracle, or the trade is too large for them`,
      undefined,
      hop.field,
    );
  }
}
