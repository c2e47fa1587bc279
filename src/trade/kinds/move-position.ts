/**
 * Move a V3 position in one transaction, all or nothing (a re-range, or an exit sold into one token), through the chain
 * data's position mover, our contract deployed from the wallet: the wallet sends the NFT to it with instructions, and
 * the mover removes, collects, swaps on a route the routing service proposed (checked as a swap is), mints the new
 * range to the wallet and gives back the old NFT and what is left, in the same transaction (position/move.ts).
 */
import { type Address, type Log, erc20Abi, isAddressEqual, parseEventLogs, zeroAddress } from 'viem';
import { V3RangeMover } from '../../contracts/solidity-code.ts';
import type { MovePositionTrade, TradeRecord } from '../../model/trade.ts';
import type { Outcome, TradeKindModule } from './kind.ts';
import { pair, pairAmounts, positionProposal, receivesBoth } from './position/common.ts';
import { checkMove, decodedMove, moveCallTokens, moveChecks, sellOf } from './position/move.ts';
import { managerEventsOf } from './position/outcome.ts';

/**
 * What the wallet got back: what was collected, less what was sold, plus what the swap paid, less what the mint took.
 * A re-range sells exactly the amount asked; an exit sells all it collected of the token (none comes back).
 */
function returnedOf(trade: MovePositionTrade, mined: Pick<Outcome, 'amountOut' | 'position'>): { amount0: bigint; amount1: bigint } {
  const moved = mined.position;
  const sell = sellOf(trade);
  const sold0 = sell !== undefined && isAddressEqual(sell.tokenIn, trade.tokenIn);
  const collected = { amount0: moved?.amount0 ?? 0n, amount1: moved?.amount1 ?? 0n };
  const sold = (collectedOfSold: bigint) => (trade.mint ? (sell?.amountIn ?? 0n) : collectedOfSold);
  const bought = mined.amountOut ?? 0n;
  return {
    amount0: collected.amount0 - (sold0 ? sold(collected.amount0) : 0n) + (sell && !sold0 ? bought : 0n) - (moved?.added0 ?? 0n),
    amount1: collected.amount1 - (sell && !sold0 ? sold(collected.amount1) : 0n) + (sold0 ? bought : 0n) - (moved?.added1 ?? 0n),
  };
}

const transferred = (logs: readonly Log[], token: Address, from: Address, to: Address) =>
  parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: logs as Log[] })
    .filter((event) => isAddressEqual(event.address, token) && isAddressEqual(event.args.from, from) && isAddressEqual(event.args.to, to))
    .reduce((sum, event) => sum + event.args.value, 0n);

/**
 * What the mined move did: the manager's DecreaseLiquidity and Collect of the old position (to the mover), the mover's
 * own account of it (`Moved`, `Swapped`), a re-range's new NFT minted to the wallet, the old one back or burned, and
 * the tokens the wallet got equal to what the mover says it returned. Anything else is an anomaly.
 */
function moveOutcome(trade: MovePositionTrade & Pick<TradeRecord, 'call'>, receipt: { logs: readonly Log[] }): Outcome {
  const { positionId, positionManager } = trade.position;
  const move = trade.call && decodedMove(trade.call.data);
  if (!move) return { anomaly: `the move's stored call is not a transfer of position ${positionId} to a position mover` };
  const events = managerEventsOf(trade, receipt);
  const ofOld = events.filter((event) => 'tokenId' in event.args && event.args.tokenId === positionId);
  const decreased = ofOld.find((event) => event.eventName === 'DecreaseLiquidity');
  const collected = ofOld.find((event) => event.eventName === 'Collect');
  if (collected?.eventName !== 'Collect') return { anomaly: `the receipt shows no Collect of position ${positionId} by ${positionManager}` };
  if (!isAddressEqual(collected.args.recipient, move.mover))
    return { anomaly: `position ${positionId} was collected to ${collected.args.recipient}, not to the mover ${move.mover}` };
  const freed = decreased?.eventName === 'DecreaseLiquidity' ? decreased.args : { liquidity: 0n, amount0: 0n, amount1: 0n };
  const mover = parseEventLogs({ abi: V3RangeMover.abi, logs: receipt.logs as Log[] }).filter((event) => isAddressEqual(event.address, move.mover));
  const moved = mover.find((event) => event.eventName === 'Moved');
  if (moved?.eventName !== 'Moved' || moved.args.tokenId !== positionId || !isAddressEqual(moved.args.owner, trade.wallet))
    return { anomaly: `the receipt shows no move of position ${positionId} for the wallet by the mover ${move.mover}` };
  const swapped = mover.find((event) => event.eventName === 'Swapped');
  const amountOut = swapped?.eventName === 'Swapped' ? swapped.args.amountOut : 0n;
  const position = {
    amount0: collected.args.amount0,
    amount1: collected.args.amount1,
    freed0: freed.amount0,
    freed1: freed.amount1,
    ...(trade.mint && { liquidity: moved.args.liquidity, positionId: moved.args.newTokenId, added0: moved.args.added0, added1: moved.args.added1 }),
  };
  const outcome = { amountOut, position };
  if (freed.liquidity !== trade.liquidity) return { ...outcome, anomaly: `the move took out ${freed.liquidity} liquidity, not the ${trade.liquidity} signed` };
  const [min0, min1] = [trade.call?.minOut ?? 0n, trade.call?.minOut1 ?? 0n];
  if (freed.amount0 < min0 || freed.amount1 < min1)
    return { ...outcome, anomaly: `the removal freed ${freed.amount0} and ${freed.amount1}, less than the minimums ${min0} and ${min1} the call enforces` };
  const nftMoves = events.filter((event) => event.eventName === 'Transfer');
  if (trade.mint) {
    const minted = nftMoves.find((event) => isAddressEqual(event.args.from, zeroAddress) && isAddressEqual(event.args.to, trade.wallet));
    if (minted?.eventName !== 'Transfer' || minted.args.tokenId !== moved.args.newTokenId)
      return { ...outcome, anomaly: `the receipt shows no new position ${moved.args.newTokenId} minted to the wallet` };
  }
  const oldTo = trade.burn ? zeroAddress : trade.wallet;
  if (!ofOld.some((event) => event.eventName === 'Transfer' && isAddressEqual(event.args.from, move.mover) && isAddressEqual(event.args.to, oldTo)))
    return { ...outcome, anomaly: `position ${positionId} was not ${trade.burn ? 'burned' : 'given back to the wallet'} by the mover` };
  const got = [transferred(receipt.logs, trade.tokenIn, move.mover, trade.wallet), transferred(receipt.logs, trade.tokenOut, move.mover, trade.wallet)];
  const returned = returnedOf(trade, outcome);
  if (got[0] !== moved.args.returned0 || got[1] !== moved.args.returned1 || returned.amount0 !== got[0] || returned.amount1 !== got[1]) {
    return {
      ...outcome,
      anomaly: `the mover says it returned ${moved.args.returned0} and ${moved.args.returned1}, the transfers to the wallet are ${got[0]} and ${got[1]}, and what it collected, swapped and minted leaves ${returned.amount0} and ${returned.amount1}`,
    };
  }
  return outcome;
}

export const movePosition: TradeKindModule<MovePositionTrade> = {
  kind: 'move-position',
  // The swap inside the move is quoted as any swap (the mover pays it); a move that sells nothing asks nothing.
  quote: async (trade, { routing, signal, avoid }) => {
    const sell = sellOf(trade);
    if (!sell) return positionProposal();
    return {
      kind: 'swap',
      route: await routing.getSwapRoute({ ...sell, chainId: trade.chainId, excludePools: avoid, signal, slippageBps: trade.slippageBps, from: trade.wallet }),
    };
  },
  check: checkMove,
  checks: moveChecks.map((check) => check.name),
  paid: () => 0n,
  outcome: moveOutcome,
  callTokens: moveCallTokens,
  // Both of the pair's tokens grew by at least what the mover returned.
  balanceProblems: (record, [change0, change1], mined) => {
    const returned = returnedOf(record, mined);
    return [
      ...(change0 < returned.amount0 ? [`the balance of ${record.tokenIn} grew by ${change0}; the move returned ${returned.amount0}`] : []),
      ...(change1 < returned.amount1 ? [`the balance of ${record.tokenOut} grew by ${change1}; the move returned ${returned.amount1}`] : []),
    ];
  },
  receives: receivesBoth,
  // What it collected beyond what its liquidity freed is fees; a re-range opened a new position.
  effect: (record) => {
    const moved = record.settlement?.position;
    if (!moved) return {};
    const freed = { amount0: moved.freed0 ?? 0n, amount1: moved.freed1 ?? 0n };
    return {
      feesCollected: { amount0: moved.amount0 - freed.amount0, amount1: moved.amount1 - freed.amount1 },
      removed: freed,
      ...(moved.positionId !== undefined && { opened: true }),
    };
  },
  asked: (trade, names) => `move a position of ${pair(trade, names)} in one transaction`,
  done: (trade, _amountOut, names, moved) => {
    if (!moved) return `moved a position of ${pair(trade, names)} in one transaction`;
    const collected = `collected ${pairAmounts(trade, names, moved)}`;
    const opened =
      moved.positionId === undefined
        ? 'paid to the wallet'
        : `opened position ${moved.positionId} with ${pairAmounts(trade, names, { amount0: moved.added0 ?? 0n, amount1: moved.added1 ?? 0n })}`;
    return `moved a position in one transaction: ${collected}, ${opened}`;
  },
};
