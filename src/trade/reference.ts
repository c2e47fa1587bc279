/**
 * What a trade should pay, found without the routing service's numbers.
 *
 * Swaps: each hop's own `getOutputAmount` of the previous hop's output (hop i's output is hop i+1's input), called
 * as ordinary calls on the state the trade is simulated on (contracts/hop-quoter.ts), is what the route pays now,
 * price impact included; the oracle's rate less the route's pool fees is what it is worth. (The router's `view`
 * `getOutputAmount` makes the same chain, but as static calls, in which an adapter that quotes by swapping and
 * reverting, as Swappa's PairUniswapV3 does through Uniswap's QuoterV2, cannot answer.)
 * The first is the reference the quote and the minimum are held to, once it is within the tolerance of the
 * second: pools pushed away from the market, or a trade too large for them, are refused.
 * Deposits and withdrawals value the position at the pool's fair price (from the product of its reserves and
 * the reference prices of both tokens), which moving the reserves within a block does not change.
 */
import { type Address, erc20Abi, parseAbi } from 'viem';
import { isqrt } from '../bigint-math.ts';
import { decodeHopQuotes, failedHopOf } from '../contracts/hop-quoter.ts';
import type { ChainClient } from '../chains.ts';
import type { CallResult } from '../chain/preflight.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import { type UnlistedHop, type VerifiedFarm, type VerifiedHop, isUnlisted } from '../guard/route.ts';
import type { PriceReference, UsdPrice } from '../price/reference.ts';
import type { Trade } from '../model/trade.ts';

export type Reference = {
  /** What the trade should pay, in tokenOut's raw units. */
  amountOut: bigint;
  /** For swaps: each hop's quoted output, in route order (the last is `amountOut`). */
  hopOuts?: readonly bigint[];
  /** For swaps: what the output is worth at the oracle's rate, less the route's pool fees. */
  oracleOut?: bigint;
  /** For swaps: what the output is worth at the oracle's rate before pool fees (known before the route's pools are). */
  oracleValue?: bigint;
  /** How it was found, for refusals and the ledger. */
  basis: string;
};

const FEE_SCALE = 1_000_000n;
const pairAbi = parseAbi(['function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)']);

/**
 * A hop as its pool's fee in millionths (a verified hop, or an unlisted one at the fee assumed until its flows prove
 * its pool).
 */
export type HopFee = { feePpm: number };

/** The share a route's pools leave of its input, scaled by FEE_SCALE (a million, the unit of the fees). */
export function routeFeeFactor(hops: readonly HopFee[]): bigint {
  return hops.reduce((factor, hop) => (factor * (FEE_SCALE - BigInt(hop.feePpm))) / FEE_SCALE, FEE_SCALE);
}

const usd = (amount: bigint, price: UsdPrice, decimals: number) => (amount * price.usdE18) / 10n ** BigInt(decimals);

/**
 * A swap's reference from the hop quotes read beside the simulation (`quoted`, the HopQuoter's answer over the
 * route's own fields) and the oracle. A route one of whose hops cannot be quoted has no reference: refused as
 * no-price, naming the hop and its adapter.
 */
export async function swapReference(
  prices: PriceReference,
  trade: Trade,
  route: { pairs: readonly Address[] },
  hops: readonly (VerifiedHop | UnlistedHop)[],
  quoted: Promise<CallResult | undefined>,
): Promise<Reference> {
  const [{ amountOut, priceIn, priceOut }, quote] = await Promise.all([prices.convert(trade.tokenIn, trade.tokenOut, trade.amountIn), quoted]);
  const hopOuts = hopOutputs(quote, route.pairs);
  const marketOut = hopOuts.at(-1) as bigint;
  const oracle = `oracle ${priceIn.source} / ${priceOut.source}`;
  const verified = hops.filter((hop): hop is VerifiedHop => !isUnlisted(hop));
  // A hop through an unlisted adapter has its pool (and fee) only once the simulation's flows prove it.
  if (verified.length < hops.length)
    return { amountOut: marketOut, hopOuts, oracleValue: amountOut, basis: `each hop's getOutputAmount over the route; ${oracle}` };
  const { oracleOut, fees } = oracleAfterFees(amountOut, verified);
  return { amountOut: marketOut, hopOuts, oracleValue: amountOut, oracleOut, basis: `each hop's getOutputAmount over the verified route; ${oracle}, ${fees}` };
}

/** Each hop's quoted output; a quote that failed is what the route pays left unknown: nothing is signed on it. */
function hopOutputs(quote: CallResult | undefined, pairs: readonly Address[]): readonly bigint[] {
  if (!quote) throw new GuardRefusal('no-price', 'what the route pays was not read: the node answered no quote');
  if (!quote.ok) {
    const failed = failedHopOf(quote.revertData);
    if (!failed) throw new GuardRefusal('no-price', `the hop quotes over the route fail (${quote.reason}): what the route pays now cannot be read`);
    throw new GuardRefusal(
      'no-price',
      `pairs[${failed.hop}] ${pairs[failed.hop]}'s getOutputAmount reverts (${failed.reason}): what the route pays now cannot be read`,
      undefined,
      `details.pairs[${failed.hop}]`,
    );
  }
  const outs = decodeHopQuotes(quote.returned);
  if (outs.length !== pairs.length || outs.length === 0)
    throw new GuardRefusal('no-price', `the hop quotes answer ${outs.length} amounts for ${pairs.length} hops`);
  return outs;
}

/** The oracle's value of a swap's output less its pools' fees, and how much they take, for the reference's basis. */
export function oracleAfterFees(oracleValue: bigint, hops: readonly HopFee[]): { oracleOut: bigint; fees: string } {
  const factor = routeFeeFactor(hops);
  return { oracleOut: (oracleValue * factor) / FEE_SCALE, fees: `less ${formatShare(FEE_SCALE - factor)} pool fees` };
}

/** What a swap's output is worth now at the oracle's rate, less the route's pool fees (a replacement's recheck). */
export async function oracleSwapValue(prices: PriceReference, trade: Trade, hops: readonly VerifiedHop[]): Promise<bigint> {
  const { amountOut } = await prices.convert(trade.tokenIn, trade.tokenOut, trade.amountIn);
  return (amountOut * routeFeeFactor(hops)) / FEE_SCALE;
}

/** The USD value (× 1e18) of one whole position token (18 decimals) at the pool's fair price. */
async function positionUsd(client: ChainClient, prices: PriceReference, farm: VerifiedFarm, chainTime?: bigint): Promise<{ usdE18: bigint; basis: string }> {
  const [[reserve0, reserve1], supply, price0, price1, decimals0, decimals1] = await Promise.all([
    client.readContract({ address: farm.pool, abi: pairAbi, functionName: 'getReserves' }),
    client.readContract({ address: farm.pool, abi: erc20Abi, functionName: 'totalSupply' }),
    prices.usdPrice(farm.token0, chainTime),
    prices.usdPrice(farm.token1, chainTime),
    prices.decimals(farm.token0),
    prices.decimals(farm.token1),
  ]);
  if (supply === 0n) return { usdE18: 0n, basis: `pool ${farm.pool} has no liquidity` };
  // Fair value: 2·√(v0·v1), the pool's worth at the reference prices whatever its reserves' ratio.
  const fair = 2n * isqrt(usd(reserve0, price0, decimals0) * usd(reserve1, price1, decimals1));
  // A gauge token stands for one LP token.
  return { usdE18: (fair * 10n ** 18n) / supply, basis: `pool ${farm.pool} at fair value (${price0.source}; ${price1.source})` };
}

export async function depositReference(
  client: ChainClient,
  prices: PriceReference,
  trade: Trade,
  farm: VerifiedFarm,
  legs: readonly { inputAmount: bigint; hops: readonly HopFee[] }[],
  chainTime?: bigint,
): Promise<Reference> {
  const [priceIn, decimalsIn, position] = await Promise.all([
    prices.usdPrice(trade.tokenIn, chainTime),
    prices.decimals(trade.tokenIn),
    positionUsd(client, prices, farm, chainTime),
  ]);
  if (position.usdE18 === 0n) return { amountOut: 0n, basis: position.basis };
  const valueIn = legs.reduce((sum, leg) => sum + (usd(leg.inputAmount, priceIn, decimalsIn) * routeFeeFactor(leg.hops)) / FEE_SCALE, 0n);
  return { amountOut: (valueIn * 10n ** 18n) / position.usdE18, basis: `${priceIn.source} into ${position.basis}, less leg pool fees` };
}

export async function withdrawReference(
  client: ChainClient,
  prices: PriceReference,
  trade: Trade,
  farm: VerifiedFarm,
  legs: readonly { hops: readonly HopFee[] }[],
  chainTime?: bigint,
): Promise<Reference> {
  const [priceOut, decimalsOut, position] = await Promise.all([
    prices.usdPrice(trade.tokenOut, chainTime),
    prices.decimals(trade.tokenOut),
    positionUsd(client, prices, farm, chainTime),
  ]);
  // Each underlying is about half the position's value; the costliest leg's fees are charged on all of it.
  const factor = legs.reduce((lowest, leg) => {
    const legFactor = routeFeeFactor(leg.hops);
    return legFactor < lowest ? legFactor : lowest;
  }, FEE_SCALE);
  const valueOut = (((trade.amountIn * position.usdE18) / 10n ** 18n) * factor) / FEE_SCALE;
  return { amountOut: (valueOut * 10n ** BigInt(decimalsOut)) / priceOut.usdE18, basis: `${position.basis} into ${priceOut.source}, less leg pool fees` };
}

function formatShare(scaled: bigint): string {
  return `${(Number(scaled) / Number(FEE_SCALE / 100n)).toFixed(2)}%`;
}
