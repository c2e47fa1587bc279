/** The terms of the steps on a Uniswap V3 position: each names its position and its token1 amount. */
import type { AddLiquidityTrade, CollectTrade, MintTrade, MovePositionTrade, PositionTrade, RemoveLiquidityTrade } from '../trade.ts';
import { type CommonTerms, type KindTerms, type TradeTerms, decimal, lower } from './terms.ts';

const positionTerms = (trade: PositionTrade): KindTerms => ({
  positionManager: trade.position.positionManager,
  positionId: trade.position.positionId,
  amountIn1: trade.amountIn1,
});

/** The position and token1 amount every step stores; a row without them is no trade this code made. */
function positionOf(common: CommonTerms, terms: KindTerms, missing: (what: string) => never) {
  if (terms.positionManager === undefined || terms.positionId === undefined || terms.amountIn1 === undefined) return missing('its position');
  return { ...common, position: { positionManager: terms.positionManager, positionId: terms.positionId }, amountIn1: terms.amountIn1 };
}

/** In the tag: no floor, then the position and token1 amount. */
const positionTagged = (trade: PositionTrade) => [null, lower(trade.position.positionManager), decimal(trade.position.positionId), decimal(trade.amountIn1)];

/** An add or a mint spends both tokens. */
const spendsBoth = (trade: AddLiquidityTrade | MintTrade) => [
  { token: trade.tokenIn, amount: trade.amountIn },
  { token: trade.tokenOut, amount: trade.amountIn1 },
];

export const collectTerms: TradeTerms<CollectTrade> = {
  kind: 'collect',
  terms: positionTerms,
  fromTerms: (common, terms, missing) => ({ ...positionOf(common, terms, missing), kind: 'collect' }),
  spends: () => [],
  tagged: positionTagged,
};

export const addLiquidityTerms: TradeTerms<AddLiquidityTrade> = {
  kind: 'add-liquidity',
  terms: positionTerms,
  fromTerms: (common, terms, missing) => ({ ...positionOf(common, terms, missing), kind: 'add-liquidity' }),
  spends: spendsBoth,
  tagged: positionTagged,
};

/** A removal's liquidity and whether it burns the emptied NFT. */
export const removeLiquidityTerms: TradeTerms<RemoveLiquidityTrade> = {
  kind: 'remove-liquidity',
  terms: (trade) => ({ ...positionTerms(trade), liquidity: trade.liquidity, burn: trade.burn }),
  fromTerms: (common, terms, missing) => {
    if (terms.liquidity === undefined || terms.burn === undefined) return missing('its liquidity');
    return { ...positionOf(common, terms, missing), kind: 'remove-liquidity', liquidity: terms.liquidity, burn: terms.burn };
  },
  spends: () => [],
  tagged: (trade) => [...positionTagged(trade), decimal(trade.liquidity), trade.burn],
};

/** A mint's pool fee and range. */
export const mintTerms: TradeTerms<MintTrade> = {
  kind: 'mint',
  terms: (trade) => ({ ...positionTerms(trade), fee: trade.fee, tickLower: trade.range.tickLower, tickUpper: trade.range.tickUpper }),
  fromTerms: (common, terms, missing) => {
    if (terms.fee === undefined || terms.tickLower === undefined || terms.tickUpper === undefined) return missing('its pool and range');
    return { ...positionOf(common, terms, missing), kind: 'mint', fee: terms.fee, range: { tickLower: terms.tickLower, tickUpper: terms.tickUpper } };
  },
  spends: spendsBoth,
  tagged: (trade) => [...positionTagged(trade), trade.fee, trade.range.tickLower, trade.range.tickUpper],
};

/**
 * A move's liquidity and burn (a removal's), what it sells (`amountIn` of token0 or `amountIn1` of token1), and, for a
 * re-range, the new range's fee and ticks (a mint's columns; none: an exit). It spends nothing of the wallet's: what it
 * sells comes out of the position in the same transaction.
 */
export const movePositionTerms: TradeTerms<MovePositionTrade> = {
  kind: 'move-position',
  terms: (trade) => ({
    ...positionTerms(trade),
    liquidity: trade.liquidity,
    burn: trade.burn,
    ...(trade.mint && { fee: trade.mint.fee, tickLower: trade.mint.range.tickLower, tickUpper: trade.mint.range.tickUpper }),
  }),
  fromTerms: (common, terms, missing) => {
    if (terms.liquidity === undefined || terms.burn === undefined) return missing('its liquidity');
    const minted = terms.fee !== undefined && terms.tickLower !== undefined && terms.tickUpper !== undefined;
    if (!minted && (terms.fee !== undefined || terms.tickLower !== undefined || terms.tickUpper !== undefined)) return missing('its whole new range');
    return {
      ...positionOf(common, terms, missing),
      kind: 'move-position',
      liquidity: terms.liquidity,
      burn: terms.burn,
      ...(minted && { mint: { fee: terms.fee as number, range: { tickLower: terms.tickLower as number, tickUpper: terms.tickUpper as number } } }),
    };
  },
  spends: () => [],
  tagged: (trade) => [
    ...positionTagged(trade),
    decimal(trade.liquidity),
    trade.burn,
    trade.mint?.fee ?? null,
    trade.mint?.range.tickLower ?? null,
    trade.mint?.range.tickUpper ?? null,
  ],
};
