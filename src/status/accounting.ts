/**
 * What each strategy's money did, derived from the ledger's trades and the prices and balances the daemon
 * observed (never stored as results of their own): per kind the figures a user of that kind asks first, and
 * for every strategy gas, routing-partner fees, refusals and failures. Values are exact bigints in raw units;
 * amounts.ts writes them for people and scripts.
 */
import { formatUnits } from 'viem';
import type { PositionTrack } from './position-track.ts';
import type { BalanceMark } from '../ledger/ledger.ts';
import { minimumFromPrice } from '../guard/guards.ts';
import type { CompoundStrategy, DcaStrategy, LimitStrategy, RebalanceStrategy, Strategy } from '../strategy/types.ts';
import type { TradeRecord, TradeState } from '../model/trade.ts';
import type { TokenInfo } from '../units.ts';
import { type AmountJson, type PriceJson, type Token, amountJson, percent, priceJson } from './amounts.ts';
import { type Books, type Counted, type Tally, addGas, emptyTally, foldFailedRun, foldTrade, isSettled, valueTokenOf, withOpenGas } from './tally.ts';
import { parseTradeSlot } from '../model/trade-slot.ts';
import { kindOf } from '../trade/kinds/registry.ts';

export type { Books } from './tally.ts';

/** The times a value chart has points at: each trade, each price change, and the last observation. */
function chartTimes(tradeTimes: readonly number[], priceTimes: readonly number[], since: number, markedAt: number | undefined): number[] {
  const times = new Set([...tradeTimes, ...priceTimes.filter((t) => t >= since), ...(markedAt !== undefined && markedAt >= since ? [markedAt] : [])]);
  return [...times].sort((a, b) => a - b);
}

/** A point of a chart: a time (ms) and decimal strings by series name. */
export type Point = { t: number } & Record<string, string | number | null>;

export type Series = {
  /** What the holdings are worth over time, with what was put in (DCA) or what holding would be worth (rebalance). */
  value: Point[];
  /** The price paid by each trade and the reference price at the time, both in the value token per asset. */
  fills: (Point & { asset: string })[];
  /** Gas paid so far, in the native coin and in the value token. */
  gas: Point[];
  /** Rewards claimed so far, at their value when claimed (compound). */
  rewards: Point[];
};

export type CommonAccount = {
  valueToken: Token;
  trades: { confirmed: number; refused: number; failed: number; unknown: number; anomaly: number; dryRun: number; open: number };
  gas: { native: AmountJson; value: AmountJson | null };
  /** What routers paid routing partners out of this strategy's swaps, per token (read from the receipts). */
  partnerFees: AmountJson[];
  /** Confirmed swaps settled before fees were read from receipts: their fee is not known. */
  partnerFeesUnknown: number;
  refusals: Counted[];
  failures: Counted[];
  /** The latest order worked in slices over time (engine/worked-order.ts), none if the strategy never split one. */
  order: OrderJson | null;
};

/**
 * An order worked in slices: its run's slot and key, the slices confirmed, what they sold and bought, the average
 * price paid, and how far that is from the reference when each slice was made (negative: below it); what one route
 * would have paid for what they sold, at the service's quote for the whole order when it started, and what the
 * slices bought more than that (negative: less), in basis points of it.
 */
export type OrderJson = {
  slot: string;
  key: string;
  slices: number;
  sold: AmountJson;
  bought: AmountJson;
  averagePrice: PriceJson | null;
  againstReferenceBps: string | null;
  oneRouteAtStart: AmountJson | null;
  savedBps: string | null;
};

export type DcaAccount = {
  invested: AmountJson;
  received: AmountJson;
  averagePrice: PriceJson | null;
  currentPrice: PriceJson | null;
  value: AmountJson | null;
  pnl: AmountJson | null;
  pnlPercent: string | null;
  /** Everything invested at the first trade's price, instead of over time. */
  lumpSum: { received: AmountJson; value: AmountJson | null; price: PriceJson | null } | null;
  /** What the DCA is worth more (or less, negative) than the lump sum now. */
  vsLumpSum: AmountJson | null;
};

export type RebalanceAccount = {
  /** The strategy's holdings when it first traded, and now (those plus its own trades). */
  start: AmountJson[] | null;
  holdings: AmountJson[] | null;
  value: AmountJson | null;
  /** The starting holdings, never traded, at today's prices. */
  hold: AmountJson | null;
  vsHold: AmountJson | null;
  vsHoldPercent: string | null;
  /** The value token traded: what sells fetched plus what buys spent. */
  turnover: AmountJson;
  trades: number;
};

export type LimitFill = {
  at: number;
  trigger: 'take-profit' | 'stop-loss';
  triggerPrice: string;
  price: PriceJson | null;
  referencePrice: PriceJson | null;
  /** How far the fill price is above (+) or below (−) the trigger, in percent. */
  vsTrigger: string | null;
  sold: AmountJson;
  received: AmountJson;
  txHash?: string;
};

export type LimitAccount = {
  takeProfit: string | null;
  stopLoss: string | null;
  currentPrice: PriceJson | null;
  fills: LimitFill[];
  sold: AmountJson;
  received: AmountJson;
};

export type CompoundAccount = {
  compounds: number;
  claimed: AmountJson;
  /** The claims at their value when each was claimed; null when a claim had no recorded price. */
  claimedValue: AmountJson | null;
  /** Position tokens the re-deposits added. */
  lpAdded: AmountJson;
  withdrawn: { position: AmountJson; received: AmountJson } | null;
  /** Rewards' value at claim time less all the strategy's gas, in the value token. */
  realisedYield: AmountJson | null;
};

/** A V3 position's account: the fees collected (and their value when collected), what went back in, and what is left after gas. */
export type PositionAccount = {
  /** The position the strategy holds now (the latest a run observed; the file's before any run; none before it opens one). */
  positionId: string | null;
  collected: { token0: AmountJson; token1: AmountJson };
  collectedValue: AmountJson | null;
  compounds: number;
  added: { token0: AmountJson; token1: AmountJson; liquidity: string };
  /** The fees' value when collected less all the strategy's gas, in the value token. */
  realisedYield: AmountJson | null;
  /** What its removals' liquidity freed (an exit, a re-range; the fees they collected count as fees), and the positions re-ranges opened. */
  removed: { count: number; token0: AmountJson; token1: AmountJson };
  reRanges: number;
  /** The time the pool's price spent inside the range, of the time observed between runs (the pool's own counter). */
  timeInRange: { seconds: number; observedSeconds: number; percent: string } | null;
  /**
   * What the position holds now (its liquidity's tokens and the fees owed, at the pool's price) against what the
   * tokens it held at the first run would be worth, both at the latest prices, in the value token; null when it
   * holds nothing now or a price is missing.
   */
  againstHolding: { position: AmountJson; holding: AmountJson; difference: AmountJson } | null;
  /**
   * What the position earned since the strategy's first look at it, in the value token; null while it holds nothing or
   * a price is missing:
   *  - `entry`: what it held then, at that time's prices; `now`: what it holds now (liquidity and fees owed), at the
   *    latest; `profit`: now less entry less all the strategy's gas;
   *  - `fees`: the fees collected (at their value when collected) and those owed now; `divergence`: the rest of the
   *    difference to holding the entry amounts (the price's path through the range; fees collected and left beside the
   *    position count as fees, not as position);
   *  - `apr`: the fees over the entry value, a year's worth of the time since entry (none under an hour);
   *    `days`: that time.
   */
  earned: {
    entry: AmountJson;
    now: AmountJson;
    profit: AmountJson | null;
    fees: AmountJson;
    divergence: AmountJson;
    apr: string | null;
    days: string;
  } | null;
};

export type StrategyAccount =
  | { kind: 'dca'; common: CommonAccount; dca: DcaAccount; series: Series }
  | { kind: 'rebalance'; common: CommonAccount; rebalance: RebalanceAccount; series: Series }
  | { kind: 'limit'; common: CommonAccount; limit: LimitAccount; series: Series }
  | { kind: 'compound'; common: CommonAccount; compound: CompoundAccount; series: Series }
  | { kind: 'uniswap-v3-position'; common: CommonAccount; position: PositionAccount; series: Series };

const sum = (values: readonly bigint[]) => values.reduce((total, value) => total + value, 0n);
/** A chart value: the exact decimal of a raw amount. */
const decimal = (raw: bigint, token: Token) => formatUnits(raw, token.decimals);
const one = (token: Token) => 10n ** BigInt(token.decimals);
const filled = (trade: TradeRecord): trade is TradeRecord & { settlement: { amountOut: bigint } } =>
  trade.status === 'confirmed' && trade.settlement?.amountOut !== undefined;

const byCount = (counted: ReadonlyMap<string, Counted>) => [...counted.values()].map((entry) => ({ ...entry })).sort((a, b) => b.count - a.count);

/** Gas, fees, refusals and failures of any strategy, from its tally and its open trades. */
export function commonAccount(strategy: Strategy, tally: Tally, open: readonly TradeRecord[], books: Books): CommonAccount {
  const valueToken = valueTokenOf(strategy);
  const withGas = withOpenGas(tally, strategy, open, books);
  const settled = (state: TradeState) => tally.counts[state] ?? 0;
  const opened = (...states: TradeState[]) => open.filter((trade) => states.includes(trade.status)).length;
  return {
    valueToken: { address: valueToken.address, symbol: valueToken.symbol, decimals: valueToken.decimals },
    trades: {
      confirmed: settled('confirmed'),
      refused: settled('refused'),
      failed: settled('failed'),
      unknown: opened('unknown'),
      anomaly: settled('anomaly'),
      dryRun: settled('dry-run'),
      open: opened('claimed', 'checked', 'signed', 'broadcast'),
    },
    gas: { native: amountJson(withGas.gasWei, books.native), value: withGas.gasValue === undefined ? null : amountJson(withGas.gasValue, valueToken) },
    partnerFees: [...tally.partnerFees].map(([token, fee]) => amountJson(fee, books.token(token))),
    partnerFeesUnknown: tally.partnerFeesUnknown,
    refusals: byCount(tally.refusals),
    failures: byCount(tally.failures),
    order: orderJson(strategy, tally.lastOrder, books),
  };
}

function orderJson(strategy: Strategy, order: Tally['lastOrder'], books: Books): OrderJson | null {
  if (!order) return null;
  // The strategy's own tokens carry their symbols; the books know what the chain data names.
  const known: Token[] =
    strategy.kind === 'dca' || strategy.kind === 'limit'
      ? [strategy.sell, strategy.buy]
      : strategy.kind === 'rebalance'
        ? [strategy.quote, ...strategy.targets.map((target) => target.token)]
        : [];
  const tokenOf = (address: string) => known.find((token) => token.address.toLowerCase() === address) ?? books.token(address);
  const [sold, bought] = [tokenOf(order.tokenIn), tokenOf(order.tokenOut)];
  const { runSlot, key } = parseTradeSlot(order.order);
  const against = order.atReference === undefined || order.atReference === 0n ? null : ((order.bought - order.atReference) * 10_000n) / order.atReference;
  // One route's quote for the whole order, for the share of it the slices sold.
  const oneRoute = order.start && order.start.amountIn > 0n ? (order.start.oneRouteOut * order.sold) / order.start.amountIn : undefined;
  return {
    slot: runSlot,
    key: key ?? '',
    slices: order.slices,
    sold: amountJson(order.sold, sold),
    bought: amountJson(order.bought, bought),
    averagePrice: priceJson(order.bought, bought, order.sold, sold),
    againstReferenceBps: against === null ? null : against.toString(),
    oneRouteAtStart: oneRoute === undefined ? null : amountJson(oneRoute, bought),
    savedBps: oneRoute === undefined || oneRoute === 0n ? null : (((order.bought - oneRoute) * 10_000n) / oneRoute).toString(),
  };
}

export function dcaAccount(strategy: DcaStrategy, tally: Tally, books: Books): DcaAccount {
  const { sell, buy } = strategy;
  const { invested, received, firstFill: first } = tally;
  const value = books.prices.convert(received, buy, sell, 'latest');
  const oneBuy = books.prices.convert(one(buy), buy, sell, 'latest');
  const lumpReceived = first && (invested * first.amountOut) / first.amountIn;
  const lumpValue = lumpReceived === undefined ? undefined : books.prices.convert(lumpReceived, buy, sell, 'latest');
  return {
    invested: amountJson(invested, sell),
    received: amountJson(received, buy),
    averagePrice: priceJson(invested, sell, received, buy),
    currentPrice: oneBuy === undefined ? null : priceJson(oneBuy, sell, one(buy), buy),
    value: value === undefined ? null : amountJson(value, sell),
    pnl: value === undefined ? null : amountJson(value - invested, sell),
    pnlPercent: value === undefined ? null : percent(value - invested, invested),
    lumpSum:
      first && lumpReceived !== undefined
        ? {
            received: amountJson(lumpReceived, buy),
            value: lumpValue === undefined ? null : amountJson(lumpValue, sell),
            price: priceJson(first.amountIn, sell, first.amountOut, buy),
          }
        : null,
    vsLumpSum: value === undefined || lumpValue === undefined ? null : amountJson(value - lumpValue, sell),
  };
}

/** A rebalance's tokens: its targets and its quote token, once each. */
const rebalanceTokens = (strategy: RebalanceStrategy) => [
  ...new Map([...strategy.targets.map((target) => target.token), strategy.quote].map((token) => [token.address.toLowerCase(), token])).values(),
];

/**
 * The strategy's own portfolio when it first traded: the wallet's balances just before its first trade (other
 * strategies of the wallet do not count for or against it). Undefined without a balance of every token then.
 */
function startingHoldings(tokens: readonly TokenInfo[], since: number | undefined, marks: readonly BalanceMark[]): bigint[] | undefined {
  const starts = tokens.map(
    (token) => marks.filter((mark) => mark.token.toLowerCase() === token.address.toLowerCase() && (since === undefined || mark.at <= since)).at(-1)?.balance,
  );
  return starts.every((balance) => balance !== undefined) ? (starts as bigint[]) : undefined;
}

function worthIn(balances: readonly bigint[], tokens: readonly TokenInfo[], quote: TokenInfo, books: Books, t: number | 'latest'): bigint | undefined {
  const values = balances.map((balance, i) => books.prices.convert(balance, tokens[i] as TokenInfo, quote, t));
  return values.every((value) => value !== undefined) ? sum(values as bigint[]) : undefined;
}

export function rebalanceAccount(strategy: RebalanceStrategy, tally: Tally, open: readonly TradeRecord[], wallet: string, books: Books): RebalanceAccount {
  const { quote } = strategy;
  const tokens = rebalanceTokens(strategy);
  const since = tally.firstSwapAt ?? Math.min(tally.firstAt ?? Number.POSITIVE_INFINITY, ...open.map((trade) => trade.createdAt));
  const start = startingHoldings(tokens, Number.isFinite(since) ? since : undefined, books.balances(wallet));
  const now = start && tokens.map((token, i) => (start[i] as bigint) + (tally.deltas.get(token.address.toLowerCase()) ?? 0n));
  const value = now && worthIn(now, tokens, quote, books, 'latest');
  const hold = start && worthIn(start, tokens, quote, books, 'latest');
  return {
    start: start ? start.map((balance, i) => amountJson(balance, tokens[i] as TokenInfo)) : null,
    holdings: now ? now.map((balance, i) => amountJson(balance, tokens[i] as TokenInfo)) : null,
    value: value === undefined ? null : amountJson(value, quote),
    hold: hold === undefined ? null : amountJson(hold, quote),
    vsHold: value === undefined || hold === undefined ? null : amountJson(value - hold, quote),
    vsHoldPercent: value === undefined || hold === undefined ? null : percent(value - hold, hold),
    turnover: amountJson(tally.turnover, quote),
    trades: tally.swaps,
  };
}

export function limitAccount(strategy: LimitStrategy, tally: Tally, books: Books): LimitAccount {
  const { sell, buy } = strategy;
  const oneSell = books.prices.convert(one(sell), sell, buy, 'latest');
  const fills = tally.limitFills.toSorted((a, b) => a.createdAt - b.createdAt);
  return {
    takeProfit: strategy.takeProfit ?? null,
    stopLoss: strategy.stopLoss ?? null,
    currentPrice: oneSell === undefined ? null : priceJson(oneSell, buy, one(sell), sell),
    fills: fills.map((fill) => {
      const trigger = parseTradeSlot(fill.slot).key === 'stop-loss' ? 'stop-loss' : 'take-profit';
      const triggerPrice = (trigger === 'stop-loss' ? strategy.stopLoss : strategy.takeProfit) ?? '0';
      const atTrigger = minimumFromPrice(fill.amountIn, triggerPrice, sell.decimals, buy.decimals);
      const reference = books.prices.convert(fill.amountIn, sell, buy, fill.createdAt);
      return {
        at: fill.createdAt,
        trigger,
        triggerPrice,
        price: priceJson(fill.amountOut, buy, fill.amountIn, sell),
        referencePrice: reference === undefined ? null : priceJson(reference, buy, fill.amountIn, sell),
        vsTrigger: percent(fill.amountOut - atTrigger, atTrigger),
        sold: amountJson(fill.amountIn, sell),
        received: amountJson(fill.amountOut, buy),
        txHash: fill.txHash,
      };
    }),
    sold: amountJson(tally.invested, sell),
    received: amountJson(tally.received, buy),
  };
}

export function compoundAccount(strategy: CompoundStrategy, tally: Tally, books: Books, gasValue: bigint | undefined): CompoundAccount {
  const { valueToken } = strategy;
  const position = books.token(strategy.gauge.address);
  const exitTo = strategy.exit?.to;
  return {
    compounds: tally.deposits,
    claimed: amountJson(tally.claimed, strategy.gauge.rewardToken),
    claimedValue: tally.claimedValue === undefined ? null : amountJson(tally.claimedValue, valueToken),
    lpAdded: amountJson(tally.lpAdded, position),
    withdrawn:
      tally.withdrawals > 0 && exitTo
        ? { position: amountJson(tally.withdrawnPosition, position), received: amountJson(tally.withdrawnReceived, exitTo) }
        : null,
    realisedYield: tally.claimedValue === undefined || gasValue === undefined ? null : amountJson(tally.claimedValue - gasValue, valueToken),
  };
}

/** A strategy's figures from its tally (settled trades) and its open trades; the series stay empty. */
export function accountFromTally(strategy: Strategy, tally: Tally, open: readonly TradeRecord[], wallet: string, books: Books): StrategyAccount {
  const common = commonAccount(strategy, tally, open, books);
  const series: Series = { value: [], fills: [], gas: [], rewards: [] };
  switch (strategy.kind) {
    case 'dca':
      return { kind: 'dca', common, dca: dcaAccount(strategy, tally, books), series };
    case 'rebalance':
      return { kind: 'rebalance', common, rebalance: rebalanceAccount(strategy, tally, open, wallet, books), series };
    case 'limit':
      return { kind: 'limit', common, limit: limitAccount(strategy, tally, books), series };
    case 'compound': {
      const gasValue = common.gas.value === null ? undefined : BigInt(common.gas.value.raw);
      return { kind: 'compound', common, compound: compoundAccount(strategy, tally, books, gasValue), series };
    }
    case 'uniswap-v3-position': {
      const gasValue = common.gas.value === null ? undefined : BigInt(common.gas.value.raw);
      return { kind: 'uniswap-v3-position', common, position: positionAccount(strategy, tally, gasValue, books), series };
    }
  }
}

function positionAccount(strategy: Strategy & { kind: 'uniswap-v3-position' }, tally: Tally, gasValue: bigint | undefined, books: Books): PositionAccount {
  const { token0, token1 } = strategy.pool;
  const { collected0, collected1, collectedValue, compounds, added0, added1, liquidityAdded, removals, removed0, removed1, reRanges } = tally.position;
  const track = books.positionTrack?.(strategy.id);
  return {
    positionId: (track?.latest.positionId ?? strategy.positionId)?.toString() ?? null,
    collected: { token0: amountJson(collected0, token0), token1: amountJson(collected1, token1) },
    collectedValue: collectedValue === undefined ? null : amountJson(collectedValue, strategy.valueToken),
    compounds,
    added: { token0: amountJson(added0, token0), token1: amountJson(added1, token1), liquidity: liquidityAdded.toString() },
    realisedYield: collectedValue === undefined || gasValue === undefined ? null : amountJson(collectedValue - gasValue, strategy.valueToken),
    removed: { count: removals, token0: amountJson(removed0, token0), token1: amountJson(removed1, token1) },
    reRanges,
    timeInRange:
      track && track.observedSeconds > 0
        ? {
            seconds: track.insideSeconds,
            observedSeconds: track.observedSeconds,
            percent: ((track.insideSeconds * 100) / track.observedSeconds).toFixed(1),
          }
        : null,
    againstHolding: track ? againstHolding(strategy, track, books) : null,
    earned: track && collectedValue !== undefined ? earned(strategy, track, books, collectedValue, gasValue) : null,
  };
}

/** What the position earned since entry: its value now against then, fees apart from divergence, and their APR. */
function earned(
  strategy: Strategy & { kind: 'uniswap-v3-position' },
  track: PositionTrack,
  books: Books,
  collectedValue: bigint,
  gasValue: bigint | undefined,
): PositionAccount['earned'] {
  const { token0, token1 } = strategy.pool;
  const { first, latest } = track;
  if (latest.amount0 === 0n && latest.amount1 === 0n) return null;
  const worth = (amounts: { amount0: bigint; amount1: bigint }, time: number | 'latest') => {
    const [value0, value1] = [
      books.prices.convert(amounts.amount0, token0, strategy.valueToken, time),
      books.prices.convert(amounts.amount1, token1, strategy.valueToken, time),
    ];
    return value0 === undefined || value1 === undefined ? undefined : value0 + value1;
  };
  const [entry, now, holding, owed] = [
    worth(first, first.at),
    worth(latest, 'latest'),
    worth(first, 'latest'),
    worth(latest.fees ?? { amount0: 0n, amount1: 0n }, 'latest'),
  ];
  if (entry === undefined || now === undefined || holding === undefined || owed === undefined) return null;
  const fees = collectedValue + owed;
  const seconds = latest.blockTime - first.blockTime;
  const value = (raw: bigint) => amountJson(raw, strategy.valueToken);
  // A year's worth of the fees over the entry value, in percent with two decimals.
  const apr = seconds < 3_600 || entry === 0n ? null : (Number((fees * 10n ** 6n * 31_536_000n) / (entry * BigInt(seconds))) / 10_000).toFixed(2);
  return {
    entry: value(entry),
    now: value(now),
    profit: gasValue === undefined ? null : value(now - entry - gasValue),
    fees: value(fees),
    divergence: value(now - holding - fees),
    apr,
    days: (seconds / 86_400).toFixed(2),
  };
}

/** The position's holdings now against its first holdings, both at the latest prices. */
function againstHolding(strategy: Strategy & { kind: 'uniswap-v3-position' }, track: PositionTrack, books: Books): PositionAccount['againstHolding'] {
  const { token0, token1 } = strategy.pool;
  const worth = (mark: PositionTrack['latest']) => {
    const [value0, value1] = [
      books.prices.convert(mark.amount0, token0, strategy.valueToken, 'latest'),
      books.prices.convert(mark.amount1, token1, strategy.valueToken, 'latest'),
    ];
    return value0 === undefined || value1 === undefined ? undefined : value0 + value1;
  };
  if (track.latest.amount0 === 0n && track.latest.amount1 === 0n) return null;
  const [position, holding] = [worth(track.latest), worth(track.first)];
  if (position === undefined || holding === undefined) return null;
  const value = (raw: bigint) => amountJson(raw, strategy.valueToken);
  return { position: value(position), holding: value(holding), difference: value(position - holding) };
}

/** The settled trades of a list folded into a tally, with the runs that failed before trading (newest first). */
export function tallyOf(strategy: Strategy, trades: readonly TradeRecord[], books: Books, failedRuns: readonly string[]): Tally {
  const tally = emptyTally();
  for (const trade of trades) if (isSettled(trade)) foldTrade(tally, strategy, trade, books);
  for (const note of failedRuns.toReversed()) foldFailedRun(tally, note);
  return tally;
}

/**
 * A strategy's whole account from its trades (oldest first) and, unless `series` is false, its chart series: a
 * status needs the figures only, and the series (a point per trade and per price mark) cost far more.
 */
export function accountOf(
  strategy: Strategy,
  trades: readonly TradeRecord[],
  wallet: string,
  books: Books,
  failedRuns: readonly string[],
  options: { series?: boolean } = {},
): StrategyAccount {
  const account = accountFromTally(
    strategy,
    tallyOf(strategy, trades, books, failedRuns),
    trades.filter((trade) => !isSettled(trade)),
    wallet,
    books,
  );
  return options.series === false ? account : ({ ...account, series: seriesOf(strategy, trades, wallet, books) } as StrategyAccount);
}

// ------------------------------------------------------------ chart series (one strategy at a time, from its trades)

type Filled = TradeRecord & { settlement: { amountOut: bigint } };

/** Gas paid so far at each trade that paid any, in the native coin and in the value token. */
function gasSeries(strategy: Strategy, trades: readonly TradeRecord[], books: Books): Point[] {
  const valueToken = valueTokenOf(strategy);
  const tally = emptyTally();
  const points: Point[] = [];
  for (const trade of trades) {
    if ((books.gas.get(trade.id) ?? 0n) === 0n) continue;
    addGas(tally, strategy, trade, books);
    points.push({
      t: trade.createdAt,
      native: decimal(tally.gasWei, books.native),
      value: tally.gasValue === undefined ? null : decimal(tally.gasValue, valueToken),
    });
  }
  return points;
}

/** Value over time: at every trade and every price mark since the first, what was received so far is worth. */
function dcaValueSeries(strategy: DcaStrategy, fills: readonly Filled[], books: Books): Point[] {
  const { sell, buy } = strategy;
  const first = fills[0];
  if (!first) return [];
  const times = chartTimes(
    fills.map((trade) => trade.createdAt),
    books.prices.times([sell.address, buy.address]),
    first.createdAt,
    books.markedAt,
  );
  // Times and fills both ascend: what was put in and received so far grows as the times pass the fills.
  const points: Point[] = [];
  let [next, putIn, got] = [0, 0n, 0n];
  for (const t of times) {
    for (; next < fills.length && (fills[next] as Filled).createdAt <= t; next++) {
      putIn += (fills[next] as Filled).amountIn;
      got += (fills[next] as Filled).settlement.amountOut;
    }
    const worth = books.prices.convert(got, buy, sell, t);
    points.push({ t, invested: decimal(putIn, sell), value: worth === undefined ? null : decimal(worth, sell) });
  }
  return points;
}

/** A rebalance's own portfolio and the starting holdings over time, both in the quote token. */
function rebalanceValueSeries(strategy: RebalanceStrategy, trades: readonly TradeRecord[], fills: readonly Filled[], wallet: string, books: Books): Point[] {
  const tokens = rebalanceTokens(strategy);
  const since = fills[0]?.createdAt ?? trades[0]?.createdAt;
  const start = startingHoldings(tokens, since, books.balances(wallet));
  if (!start || since === undefined) return [];
  const holdingsAt = (t: number) =>
    tokens.map((token, i) => {
      const address = token.address.toLowerCase();
      const moved = fills
        .filter((trade) => trade.createdAt <= t)
        .map(
          (trade) =>
            (trade.tokenOut.toLowerCase() === address ? trade.settlement.amountOut : 0n) - (trade.tokenIn.toLowerCase() === address ? trade.amountIn : 0n),
        );
      return (start[i] as bigint) + sum(moved);
    });
  const times = chartTimes(
    fills.map((trade) => trade.createdAt),
    books.prices.times(tokens.map((token) => token.address)),
    since,
    books.markedAt,
  );
  return times.map((t) => {
    const [portfolio, held] = [worthIn(holdingsAt(t), tokens, strategy.quote, books, t), worthIn(start, tokens, strategy.quote, books, t)];
    return { t, value: portfolio === undefined ? null : decimal(portfolio, strategy.quote), hold: held === undefined ? null : decimal(held, strategy.quote) };
  });
}

/** Per swap, the price paid for the asset (the side that is not the value token) and the reference price then. */
function fillPrices(fills: readonly Filled[], valueToken: TokenInfo, books: Books): Series['fills'] {
  return fills.flatMap((trade) => {
    const sold = trade.tokenIn.toLowerCase() === valueToken.address.toLowerCase();
    const asset = books.token(sold ? trade.tokenOut : trade.tokenIn);
    const [valueAmount, assetAmount] = sold ? [trade.amountIn, trade.settlement.amountOut] : [trade.settlement.amountOut, trade.amountIn];
    const paid = priceJson(valueAmount, valueToken, assetAmount, asset);
    const reference = books.prices.convert(one(asset), asset, valueToken, trade.createdAt);
    if (!paid) return [];
    return [
      {
        t: trade.createdAt,
        asset: asset.symbol,
        paid: paid.value,
        reference: reference === undefined ? null : (priceJson(reference, valueToken, one(asset), asset)?.value ?? null),
      },
    ];
  });
}

/** Rewards claimed so far, at their value when each was claimed. */
function rewardSeries(strategy: CompoundStrategy, fills: readonly Filled[], books: Books): Point[] {
  const points: Point[] = [];
  let claimedValue: bigint | undefined = 0n;
  for (const claim of fills.filter((trade) => kindOf(trade).effect(trade, trade.settlement.amountOut).claimed !== undefined)) {
    const value = books.prices.convert(claim.settlement.amountOut, strategy.gauge.rewardToken, strategy.valueToken, claim.createdAt);
    claimedValue = value === undefined || claimedValue === undefined ? undefined : claimedValue + value;
    points.push({ t: claim.createdAt, value: claimedValue === undefined ? null : decimal(claimedValue, strategy.valueToken) });
  }
  return points;
}

/** A strategy's chart series, from its trades oldest first. */
export function seriesOf(strategy: Strategy, trades: readonly TradeRecord[], wallet: string, books: Books): Series {
  const fills = trades.filter(filled);
  const series: Series = { value: [], fills: [], gas: gasSeries(strategy, trades, books), rewards: [] };
  switch (strategy.kind) {
    case 'dca':
      return { ...series, value: dcaValueSeries(strategy, fills, books), fills: fillPrices(fills, strategy.sell, books) };
    case 'rebalance': {
      const swaps = fills.filter((trade) => kindOf(trade).effect(trade, trade.settlement.amountOut).swapped);
      return { ...series, value: rebalanceValueSeries(strategy, trades, swaps, wallet, books), fills: fillPrices(swaps, strategy.quote, books) };
    }
    case 'limit':
      return { ...series, fills: fillPrices(fills, strategy.buy, books) };
    case 'compound':
      return { ...series, rewards: rewardSeries(strategy, fills, books) };
    case 'uniswap-v3-position':
      return { ...series, value: positionValueSeries(strategy, books) };
  }
}

/**
 * A V3 position's worth at each run's look at it (its liquidity and fees owed, at that time's prices) against holding
 * what it held at the first look, at the same prices.
 */
function positionValueSeries(strategy: Strategy & { kind: 'uniswap-v3-position' }, books: Books): Point[] {
  const { token0, token1 } = strategy.pool;
  const marks = books.positionMarks?.(strategy.id) ?? [];
  const entry = marks.find((mark) => mark.amount0 > 0n || mark.amount1 > 0n);
  if (!entry) return [];
  const worth = (amounts: { amount0: bigint; amount1: bigint }, time: number) => {
    const [value0, value1] = [
      books.prices.convert(amounts.amount0, token0, strategy.valueToken, time),
      books.prices.convert(amounts.amount1, token1, strategy.valueToken, time),
    ];
    return value0 === undefined || value1 === undefined ? null : decimal(value0 + value1, strategy.valueToken);
  };
  return marks.filter((mark) => mark.at >= entry.at).map((mark) => ({ t: mark.at, value: worth(mark, mark.at), hold: worth(entry, mark.at) }));
}
