/**
 * What the four steps on a Uniswap V3 position share (collect, add-liquidity, remove-liquidity, mint): nothing is asked
 * of the routing service, every call goes to the chain data's position manager with the wallet as its only recipient,
 * and the tokens a call moves are the position's two.
 */
import { type Address, maxUint128 } from 'viem';
import type { PositionTrade, Settlement } from '../../../model/trade.ts';
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

/** "12.5 CELO and 6.1 cUSD": what a position trade moved of each token, or the pair when that is not known. */
export const pairAmounts = (trade: Asked, names: TokenNames, moved: { amount0: bigint; amount1: bigint } | undefined) =>
  moved ? `${names.amount(moved.amount0, trade.tokenIn)} and ${names.amount(moved.amount1, trade.tokenOut)}` : pair(trade, names);

/** A collect's or a removal's two tokens both grew by at least what was collected. */
export function collectedBalanceProblems(
  record: PositionTrade,
  [change0, change1]: readonly [bigint, bigint],
  mined: { position?: Settlement['position'] },
): string[] {
  const [amount0, amount1] = [mined.position?.amount0 ?? 0n, mined.position?.amount1 ?? 0n];
  return [
    ...(change0 < amount0 ? [`the balance of ${record.tokenIn} grew by ${change0}; ${amount0} was collected`] : []),
    ...(change1 < amount1 ? [`the balance of ${record.tokenOut} grew by ${change1}; ${amount1} was collected`] : []),
  ];
}

/** An add's or a mint's two tokens both fell by no more than it took (which its outcome held to what was signed). */
export function tookBalanceProblems(
  record: PositionTrade,
  [change0, change1]: readonly [bigint, bigint],
  mined: { position?: Settlement['position'] },
): string[] {
  const [amount0, amount1] = [mined.position?.amount0 ?? 0n, mined.position?.amount1 ?? 0n];
  return [
    ...(-change0 > amount0 ? [`${-change0} of ${record.tokenIn} left the wallet; the ${record.kind} took ${amount0}`] : []),
    ...(-change1 > amount1 ? [`${-change1} of ${record.tokenOut} left the wallet; the ${record.kind} took ${amount1}`] : []),
  ];
}

/** A collect or a removal brings both tokens; an add or a mint may return some of its output token only. */
export const receivesBoth = (record: PositionTrade) => [record.tokenIn, record.tokenOut];
export const receivesToken1 = (record: PositionTrade) => [record.tokenOut];
