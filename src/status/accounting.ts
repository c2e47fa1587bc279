/**
 * What each strategy's money did, derived from the ledger's trades and the prices and balances the daemon
 * observed (never stored as results of their own): per kind the figures a user of that kind asks first, and
 * for every strategy gas, routing-partner fees, refusals and failures. Values are exact bigints in raw units;
 * amounts.ts writes them for people and scripts.
 */
import { formatUnits } from 'viem';
import type { BalanceMark } from '../ledger/ledger.ts';
import { minimumFromPrice } from '../guard/guards.ts';
import type { CompoundStrategy, DcaStrategy, LimitStrategy, RebalanceStrategy, Strategy } from '../strategy/types.ts';
import type { TradeRecord } from '../trade/types.ts';
import type { TokenInfo } from '../units.ts';
import { type AmountJson, type PriceJson, type Token, amountJson, percent, priceJson } from './amounts.ts';
import type { PriceBook } from './prices.ts';

/** What accounting reads besides a strategy's trades. */
export type Books = {
  prices: PriceBook;
  /** The chain's coin, as gas is paid in it; priced under the 'native' mark. */
  native: Token;
  /** Gas paid in wei per trade id, every mined or reverted transaction of it. */
  gas: ReadonlyMap<string, bigint>;
  /** The recorded balances of a wallet, oldest first. */
  balances(wallet: string): readonly BalanceMark[];
  /** A token the strategies do not describe (a gauge's position token), by address. */
  token(address: string): Token;
  /** When prices were last observed (unchanged ones write no row): value charts reach this time. */
  markedAt?: number;
};

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

type Counted = { reason: string; count: number; last: string };

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

export type StrategyAccount =
  | { kind: 'dca'; common: CommonAccount; dca: DcaAccount; series: Series }
  | { kind: 'rebalance'; common: CommonAccount; rebalance: RebalanceAccount; series: Series }
  | { kind: 'limit'; common: CommonAccount; limit: LimitAccount; series: Series }
  | { kind: 'compound'; common: CommonAccount; compound: CompoundAccount; series: Series };

const sum = (values: readonly bigint[]) => values.reduce((total, value) => total + value, 0n);
/** A chart value: the exact decimal of a raw amount. */
const decimal = (raw: bigint, token: Token) => formatUnits(raw, token.decimals);
const one = (token: Token) => 10n ** BigInt(token.decimals);
const filled = (trade: TradeRecord): trade is TradeRecord & { settlement: { amountOut: bigint } } => trade.status === 'confirmed' && trade.settlement?.amountOut !== undefined;

/** The token strategies value everything in: what a DCA spends, a rebalance's quote, what a limit order buys. */
export function valueTokenOf(strategy: Strategy): TokenInfo {
  switch (strategy.kind) {
    case 'dca':
      return strategy.sell;
    case 'rebalance':
      return strategy.quote;
    case 'limit':
      return strategy.buy;
    case 'compound':
      return strategy.valueToken;
  }
}

function counted(items: readonly { reason: string; detail: string }[]): Counted[] {
  const byReason = new Map<string, Counted>();
  for (const { reason, detail } of items) {
    const entry = byReason.get(reason) ?? { reason, count: 0, last: detail };
    entry.count++;
    entry.last = detail;
    byReason.set(reason, entry);
  }
  return [...byReason.values()].sort((a, b) => b.count - a.count);
}

/** Gas, fees, refusals and failures of any strategy; `failedRuns` are runs that failed before trading (their notes). */
export function commonAccount(strategy: Strategy, trades: readonly TradeRecord[], books: Books, failedRuns: readonly string[]): { account: CommonAccount; gas: Point[] } {
  const valueToken = valueTokenOf(strategy);
  const count = (...states: string[]) => trades.filter((trade) => states.includes(trade.status)).length;
  let gasWei = 0n;
  let gasValue: bigint | undefined = 0n;
  const gas: Point[] = [];
  for (const trade of trades) {
    const paid = books.gas.get(trade.id) ?? 0n;
    if (paid === 0n) continue;
    gasWei += paid;
    const value = books.prices.convert(paid, { address: 'native', decimals: books.native.decimals }, valueToken, trade.createdAt);
    gasValue = value === undefined || gasValue === undefined ? undefined : gasValue + value;
    gas.push({ t: trade.createdAt, native: decimal(gasWei, books.native), value: gasValue === undefined ? null : decimal(gasValue, valueToken) });
  }
  const fees = new Map<string, bigint>();
  let feesUnknown = 0;
  for (const trade of trades.filter((trade) => filled(trade) && trade.kind === 'swap')) {
    const fee = trade.settlement?.partnerFee;
    if (fee === undefined) feesUnknown++;
    else if (fee > 0n) fees.set(trade.tokenOut.toLowerCase(), (fees.get(trade.tokenOut.toLowerCase()) ?? 0n) + fee);
  }
  const refusals = counted(trades.filter((trade) => trade.status === 'refused').map((trade) => ({ reason: trade.failure?.refusal ?? 'refused', detail: trade.failure?.reason ?? '' })));
  const failures = counted([
    ...trades.filter((trade) => trade.status === 'failed').map((trade) => ({ reason: trade.failure?.errorClass ?? 'failed', detail: trade.failure?.reason ?? '' })),
    ...failedRuns.map((note) => ({ reason: 'before trading', detail: note })),
  ]);
  return {
    account: {
      valueToken: { address: valueToken.address, symbol: valueToken.symbol, decimals: valueToken.decimals },
      trades: {
        confirmed: count('confirmed'),
        refused: count('refused'),
        failed: count('failed'),
        unknown: count('unknown'),
        anomaly: count('anomaly'),
        dryRun: count('dry-run'),
        open: count('claimed', 'quoted', 'checked', 'signed', 'broadcast'),
      },
      gas: { native: amountJson(gasWei, books.native), value: gasValue === undefined ? null : amountJson(gasValue, valueToken) },
      partnerFees: [...fees].map(([token, fee]) => amountJson(fee, books.token(token))),
      partnerFeesUnknown: feesUnknown,
      refusals,
      failures,
    },
    gas,
  };
}

export function dcaAccount(strategy: DcaStrategy, trades: readonly TradeRecord[], books: Books): { dca: DcaAccount; value: Point[]; fills: Series['fills'] } {
  const { sell, buy } = strategy;
  const fills = trades.filter(filled);
  const invested = sum(fills.map((trade) => trade.amountIn));
  const received = sum(fills.map((trade) => trade.settlement.amountOut));
  const value = books.prices.convert(received, buy, sell, 'latest');
  const oneBuy = books.prices.convert(one(buy), buy, sell, 'latest');
  const first = fills[0];
  const lumpReceived = first && (invested * first.settlement.amountOut) / first.amountIn;
  const lumpValue = lumpReceived === undefined ? undefined : books.prices.convert(lumpReceived, buy, sell, 'latest');
  const dca: DcaAccount = {
    invested: amountJson(invested, sell),
    received: amountJson(received, buy),
    averagePrice: priceJson(invested, sell, received, buy),
    currentPrice: oneBuy === undefined ? null : priceJson(oneBuy, sell, one(buy), buy),
    value: value === undefined ? null : amountJson(value, sell),
    pnl: value === undefined ? null : amountJson(value - invested, sell),
    pnlPercent: value === undefined ? null : percent(value - invested, invested),
    lumpSum:
      first && lumpReceived !== undefined
        ? { received: amountJson(lumpReceived, buy), value: lumpValue === undefined ? null : amountJson(lumpValue, sell), price: priceJson(first.amountIn, sell, first.settlement.amountOut, buy) }
        : null,
    vsLumpSum: value === undefined || lumpValue === undefined ? null : amountJson(value - lumpValue, sell),
  };
  // Value over time: at every trade and every price mark since the first, what was received so far is worth.
  const points: Point[] = [];
  if (first) {
    const times = chartTimes(
      fills.map((trade) => trade.createdAt),
      books.prices.times([sell.address, buy.address]),
      first.createdAt,
      books.markedAt,
    );
    for (const t of times) {
      const sofar = fills.filter((trade) => trade.createdAt <= t);
      const putIn = sum(sofar.map((trade) => trade.amountIn));
      const got = sum(sofar.map((trade) => trade.settlement.amountOut));
      const worth = books.prices.convert(got, buy, sell, t);
      points.push({ t, invested: decimal(putIn, sell), value: worth === undefined ? null : decimal(worth, sell) });
    }
  }
  return { dca, value: points, fills: fillPrices(fills, sell, books) };
}

/** Per swap, the price paid for the asset (the side that is not the value token) and the reference price then. */
function fillPrices(fills: readonly (TradeRecord & { settlement: { amountOut: bigint } })[], valueToken: TokenInfo, books: Books): Series['fills'] {
  return fills.flatMap((trade) => {
    const sold = trade.tokenIn.toLowerCase() === valueToken.address.toLowerCase();
    const asset = books.token(sold ? trade.tokenOut : trade.tokenIn);
    const [valueAmount, assetAmount] = sold ? [trade.amountIn, trade.settlement.amountOut] : [trade.settlement.amountOut, trade.amountIn];
    const paid = priceJson(valueAmount, valueToken, assetAmount, asset);
    const reference = books.prices.convert(one(asset), asset, valueToken, trade.createdAt);
    if (!paid) return [];
    return [{ t: trade.createdAt, asset: asset.symbol, paid: paid.value, reference: reference === undefined ? null : (priceJson(reference, valueToken, one(asset), asset)?.value ?? null) }];
  });
}

export function rebalanceAccount(strategy: RebalanceStrategy, trades: readonly TradeRecord[], wallet: string, books: Books): { rebalance: RebalanceAccount; value: Point[]; fills: Series['fills'] } {
  const quote = strategy.quote;
  const tokens = [...new Map([...strategy.targets.map((target) => target.token), quote].map((token) => [token.address.toLowerCase(), token])).values()];
  const fills = trades.filter((trade) => filled(trade) && trade.kind === 'swap') as (TradeRecord & { settlement: { amountOut: bigint } })[];
  const isQuote = (address: string) => address.toLowerCase() === quote.address.toLowerCase();
  const turnover = sum(fills.map((trade) => (isQuote(trade.tokenOut) ? trade.settlement.amountOut : isQuote(trade.tokenIn) ? trade.amountIn : 0n)));
  // The strategy's own portfolio: the wallet's balances just before its first trade, moved by its trades only
  // (other strategies of the wallet do not count for or against it).
  const since = fills[0]?.createdAt ?? trades[0]?.createdAt;
  const marks = books.balances(wallet);
  const startOf = (token: TokenInfo) => {
    const before = marks.filter((mark) => mark.token.toLowerCase() === token.address.toLowerCase() && (since === undefined || mark.at <= since));
    return before.at(-1)?.balance;
  };
  const starts = tokens.map(startOf);
  const start = starts.every((balance) => balance !== undefined) ? (starts as bigint[]) : undefined;
  const holdingsAt = (t: number) =>
    tokens.map((token, i) => {
      const delta = sum(
        fills
          .filter((trade) => trade.createdAt <= t)
          .map((trade) => (trade.tokenOut.toLowerCase() === token.address.toLowerCase() ? trade.settlement.amountOut : 0n) - (trade.tokenIn.toLowerCase() === token.address.toLowerCase() ? trade.amountIn : 0n)),
      );
      return (start?.[i] ?? 0n) + delta;
    });
  const worth = (balances: readonly bigint[], t: number | 'latest') => {
    const values = balances.map((balance, i) => books.prices.convert(balance, tokens[i] as TokenInfo, quote, t));
    return values.every((value) => value !== undefined) ? sum(values as bigint[]) : undefined;
  };
  const now = start && holdingsAt(Number.MAX_SAFE_INTEGER);
  const value = now && worth(now, 'latest');
  const hold = start && worth(start, 'latest');
  const rebalance: RebalanceAccount = {
    start: start ? start.map((balance, i) => amountJson(balance, tokens[i] as TokenInfo)) : null,
    holdings: now ? now.map((balance, i) => amountJson(balance, tokens[i] as TokenInfo)) : null,
    value: value === undefined ? null : amountJson(value, quote),
    hold: hold === undefined ? null : amountJson(hold, quote),
    vsHold: value === undefined || hold === undefined ? null : amountJson(value - hold, quote),
    vsHoldPercent: value === undefined || hold === undefined ? null : percent(value - hold, hold),
    turnover: amountJson(turnover, quote),
    trades: fills.length,
  };
  const points: Point[] = [];
  if (start && since !== undefined) {
    const times = chartTimes(
      fills.map((trade) => trade.createdAt),
      books.prices.times(tokens.map((token) => token.address)),
      since,
      books.markedAt,
    );
    for (const t of times) {
      const [portfolio, held] = [worth(holdingsAt(t), t), worth(start, t)];
      points.push({ t, value: portfolio === undefined ? null : decimal(portfolio, quote), hold: held === undefined ? null : decimal(held, quote) });
    }
  }
  return { rebalance, value: points, fills: fillPrices(fills, quote, books) };
}

export function limitAccount(strategy: LimitStrategy, trades: readonly TradeRecord[], books: Books): { limit: LimitAccount; fills: Series['fills'] } {
  const { sell, buy } = strategy;
  const fills = trades.filter(filled);
  const oneSell = books.prices.convert(one(sell), sell, buy, 'latest');
  const limit: LimitAccount = {
    takeProfit: strategy.takeProfit ?? null,
    stopLoss: strategy.stopLoss ?? null,
    currentPrice: oneSell === undefined ? null : priceJson(oneSell, buy, one(sell), sell),
    fills: fills.map((trade) => {
      const trigger = trade.slot.endsWith('#stop-loss') ? 'stop-loss' : 'take-profit';
      const triggerPrice = (trigger === 'stop-loss' ? strategy.stopLoss : strategy.takeProfit) ?? '0';
      const atTrigger = minimumFromPrice(trade.amountIn, triggerPrice, sell.decimals, buy.decimals);
      const reference = books.prices.convert(trade.amountIn, sell, buy, trade.createdAt);
      return {
        at: trade.createdAt,
        trigger,
        triggerPrice,
        price: priceJson(trade.settlement.amountOut, buy, trade.amountIn, sell),
        referencePrice: reference === undefined ? null : priceJson(reference, buy, trade.amountIn, sell),
        vsTrigger: percent(trade.settlement.amountOut - atTrigger, atTrigger),
        sold: amountJson(trade.amountIn, sell),
        received: amountJson(trade.settlement.amountOut, buy),
        txHash: trade.settlement.txHash,
      };
    }),
    sold: amountJson(sum(fills.map((trade) => trade.amountIn)), sell),
    received: amountJson(sum(fills.map((trade) => trade.settlement.amountOut)), buy),
  };
  return { limit, fills: fillPrices(fills, buy, books) };
}

export function compoundAccount(strategy: CompoundStrategy, trades: readonly TradeRecord[], books: Books, gasValue: bigint | undefined): { compound: CompoundAccount; rewards: Point[] } {
  const { valueToken } = strategy;
  const reward = strategy.gauge.rewardToken;
  const position = books.token(strategy.gauge.address);
  const fills = trades.filter(filled);
  const claims = fills.filter((trade) => trade.kind === 'claim');
  const deposits = fills.filter((trade) => trade.kind === 'deposit');
  const withdrawals = fills.filter((trade) => trade.kind === 'withdraw');
  const rewards: Point[] = [];
  let claimedValue: bigint | undefined = 0n;
  for (const claim of claims) {
    const value = books.prices.convert(claim.settlement.amountOut, reward, valueToken, claim.createdAt);
    claimedValue = value === undefined || claimedValue === undefined ? undefined : claimedValue + value;
    rewards.push({ t: claim.createdAt, value: claimedValue === undefined ? null : decimal(claimedValue, valueToken) });
  }
  const exitTo = strategy.exit?.to;
  const compound: CompoundAccount = {
    compounds: deposits.length,
    claimed: amountJson(sum(claims.map((trade) => trade.settlement.amountOut)), reward),
    claimedValue: claimedValue === undefined ? null : amountJson(claimedValue, valueToken),
    lpAdded: amountJson(sum(deposits.map((trade) => trade.settlement.amountOut)), position),
    withdrawn:
      withdrawals.length > 0 && exitTo
        ? { position: amountJson(sum(withdrawals.map((trade) => trade.amountIn)), position), received: amountJson(sum(withdrawals.map((trade) => trade.settlement.amountOut)), exitTo) }
        : null,
    realisedYield: claimedValue === undefined || gasValue === undefined ? null : amountJson(claimedValue - gasValue, valueToken),
  };
  return { compound, rewards };
}

/** A strategy's whole account and chart series. */
export function accountOf(strategy: Strategy, trades: readonly TradeRecord[], wallet: string, books: Books, failedRuns: readonly string[]): StrategyAccount {
  const { account: common, gas } = commonAccount(strategy, trades, books, failedRuns);
  const empty = { value: [], fills: [], gas, rewards: [] };
  switch (strategy.kind) {
    case 'dca': {
      const { dca, value, fills } = dcaAccount(strategy, trades, books);
      return { kind: 'dca', common, dca, series: { ...empty, value, fills } };
    }
    case 'rebalance': {
      const { rebalance, value, fills } = rebalanceAccount(strategy, trades, wallet, books);
      return { kind: 'rebalance', common, rebalance, series: { ...empty, value, fills } };
    }
    case 'limit': {
      const { limit, fills } = limitAccount(strategy, trades, books);
      return { kind: 'limit', common, limit, series: { ...empty, fills } };
    }
    case 'compound': {
      const gasValue = common.gas.value === null ? undefined : BigInt(common.gas.value.raw);
      const { compound, rewards } = compoundAccount(strategy, trades, books, gasValue);
      return { kind: 'compound', common, compound, series: { ...empty, rewards } };
    }
  }
}
