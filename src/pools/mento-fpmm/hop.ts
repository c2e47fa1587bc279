/**
 * A route's hops through Mento v3's fixed-price pools, checked as strictly as hops through pools. A hop's `extras`
 * name a pool (src/pools/mento-fpmm/kind.ts); the hop is accepted only when:
 *  - one of the chain data's Mento v3 pool factories lists the pool, for exactly the hop's two tokens (the list read
 *    once per process, and once more when a hop names a pool not yet in it);
 *  - at the latest block the pool would trade in the next one: the FX market is open, the BreakerBox lets its rate
 *    feed trade, the feed's median is within its expiry, and the swap fits both tokens' trading limits and the
 *    pool's reserve; what the pool would refuse is refused here first, saying why (which limit and how much room);
 *  - what the hop pays is within the tolerance of its reference: the feed's median less the pool's fees, as read at
 *    that block (the pool's own quote is that arithmetic; a lying service's quote is held to it).
 * The flows (guard/flows.ts) let the pool make its one swap and its protocol fee recipient take at most the protocol
 * fee of the hop's input.
 */
import { type Address, type PublicClient, isAddressEqual } from 'viem';
import { type FpmmState, fpmmAmountOut, fpmmRate, fpmmSwap } from './math.ts';
import { mentoFpmm } from './kind.ts';
import { type FpmmPool, discoverFpmmPools, readFpmmStates } from './state.ts';
import { GuardRefusal } from '../../model/guard-refusal.ts';
import type { Unreadable } from '../batch-read.ts';
import type { FeedVenue, VenueSwap } from '../venue.ts';

/** A verified hop through a fixed-price pool: the pool, as its factory lists it. */
export type FpmmHopFacts = { fpmm: FpmmPool };

/** The pools the chain data's Mento v3 factories list, read once per process and again when a hop names one not among them. */
export class FpmmPools {
  readonly #client: PublicClient;
  readonly #factories: readonly Address[];
  #found: Promise<FpmmPool[]> | undefined;

  constructor(client: PublicClient, factories: readonly Address[]) {
    this.#client = client;
    this.#factories = factories;
  }

  /** The pool a hop's `extras` (the answer's `field`) name, proven for these two tokens; refused by name otherwise. */
  async verify(extras: `0x${string}`, tokenIn: Address, tokenOut: Address, field: string): Promise<FpmmHopFacts> {
    const refuse = (why: string): never => {
      throw new GuardRefusal('unknown-pool', `${field} ${why}`, undefined, field);
    };
    const read = mentoFpmm.readExtras(extras);
    if (typeof read === 'string') return refuse(read);
    if (this.#factories.length === 0) return refuse(`names Mento v3 pool ${read.pool}, but the chain data names no Mento v3 pool factory`);
    const find = (list: readonly FpmmPool[]) => list.find((entry) => isAddressEqual(entry.pool, read.pool));
    let pool = find(await this.#pools(false));
    pool ??= find(await this.#pools(true));
    if (!pool) return refuse(`names pool ${read.pool}, which no Mento v3 pool factory of the chain data (${this.#factories.join(', ')}) lists`);
    const pair = [pool.token0, pool.token1];
    if (!pair.some((token) => isAddressEqual(token, tokenIn)) || !pair.some((token) => isAddressEqual(token, tokenOut)) || isAddressEqual(tokenIn, tokenOut)) {
      return refuse(`names pool ${pool.pool}, which trades ${pool.token0} and ${pool.token1}, not ${tokenIn} → ${tokenOut}`);
    }
    return { fpmm: pool };
  }

  #pools(again: boolean): Promise<FpmmPool[]> {
    if (this.#found && !again) return this.#found;
    // What a listed pool's tokens and feed are never changes: read at the latest block, without asking which it is.
    const read = Promise.all(this.#factories.map((factory) => discoverFpmmPools(this.#client, factory, 'latest'))).then((lists) => lists.flat());
    this.#found = read;
    read.catch(() => {
      if (this.#found === read) this.#found = undefined;
    });
    return read;
  }
}

const wholeTokens = (internal: bigint) => internal / 10n ** 15n;

/** Why a pool would take no swap at all in the block after `now` (the market closed, halted, no median), or nothing. */
function fpmmClosedBecause(hop: FpmmHopFacts, state: FpmmState, now: bigint): { reason: 'halted' | 'no-price'; why: string } | undefined {
  const { fpmm } = hop;
  const landsAt = now + 1n;
  const rate = fpmmRate(state, landsAt);
  if (!('kind' in rate)) return undefined;
  const feed = `rate feed ${fpmm.rateFeed}`;
  switch (rate.kind) {
    case 'market-closed':
      return {
        reason: 'halted',
        why: `the FX market is closed at ${new Date(Number(landsAt) * 1000).toISOString()} (Friday 21:00 to Sunday 23:00 UTC, and holidays): Mento v3 pool ${fpmm.pool} would refuse the swap`,
      };
    case 'halted':
      return {
        reason: 'halted',
        why: `Mento's BreakerBox halts trading on ${feed} (trading mode ${rate.tradingMode}): pool ${fpmm.pool} would refuse the swap`,
      };
    default:
      return {
        reason: 'no-price',
        why: `${feed} has no valid median (its last report at ${state.medianTimestamp} is older than its ${state.reportExpiry} s expiry): the pool is no price, and its quote is not taken`,
      };
  }
}

/**
 * One hop at the state read, for a swap in the block after `now`: refused if the pool would refuse it (and why), or
 * if its quote pays less than the feed's median less the pool's fees beyond the tolerance.
 */
function checkFpmmHop(hop: VenueSwap<FpmmHopFacts>, state: FpmmState, now: bigint, toleranceBps: number): void {
  const { fpmm } = hop.facts;
  const inIs0 = isAddressEqual(hop.tokenIn, fpmm.token0);
  const feed = `rate feed ${fpmm.rateFeed}`;
  const refuse = (reason: 'halted' | 'no-price' | 'trading-limit' | 'simulation' | 'price', why: string): never => {
    throw new GuardRefusal(reason, `${hop.field}: ${why}`, undefined, hop.field);
  };
  const closed = fpmmClosedBecause(hop.facts, state, now);
  if (closed) return refuse(closed.reason, closed.why);
  const landsAt = now + 1n;
  const swapped = fpmmSwap(state, inIs0, hop.amountIn, landsAt);
  if ('refused' in swapped) {
    const { refused } = swapped;
    if (refused.kind === 'limit') {
      const token = refused.token === 0 ? fpmm.token0 : fpmm.token1;
      return refuse(
        'trading-limit',
        `the swap moves ${token} past Mento v3 pool ${fpmm.pool}'s trading limit ${refused.limit}: ${wholeTokens(refused.headroom)} whole tokens of room left that way`,
      );
    }
    if (refused.kind === 'liquidity') return refuse('simulation', `Mento v3 pool ${fpmm.pool} holds ${refused.reserve} of the output, less than the swap pays`);
    return refuse('no-price', `${feed} gives no rate`);
  }
  const rate = fpmmRate(state, landsAt);
  if ('kind' in rate) return refuse('no-price', `${feed} gives no rate`);
  const reference = fpmmAmountOut(state, rate, inIs0, hop.amountIn);
  const lowest = (reference * BigInt(10_000 - toleranceBps)) / 10_000n;
  if (hop.quotedOut < lowest) {
    refuse(
      'price',
      `Mento v3 pool ${fpmm.pool} pays ${hop.quotedOut}, below ${reference} (${feed}'s median less its ${state.lpFee + state.protocolFee} bps of fees) by more than ${toleranceBps} bps (least accepted ${lowest})`,
    );
  }
}

/**
 * The states of fixed-price pools whose settings moved since this process read them (an owner set another oracle
 * adapter or rate feed) read again with their settings as the factory's pools are now: never checked at the old ones.
 * Only when one moved: one more discovery and one more state read.
 */
async function readWithSettingsAsNow(client: PublicClient, pools: readonly FpmmPool[]): Promise<(FpmmState | Unreadable)[]> {
  const states = await readFpmmStates(client, pools, 'latest');
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
 * A Mento v3 fixed-price pool as a venue: proven by the chain data's pool factories' lists, closed while the FX market
 * is, held to its feed's median less its fees as read in the check's batch; its protocol fee recipient may take at most
 * its share of the hop's input.
 */
export const fpmmVenue: FeedVenue<FpmmHopFacts, FpmmState> = {
  list: (client, known) => new FpmmPools(client, known.mentoFpmmFactories),
  poolOf: ({ fpmm }) => fpmm.pool,
  feePpmOf: ({ fpmm }) => Number(fpmm.lpFee + fpmm.protocolFee) * 100,
  nameOf: ({ fpmm }) => `Mento v3 pool ${fpmm.pool}`,
  readStates: (client, hops) =>
    readWithSettingsAsNow(
      client,
      hops.map((hop) => hop.fpmm),
    ),
  closedBecause: fpmmClosedBecause,
  checkSwap: checkFpmmHop,
  withState: ({ fpmm }, state) => ({ fpmm: { ...fpmm, lpFee: state.lpFee, protocolFee: state.protocolFee } }),
  flows: ({ fpmm }, hop) => ({
    fixedPricePools: [
      { address: fpmm.pool, tokenIn: hop.tokenIn, feePpm: hop.feePpm, protocolFeeRecipient: fpmm.protocolFeeRecipient, protocolFeeBps: fpmm.protocolFee },
    ],
  }),
};
