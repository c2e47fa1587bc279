/**
 * What a mined trade on a V3 position did, from its receipt: the position manager's own events for the position
 * (Collect, IncreaseLiquidity, DecreaseLiquidity, the NFT's Transfer), held to the token transfers beside them. A
 * collect's or a removal's tokens reach the wallet and no one else; an add or a mint takes no more than asked and
 * no less than the minimums signed, a mint's NFT goes to the wallet. Anything else is an anomaly.
 */
import { type Address, type Log, erc20Abi, isAddressEqual, parseEventLogs, zeroAddress } from 'viem';
import { positionManagerAbi } from '../../../contracts/abi.ts';
import type { AddLiquidityTrade, MintTrade, PositionTrade, RemoveLiquidityTrade, TradeRecord } from '../../../model/trade.ts';

const transfers = (logs: readonly Log[], token: Address, match: (from: Address, to: Address) => boolean) =>
  parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: logs as Log[] })
    .filter((event) => isAddressEqual(event.address, token) && match(event.args.from, event.args.to))
    .reduce((sum, event) => sum + event.args.value, 0n);

import type { Outcome } from '../kind.ts';

export type ManagerEvent = ReturnType<typeof parseEventLogs<typeof positionManagerAbi>>[number];

/** The position manager's own events in a receipt (only the trade's manager's). */
export function managerEventsOf(trade: PositionTrade, receipt: { logs: readonly Log[] }): ManagerEvent[] {
  const { positionManager } = trade.position;
  return parseEventLogs({ abi: positionManagerAbi, logs: receipt.logs as Log[] }).filter((event) => isAddressEqual(event.address, positionManager));
}

/** A mint: the one NFT the manager minted to the wallet in this transaction is the new position, added to as an add is. */
export function mintOutcome(trade: MintTrade & Pick<TradeRecord, 'call'>, events: readonly ManagerEvent[], logs: readonly Log[]): Outcome {
  const minted = events.find(
    (event) => event.eventName === 'Transfer' && isAddressEqual(event.args.from, zeroAddress) && isAddressEqual(event.args.to, trade.wallet),
  );
  if (minted?.eventName !== 'Transfer') return { anomaly: `the receipt shows no position minted to the wallet by ${trade.position.positionManager}` };
  const outcome = addOutcome(trade, minted.args.tokenId, events, logs);
  return outcome.position ? { ...outcome, position: { ...outcome.position, positionId: minted.args.tokenId } } : outcome;
}

const ofPosition = (events: readonly ManagerEvent[], positionId: bigint) =>
  events.filter((event) => 'tokenId' in event.args && event.args.tokenId === positionId);

/** The Collect event of the position: to the wallet, and equal to the tokens' transfers to the wallet. */
export function collectOutcome(trade: PositionTrade, events: readonly ManagerEvent[], logs: readonly Log[]): Outcome {
  const { positionManager, positionId } = trade.position;
  const collected = ofPosition(events, positionId).find((event) => event.eventName === 'Collect');
  if (collected?.eventName !== 'Collect') return { anomaly: `the receipt shows no Collect of position ${positionId} by ${positionManager}` };
  const { recipient, amount0, amount1 } = collected.args;
  if (!isAddressEqual(recipient, trade.wallet)) return { anomaly: `position ${positionId} was collected to ${recipient}, not to the wallet` };
  const [got0, got1] = [
    transfers(logs, trade.tokenIn, (_, to) => isAddressEqual(to, trade.wallet)),
    transfers(logs, trade.tokenOut, (_, to) => isAddressEqual(to, trade.wallet)),
  ];
  const position = { amount0, amount1 };
  if (got0 !== amount0 || got1 !== amount1) {
    return { amountOut: got1, position, anomaly: `the Collect event says ${amount0} and ${amount1}, the tokens' transfers to the wallet ${got0} and ${got1}` };
  }
  return { amountOut: amount1, position };
}

/** A removal: the liquidity signed taken out at no less than the minimums, everything owed collected, the NFT burned if asked. */
export function removeOutcome(trade: RemoveLiquidityTrade & Pick<TradeRecord, 'call'>, events: readonly ManagerEvent[], logs: readonly Log[]): Outcome {
  const { positionManager, positionId } = trade.position;
  const decreased = ofPosition(events, positionId).find((event) => event.eventName === 'DecreaseLiquidity');
  if (decreased?.eventName !== 'DecreaseLiquidity')
    return { anomaly: `the receipt shows no DecreaseLiquidity of position ${positionId} by ${positionManager}` };
  const collected = collectOutcome(trade, events, logs);
  if (collected.anomaly || !collected.position) return collected;
  const position = { ...collected.position, liquidity: decreased.args.liquidity, freed0: decreased.args.amount0, freed1: decreased.args.amount1 };
  const outcome = { amountOut: collected.amountOut, position };
  if (decreased.args.liquidity !== trade.liquidity)
    return { ...outcome, anomaly: `the removal took out ${decreased.args.liquidity} liquidity, not the ${trade.liquidity} signed` };
  const [min0, min1] = [trade.call?.minOut ?? 0n, trade.call?.minOut1 ?? 0n];
  if (decreased.args.amount0 < min0 || decreased.args.amount1 < min1) {
    return {
      ...outcome,
      anomaly: `the removal freed ${decreased.args.amount0} and ${decreased.args.amount1}, less than the minimums ${min0} and ${min1} the call enforces`,
    };
  }
  const burned = ofPosition(events, positionId).some((event) => event.eventName === 'Transfer' && isAddressEqual(event.args.to, zeroAddress));
  if (burned !== trade.burn)
    return { ...outcome, anomaly: `position ${positionId} was ${burned ? '' : 'not '}burned; the removal signed ${trade.burn ? '' : 'no '}burn` };
  return outcome;
}

/** An add or a mint: the IncreaseLiquidity event of `positionId`, equal to the wallet's transfers, within what was signed. */
export function addOutcome(
  trade: (AddLiquidityTrade | MintTrade) & Pick<TradeRecord, 'call'>,
  positionId: bigint,
  events: readonly ManagerEvent[],
  logs: readonly Log[],
): Outcome {
  const increased = ofPosition(events, positionId).find((event) => event.eventName === 'IncreaseLiquidity');
  if (increased?.eventName !== 'IncreaseLiquidity')
    return { anomaly: `the receipt shows no IncreaseLiquidity of position ${positionId} by ${trade.position.positionManager}` };
  const { liquidity, amount0, amount1 } = increased.args;
  const position = { amount0, amount1, liquidity };
  const [paid0, paid1] = [
    transfers(logs, trade.tokenIn, (from) => isAddressEqual(from, trade.wallet)),
    transfers(logs, trade.tokenOut, (from) => isAddressEqual(from, trade.wallet)),
  ];
  if (paid0 !== amount0 || paid1 !== amount1) {
    return {
      amountOut: liquidity,
      position,
      anomaly: `the IncreaseLiquidity event says ${amount0} and ${amount1}, the wallet's transfers ${paid0} and ${paid1}`,
    };
  }
  if (amount0 > trade.amountIn || amount1 > trade.amountIn1) {
    return {
      amountOut: liquidity,
      position,
      anomaly: `the ${trade.kind} took ${amount0} and ${amount1}, more than the ${trade.amountIn} and ${trade.amountIn1} signed`,
    };
  }
  const [min0, min1] = [trade.call?.minOut ?? 0n, trade.call?.minOut1 ?? 0n];
  if (amount0 < min0 || amount1 < min1) {
    return {
      amountOut: liquidity,
      position,
      anomaly: `the ${trade.kind} took ${amount0} and ${amount1}, less than the minimums ${min0} and ${min1} the call enforces`,
    };
  }
  return { amountOut: liquidity, position };
}
