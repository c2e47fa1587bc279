/**
 * What a mined trade on a V3 position did, from its receipt: the position manager's own event for the position
 * (Collect, or IncreaseLiquidity), held to the token transfers beside it. A collect's tokens reach the wallet and
 * no one else; an add takes no more than asked and no less than the minimums signed. Anything else is an anomaly.
 */
import { type Address, type Log, erc20Abi, isAddressEqual, parseEventLogs } from 'viem';
import { positionManagerAbi } from '../contracts/abi.ts';
import type { PositionTrade, Settlement, TradeRecord } from '../model/trade.ts';

type Moved = NonNullable<Settlement['position']>;

const transfers = (logs: readonly Log[], token: Address, match: (from: Address, to: Address) => boolean) =>
  parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: logs as Log[] })
    .filter((event) => isAddressEqual(event.address, token) && match(event.args.from, event.args.to))
    .reduce((sum, event) => sum + event.args.value, 0n);

export function readPositionOutcome(
  trade: PositionTrade & Pick<TradeRecord, 'call'>,
  receipt: { logs: readonly Log[] },
): { amountOut?: bigint; position?: Moved; anomaly?: string } {
  const { positionManager, positionId } = trade.position;
  const ours = parseEventLogs({ abi: positionManagerAbi, logs: receipt.logs as Log[] }).filter(
    (event) => isAddressEqual(event.address, positionManager) && 'tokenId' in event.args && event.args.tokenId === positionId,
  );
  const wallet = trade.wallet;
  if (trade.kind === 'collect') {
    const collected = ours.find((event) => event.eventName === 'Collect');
    if (collected?.eventName !== 'Collect') return { anomaly: `the receipt shows no Collect of position ${positionId} by ${positionManager}` };
    const { recipient, amount0, amount1 } = collected.args;
    if (!isAddressEqual(recipient, wallet)) return { anomaly: `position ${positionId} was collected to ${recipient}, not to the wallet` };
    const [got0, got1] = [
      transfers(receipt.logs, trade.tokenIn, (_, to) => isAddressEqual(to, wallet)),
      transfers(receipt.logs, trade.tokenOut, (_, to) => isAddressEqual(to, wallet)),
    ];
    const position = { amount0, amount1 };
    if (got0 !== amount0 || got1 !== amount1) {
      return {
        amountOut: got1,
        position,
        anomaly: `the Collect event says ${amount0} and ${amount1}, the tokens' transfers to the wallet ${got0} and ${got1}`,
      };
    }
    return { amountOut: amount1, position };
  }
  const increased = ours.find((event) => event.eventName === 'IncreaseLiquidity');
  if (increased?.eventName !== 'IncreaseLiquidity')
    return { anomaly: `the receipt shows no IncreaseLiquidity of position ${positionId} by ${positionManager}` };
  const { liquidity, amount0, amount1 } = increased.args;
  const position = { amount0, amount1, liquidity };
  const [paid0, paid1] = [
    transfers(receipt.logs, trade.tokenIn, (from) => isAddressEqual(from, wallet)),
    transfers(receipt.logs, trade.tokenOut, (from) => isAddressEqual(from, wallet)),
  ];
  if (paid0 !== amount0 || paid1 !== amount1) {
    return {
      amountOut: liquidity,
      position,
      anomaly: `the IncreaseLiquidity event says ${amount0} and ${amount1}, the wallet's transfers ${paid0} and ${paid1}`,
    };
  }
  if (amount0 > trade.amountIn || amount1 > trade.amountIn1) {
    return { amountOut: liquidity, position, anomaly: `the add took ${amount0} and ${amount1}, more than the ${trade.amountIn} and ${trade.amountIn1} signed` };
  }
  const [min0, min1] = [trade.call?.minOut ?? 0n, trade.call?.minOut1 ?? 0n];
  if (amount0 < min0 || amount1 < min1) {
    return { amountOut: liquidity, position, anomaly: `the add took ${amount0} and ${amount1}, less than the minimums ${min0} and ${min1} the call enforces` };
  }
  return { amountOut: liquidity, position };
}
