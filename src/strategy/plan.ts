/**
 * What a strategy will do, in words a person checks before trusting it with money: amounts in human units
 * with symbols, its schedule, its protections, and its next run times (`routekeeper check`).
 */
import type { Address } from 'viem';
import { formatDuration } from '../config/strategy-file.ts';
import { nextSlot, plannedStart } from './slots.ts';
import { displayNumber, type TokenInfo } from '../units.ts';
import type { Schedule, Strategy } from './types.ts';

const amount = (raw: bigint, token: TokenInfo) => `${displayNumber(raw, token.decimals)} ${token.symbol}`;
const percent = (bps: number) => `${bps / 100}%`;

function scheduleInWords(schedule: Schedule): string {
  const parts = [schedule.everyMs !== undefined ? `every ${formatDuration(schedule.everyMs)}` : `on cron "${schedule.cron}" (UTC)`];
  if (schedule.jitterMs > 0) parts.push(`each run delayed by up to ${formatDuration(schedule.jitterMs)}`);
  if (schedule.startMs !== undefined) parts.push(`from ${new Date(schedule.startMs).toISOString()}`);
  if (schedule.endMs !== undefined) parts.push(`until ${new Date(schedule.endMs).toISOString()}`);
  return parts.join(', ');
}

/** The strategy's intent, e.g. "buy CELO with 10 cUSD every 30s, only at 1.5 CELO per cUSD or more". */
export function strategyInWords(strategy: Strategy): string {
  const when = scheduleInWords(strategy.schedule);
  const tolerance = `slippage ${percent(strategy.slippageBps)}${strategy.maxPriceDeviationBps === undefined ? '' : `, price deviation up to ${percent(strategy.maxPriceDeviationBps)}`}`;
  switch (strategy.kind) {
    case 'dca': {
      const floor = strategy.minPrice === undefined ? '' : `, only at ${strategy.minPrice} ${strategy.buy.symbol} per ${strategy.sell.symbol} or more`;
      const limits = [
        strategy.budget?.perDay === undefined ? undefined : `${amount(strategy.budget.perDay, strategy.sell)} a day`,
        strategy.budget?.total === undefined ? undefined : `${amount(strategy.budget.total, strategy.sell)} in all`,
      ].filter((part) => part !== undefined);
      return `buy ${strategy.buy.symbol} with ${amount(strategy.amount, strategy.sell)} ${when}${floor}${limits.length ? `; at most ${limits.join(' and ')}` : ''}; ${tolerance}`;
    }
    case 'rebalance': {
      const total = strategy.targets.reduce((sum, target) => sum + target.weight, 0);
      const weights = strategy.targets.map((target) => `${target.token.symbol} ${Number(((target.weight / total) * 100).toFixed(2))}%`).join(', ');
      return `keep ${weights} (valued in ${strategy.quote.symbol}) ${when}: trade when a weight is ${percent(strategy.driftBps)} off its target, in trades of at least ${amount(strategy.minTrade, strategy.quote)}; ${tolerance}`;
    }
    case 'limit': {
      const per = `per ${strategy.sell.symbol}`;
      const triggers = [
        strategy.takeProfit === undefined ? undefined : `it fetches ${strategy.takeProfit} ${strategy.buy.symbol} ${per} or more (take-profit)`,
        strategy.stopLoss === undefined ? undefined : `${strategy.stopLoss} ${strategy.buy.symbol} ${per} or less (stop-loss)`,
      ].filter((part) => part !== undefined);
      const expiry = strategy.expiresMs === undefined ? '' : `, until ${new Date(strategy.expiresMs).toISOString()}`;
      return `sell ${amount(strategy.amount, strategy.sell)} for ${strategy.buy.symbol} when ${triggers.join(', or ')}, ${strategy.repeat ? 'every time' : 'once'}${expiry}; looks ${when}; ${tolerance}`;
    }
    case 'uniswap-v3-position': {
      const { token0, token1, fee } = strategy.pool;
      const compound = strategy.compound
        ? `collect its fees, sell the surplus to its range's ratio and add them back when worth more than ${strategy.compound.minFeesToGas} × the gas (valued in ${strategy.valueToken.symbol})`
        : 'watch it';
      const which = strategy.positionId === undefined ? 'a Uniswap V3 position it opens' : `Uniswap V3 position ${strategy.positionId}`;
      const range = strategy.keepInRange
        ? `; re-range it around the reference once out of range for ${formatDuration(strategy.keepInRange.outsideMs)} (${strategy.keepInRange.oldPosition} the old NFT)`
        : '';
      const exit = strategy.exit
        ? `; leave it${strategy.exit.atMs === undefined ? '' : ` at ${new Date(strategy.exit.atMs).toISOString()}`}${
            strategy.exit.belowSqrtPriceX96 !== undefined || strategy.exit.aboveSqrtPriceX96 !== undefined ? ' or at its price levels' : ''
          }${strategy.exit.to ? ` for ${strategy.exit.to.symbol}` : ''}`
        : '';
      return `keep ${which} (${token0.symbol}/${token1.symbol} ${fee / 10_000}%): ${compound}${range}${exit}, ${when}; ${tolerance}`;
    }
    case 'compound': {
      const exit = strategy.exit
        ? `; leave the position for ${strategy.exit.to.symbol}${strategy.exit.atMs === undefined ? ' (no time set)' : ` at ${new Date(strategy.exit.atMs).toISOString()}`}`
        : '';
      return `claim the ${strategy.gauge.rewardToken.symbol} rewards of gauge ${strategy.gauge.address} when worth ${amount(strategy.minRewardValue, strategy.valueToken)} more than the gas, and deposit them back, ${when}${exit}; ${tolerance}`;
    }
  }
}

/** The next `count` run times after `now` (each slot plus its spread offset), and whether a fresh start runs the current slot at once. */
export function nextRuns(strategy: Strategy, now: number, count = 3): { firstRun: Schedule['firstRun']; times: number[] } {
  const times: number[] = [];
  let after = now;
  while (times.length < count) {
    const next = nextSlot(strategy, after);
    if (next === undefined) break;
    times.push(plannedStart(strategy, next));
    after = next;
  }
  return { firstRun: strategy.schedule.firstRun, times };
}

/** The tokens a strategy trades or values its trades in. */
export function tokensTraded(strategy: Strategy): TokenInfo[] {
  switch (strategy.kind) {
    case 'rebalance':
      return [...strategy.targets.map((t) => t.token), strategy.quote];
    case 'compound':
      return [strategy.gauge.rewardToken, strategy.valueToken];
    case 'uniswap-v3-position': {
      const { token0, token1 } = strategy.pool;
      return [
        token0,
        token1,
        ...(strategy.valueToken.address === token0.address || strategy.valueToken.address === token1.address ? [] : [strategy.valueToken]),
      ];
    }
    default:
      return [strategy.sell, strategy.buy];
  }
}

/** The tokens a strategy holds or values: those it trades, and a compound's position (its gauge) and exit token. */
export const tokensHeld = (strategy: Strategy): Address[] => [
  ...tokensTraded(strategy).map((token) => token.address),
  ...(strategy.kind === 'compound' ? [strategy.gauge.address, ...(strategy.exit ? [strategy.exit.to.address] : [])] : []),
];
