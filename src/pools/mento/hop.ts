/**
 * A route's hops through Mento's exchanges, checked as strictly as hops through pools. A hop's `extras` name a Broker,
 * an exchange provider and an exchange id (src/pools/mento/kind.ts); the hop is accepted only when:
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
import { GuardRefusal } from '../../model/guard-refusal.ts';
import type { FeedVenue, VenueSwap } from '../venue.ts';
import { mentoExchangeKey, readMentoExtras } from './kind.ts';
import { FIXED1, type MentoExchangeState, hasValidMedian, mentoSwap } from './math.ts';
import { type MentoExchange, discoverMentoExchanges, readMentoStates } from './state.ts';

/** A verified Mento v2 hop: the exchange, as found through the chain data's Broker. */
export type MentoExchangeHopFacts = { exchange: MentoExchange };

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

/** What the oracle's median rate less the spread gives for a hop's input (raw units of its output). */
export function mentoReferenceOut(exchange: MentoExchange, state: MentoExchangeState, inIs0: boolean, amountIn: bigint): bigint {
  const { rateNumerator, rateDenominator } = state.oracle;
  const [multiplierIn, multiplierOut] = inIs0 ? [exchange.multiplier0, exchange.multiplier1] : [exchange.multiplier1, exchange.multiplier0];
  const net = (amountIn * multiplierIn * (FIXED1 - state.spread)) / FIXED1;
  // The rate is asset0 per asset1.
  const scaledOut = inIs0 ? (net * rateDenominator) / rateNumerator : (net * rateNumerator) / rateDenominator;
  return scaledOut / multiplierOut;
}

function checkExchangeHop(hop: VenueSwap<MentoExchangeHopFacts>, state: MentoExchangeState, now: bigint, toleranceBps: number): void {
  const { exchange } = hop.facts;
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

/**
 * A Mento v2 exchange as a venue: proven by the chain data's Broker and its provider's list, held to its rate feed's
 * median less its spread; its Reserve may gain the collateral a hop pays in. A v2 exchange still quotes while its feed is
 * halted: it is never closed before its swap is checked (`checkSwap` refuses it then).
 */
export const mentoExchangeVenue: FeedVenue<MentoExchangeHopFacts, MentoExchangeState> = {
  list: (client, known) => new MentoExchanges(client, known.mento),
  poolOf: ({ exchange }) => mentoExchangeKey(exchange.provider, exchange.exchangeId),
  feePpmOf: ({ exchange }) => Number(exchange.spread / 10n ** 18n),
  nameOf: ({ exchange }) => `Mento exchange ${exchange.exchangeId}`,
  readStates: (client, hops) =>
    readMentoStates(
      client,
      hops.map((hop) => hop.exchange),
      'latest',
    ),
  closedBecause: () => undefined,
  checkSwap: checkExchangeHop,
  withState: (facts) => facts,
  flows: ({ exchange }, hop) => {
    const collateralIn = isAddressEqual(hop.tokenIn, exchange.asset0) ? exchange.collateral0 : exchange.collateral1;
    return { reserves: collateralIn ? [{ address: exchange.reserve, token: hop.tokenIn }] : [] };
  },
};
