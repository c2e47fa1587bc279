/**
 * What the four steps on a Uniswap V3 position share (collect, add-liquidity, remove-liquidity, mint): nothing is asked
 * of the routing service, every call goes to the chain data's position manager with the wallet as its only recipient,
 * and the tokens a call moves are the position's two.
 */
import { type Address, maxUint128 } from 'viem';
import type { PositionTrade } from '../../../model/trade.ts';
import type { Asked } from '../kind.ts';
import type { TokenNames } from '../../token-names.ts';

/** A position step asks the service nothing: the manager and the pool are read from the chain. */
export const positionProposal = async () => ({ kind: 'position' }) as const;

/** A collect of everything the position owes, to the wallet. */
export const collectAll = (trade: PositionTrade) => ({
  tokenId: trade.position.positionId,
  recipient: trade.wallet,
  amount0Max: maxUint128,
  amount1Max: maxUint128,
});

/** A position's call moves its two tokens only. */
export const noOtherTokens = (): readonly Address[] => [];

/** "CELO and cUSD": the position's two tokens. */
export const pair = (trade: Asked, names: TokenNames) => `${names.symbol(trade.tokenIn)} and ${names.symbol(trade.tokenOut)}`;
