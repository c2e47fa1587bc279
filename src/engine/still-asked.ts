/**
 * A trade read back from the ledger before it was signed is decided again before it goes on: what its row asks was
 * decided when it was claimed, and the strategy's conditions may have changed since (a stop-loss no longer triggered,
 * an order expired or already filled, its slot past, a rebalance no longer needed at that amount). Only the strategy
 * file and the market read now say whether it is still asked for; a replay of an old row never decides by itself.
 */
import type { Decision, Strategy } from '../strategy/types.ts';
import type { TradeRecord } from '../model/trade.ts';
import { latestSlot, slotName } from '../strategy/slots.ts';
import { parseSliceKey, parseTradeSlot, scheduledSlotTime } from '../model/trade-slot.ts';

/** Why the trade is no longer asked for (undefined: it still is). */
export type StillAsked = (trade: TradeRecord) => Promise<string | undefined>;

/** The strategy's decision now, on the market read now. */
export type DecideNow = (strategy: Strategy) => Promise<Decision>;

/** Amounts are decided on prices, which move between a claim and its resumption: this much less is still the same trade. */
const defaultAmountToleranceBps = 100;

export function stillAskedBy(strategies: readonly Strategy[], decideNow: DecideNow, now: () => number = Date.now): StillAsked {
  const byId = new Map(strategies.map((strategy) => [strategy.id, strategy]));
  return async (trade) => {
    const strategy = byId.get(trade.strategyId);
    if (!strategy) return `no strategy '${trade.strategyId}' is in the current strategy file`;
    const { runSlot: slot, key = '' } = parseTradeSlot(trade.slot);
    // A scheduled slot is named by its time; one of `once` is not, and has only the resume window.
    const slotTime = scheduledSlotTime(slot);
    if (slotTime !== undefined) {
      const current = latestSlot(strategy, now());
      if (current === undefined) return `its strategy's schedule has no slot now (it ended, or has not begun)`;
      if (current !== slotTime) return `its slot ${slot} has passed: the current one is ${slotName(current)}`;
    }
    const decision = await decideNow(strategy);
    // A slice of an order worked over time is asked for while its order is (it is no larger than what is left).
    const orderKey = parseSliceKey(key)?.orderKey ?? key;
    const planned = decision.trades.find((candidate) => candidate.key === orderKey);
    // A step that spends the previous step's output (a compound's deposit of what its claim paid) was decided with that
    // step, which is done: the market no longer shows why it was asked (the reward is in the wallet now).
    if (planned?.amountIn === 'previous-output' || (!planned && spendsPreviousOutput(strategy, key))) return undefined;
    if (!planned) return `strategy ${strategy.id} decides otherwise now: ${decision.note}`;
    const tolerance = BigInt(strategy.maxPriceDeviationBps ?? defaultAmountToleranceBps);
    if (planned.amountIn * (10_000n + tolerance) < trade.amountIn * 10_000n) {
      return `strategy ${strategy.id} now asks for ${planned.amountIn} of ${trade.tokenIn}, less than the ${trade.amountIn} asked when it was claimed (beyond ${tolerance} bps)`;
    }
    return undefined;
  };
}

/** Whether the strategy's step of this key spends the previous step's output (its amount is not decided on its own). */
function spendsPreviousOutput(strategy: Strategy, key: string): boolean {
  return strategy.kind === 'compound' && key === 'deposit';
}
