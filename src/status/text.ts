/** `routekeeper status` for people: one screen per strategy, then the wallets, from the same report as --json. */
import { formatDuration } from '../config/strategy-file.ts';
import type { AmountJson, PriceJson } from './amounts.ts';
import type { StatusReport, StrategyStatus, WalletStatus } from './report.ts';

const text = (amount: AmountJson | null | undefined) => amount?.text ?? 'not known (no recorded price)';
const price = (value: PriceJson | null | undefined) => value?.text ?? 'not known';
const signed = (amount: AmountJson | null | undefined) => (amount ? (amount.raw.startsWith('-') ? amount.text : `+${amount.text}`) : 'not known');
const pct = (value: string | null | undefined) => (value === null || value === undefined ? '' : ` (${value.startsWith('-') ? '' : '+'}${value}%)`);

function kindLines(strategy: StrategyStatus): string[] {
  const { dca, rebalance, limit, compound, position } = strategy;
  if (dca) {
    return [
      `invested ${dca.invested.text}, received ${dca.received.text}, average price ${price(dca.averagePrice)}`,
      `worth ${text(dca.value)} at ${price(dca.currentPrice)}: ${signed(dca.pnl)}${pct(dca.pnlPercent)}`,
      dca.lumpSum
        ? `a lump sum at the first trade's price (${price(dca.lumpSum.price)}) would hold ${dca.lumpSum.received.text}, worth ${text(dca.lumpSum.value)}: the DCA is ${signed(dca.vsLumpSum)} against it`
        : 'no trade yet to compare with a lump sum',
    ];
  }
  if (rebalance) {
    return [
      rebalance.start
        ? `started with ${rebalance.start.map((a) => a.text).join(', ')}; now ${rebalance.holdings?.map((a) => a.text).join(', ')}`
        : 'starting balances not recorded',
      `worth ${text(rebalance.value)}; holding the starting balances would be worth ${text(rebalance.hold)}: ${signed(rebalance.vsHold)}${pct(rebalance.vsHoldPercent)}`,
      `${rebalance.trades} trades, turnover ${rebalance.turnover.text}`,
    ];
  }
  if (limit) {
    const triggers = [limit.takeProfit && `take-profit at ${limit.takeProfit}`, limit.stopLoss && `stop-loss at ${limit.stopLoss}`].filter(Boolean).join(', ');
    return [
      `${triggers}; price now ${price(limit.currentPrice)}`,
      ...(limit.fills.length === 0
        ? ['not filled yet']
        : limit.fills.map(
            (fill) =>
              `${fill.trigger} filled ${fill.at === 0 ? '' : new Date(fill.at).toISOString()}: sold ${fill.sold.text} for ${fill.received.text} at ${price(fill.price)}, trigger ${fill.triggerPrice}${pct(fill.vsTrigger)}; reference then ${price(fill.referencePrice)}`,
          )),
    ];
  }
  if (compound) {
    return [
      `${compound.compounds} compounds: claimed ${compound.claimed.text} worth ${text(compound.claimedValue)} when claimed, added ${compound.lpAdded.text} to the position`,
      `realised yield after gas ${signed(compound.realisedYield)}${compound.withdrawn ? `; withdrew ${compound.withdrawn.position.text} for ${compound.withdrawn.received.text}` : ''}`,
    ];
  }
  if (position) {
    return [
      `position ${position.positionId ?? '(none opened yet)'}: fees collected ${position.collected.token0.text} and ${position.collected.token1.text}, worth ${text(position.collectedValue)} when collected`,
      `${position.compounds} compounds added ${position.added.token0.text} and ${position.added.token1.text} back; fees after gas ${signed(position.realisedYield)}`,
      `in range ${position.timeInRange ? `${position.timeInRange.percent}% of ${formatDuration(position.timeInRange.observedSeconds * 1000)} observed` : 'not known yet'}; ${
        position.againstHolding
          ? `worth ${position.againstHolding.position.text} against ${position.againstHolding.holding.text} holding (${signed(position.againstHolding.difference)})`
          : 'its value against holding not known'
      }`,
      ...(position.earned
        ? [
            `since entry ${position.earned.days} days ago: worth ${position.earned.now.text} against ${position.earned.entry.text} then, ${signed(position.earned.profit)} after gas; fees ${position.earned.fees.text}${position.earned.apr === null ? '' : ` (${position.earned.apr}% a year)`}, divergence against holding ${signed(position.earned.divergence)}`,
          ]
        : []),
      ...(position.removed.count > 0 || position.reRanges > 0
        ? [`${position.removed.count} removals paid ${position.removed.token0.text} and ${position.removed.token1.text}; ${position.reRanges} re-ranges`]
        : []),
    ];
  }
  return [];
}

function strategyScreen(strategy: StrategyStatus): string[] {
  const state = strategy.paused
    ? `PAUSED since ${strategy.paused.since}: ${strategy.paused.reason}`
    : strategy.inStrategyFile
      ? 'active'
      : 'no longer in the strategy file';
  const last = strategy.lastRun
    ? `${strategy.lastRun.startedAt} ${strategy.lastRun.outcome}${strategy.lastRun.note ? `: ${strategy.lastRun.note}` : ''}`
    : 'none yet';
  const { trades } = strategy;
  const fees = strategy.partnerFees.length > 0 ? strategy.partnerFees.map((fee) => fee.text).join(', ') : 'none';
  const lines = [
    `${strategy.id} (${strategy.kind}, wallet ${strategy.wallet.name}): ${state}`,
    `  ${strategy.plan}`,
    `  last run ${last}`,
    `  next run ${strategy.nextRun ?? 'none scheduled'}`,
    ...kindLines(strategy).map((line) => `  ${line}`),
    `  trades: ${trades.confirmed} filled, ${trades.refused} refused, ${trades.failed} failed${trades.unknown ? `, ${trades.unknown} unknown` : ''}${trades.anomaly ? `, ${trades.anomaly} anomalies` : ''}${trades.dryRun ? `, ${trades.dryRun} dry runs` : ''}${trades.open ? `, ${trades.open} open` : ''}`,
    `  gas ${strategy.gas.native.text} (${text(strategy.gas.value)}); routing partner fees ${fees}${strategy.partnerFeesUnknown ? ` (${strategy.partnerFeesUnknown} trades not known)` : ''}`,
  ];
  for (const refusal of strategy.refusals) lines.push(`  refused ${refusal.count}× (${refusal.reason}), last: ${refusal.last}`);
  for (const failure of strategy.failures) lines.push(`  failed ${failure.count}× (${failure.reason}), last: ${failure.last}`);
  return lines;
}

const dollars = (usd: string) => `$${Number(usd).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

function walletLine(wallet: WalletStatus): string[] {
  const holdings = wallet.holdings.map((holding) => `${holding.amount.text}${holding.usd === null ? '' : ` (${dollars(holding.usd)})`}`).join(', ');
  return [
    `wallet ${wallet.name} ${wallet.address}${wallet.paused ? ` PAUSED: ${wallet.paused.reason}` : ''}`,
    `  strategies ${wallet.strategies.join(', ')}; ${wallet.trades} trades filled; gas ${wallet.gas.text}`,
    `  ${wallet.lease === null ? 'no daemon has held it' : wallet.lease.held ? `held by ${wallet.lease.holder} (lease epoch ${wallet.lease.epoch}, until ${wallet.lease.until})` : `free: last held by ${wallet.lease.holder} (epoch ${wallet.lease.epoch}), until ${wallet.lease.until}`}`,
    `  holds ${holdings || 'nothing recorded'}${wallet.valueUsd === null ? '' : `, about ${dollars(wallet.valueUsd)} in all${wallet.unpriced > 0 ? ` (and ${wallet.unpriced} without a price)` : ''}`}`,
  ];
}

export function statusText(report: StatusReport, ledgerFile: string): string {
  const header = `${ledgerFile}: ${report.strategies.length} strategies on chain ${report.chainId ?? '?'}; values at the reference prices of ${report.pricesAt ?? '(none recorded yet)'}`;
  const blocks = [[header], ...report.strategies.map(strategyScreen), ...report.wallets.map(walletLine)];
  return blocks.map((block) => block.join('\n')).join('\n\n');
}
