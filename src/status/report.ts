/**
 * The status of every strategy and wallet, read from a ledger alone: `routekeeper status --json` prints it and
 * the status page's `/api/status` serves it, so both always say the same. Its shape is documented in docs/status-api.md
 * (`version` changes when a field changes meaning or goes away).
 */
import type { Address } from 'viem';
import type { Ledger, Pause, RunOutcome, RunRecord } from '../ledger/ledger.ts';
import { nextSlot, plannedStart } from '../engine/scheduler.ts';
import { strategyInWords } from '../strategy/plan.ts';
import type { Strategy } from '../strategy/types.ts';
import { TokenNames, describeTrade } from '../trade/describe.ts';
import type { TradeRecord } from '../trade/types.ts';
import { type Books, type CommonAccount, type CompoundAccount, type DcaAccount, type LimitAccount, type RebalanceAccount, type Series, type StrategyAccount, accountOf } from './accounting.ts';
import { type AmountJson, type Token, amountJson } from './amounts.ts';
import { type KnownStrategy, knownStrategies } from './definitions.ts';
import { PriceBook } from './prices.ts';
import { markedAtKey, nativePriceKey } from '../engine/marker.ts';

export const statusVersion = 1;

type PauseJson = { scope: Pause['scope']; key: string; reason: string; since: string };
type RunJson = { startedAt: string; slot: string; outcome: RunOutcome; note: string | null };

export type StrategyStatus = {
  id: string;
  kind: Strategy['kind'];
  wallet: { name: string; address: string };
  /** False for a strategy an earlier start ran that the latest start's strategy file no longer has. */
  inStrategyFile: boolean;
  plan: string;
  paused: PauseJson | null;
  lastRun: RunJson | null;
  nextRun: string | null;
  runs: Partial<Record<RunOutcome, number>>;
} & CommonAccount & { dca?: DcaAccount; rebalance?: RebalanceAccount; limit?: LimitAccount; compound?: CompoundAccount };

export type WalletStatus = {
  name: string;
  address: string;
  paused: PauseJson | null;
  strategies: string[];
  /** The latest recorded balances of the tokens its strategies touch, with their USD value when priced. */
  holdings: { amount: AmountJson; usd: string | null }[];
  valueUsd: string | null;
  gas: AmountJson;
  trades: number;
};

export type StatusReport = {
  version: number;
  generatedAt: string;
  chainId: number | null;
  /** The block explorer transactions link to, on a real network. */
  explorer: string | null;
  /** When the newest reference price was recorded: values are at the prices of that moment. */
  pricesAt: string | null;
  strategies: StrategyStatus[];
  wallets: WalletStatus[];
};

/** A trade as the page's table lists it. */
export type TradeRow = { at: string; id: string; kind: string; status: string; text: string; txHash: string | null; link: string | null };

const iso = (ms: number) => new Date(ms).toISOString();
const pauseJson = (pause: Pause | undefined): PauseJson | null => (pause ? { scope: pause.scope, key: pause.key, reason: pause.reason, since: iso(pause.pausedAt) } : null);
const usdToken: Token = { address: 'usd', symbol: 'USD', decimals: 18 };

/** What the ledger knows, read once: a status and its series are computed from this. */
export class LedgerView {
  readonly strategies: KnownStrategy[];
  readonly names: TokenNames;
  readonly books: Books;
  readonly explorer: string | null;
  readonly chainId: number | null;
  /** When the newest price was recorded, or last seen unchanged. */
  readonly pricesAt: number | undefined;
  readonly pauses: readonly Pause[];
  readonly #tradesByStrategy: ReadonlyMap<string, TradeRecord[]>;
  readonly #runCounts: ReadonlyMap<string, Partial<Record<RunOutcome, number>>>;
  readonly #latestRuns: ReadonlyMap<string, RunRecord>;
  readonly #failedBeforeTrading: ReadonlyMap<string, string[]>;

  private constructor(parts: {
    strategies: KnownStrategy[];
    names: TokenNames;
    books: Books;
    explorer: string | null;
    chainId: number | null;
    pricesAt: number | undefined;
    pauses: Pause[];
    trades: TradeRecord[];
    runCounts: { strategyId: string; outcome: RunOutcome; count: number }[];
    latestRuns: Map<string, RunRecord>;
    failedBeforeTrading: Map<string, string[]>;
  }) {
    this.strategies = parts.strategies;
    this.names = parts.names;
    this.books = parts.books;
    this.explorer = parts.explorer;
    this.chainId = parts.chainId;
    this.pricesAt = parts.pricesAt;
    this.pauses = parts.pauses;
    const byStrategy = new Map<string, TradeRecord[]>();
    for (const trade of parts.trades) {
      const list = byStrategy.get(trade.strategyId) ?? [];
      list.push(trade);
      byStrategy.set(trade.strategyId, list);
    }
    this.#tradesByStrategy = byStrategy;
    const counts = new Map<string, Partial<Record<RunOutcome, number>>>();
    for (const row of parts.runCounts) counts.set(row.strategyId, { ...counts.get(row.strategyId), [row.outcome]: row.count });
    this.#runCounts = counts;
    this.#latestRuns = parts.latestRuns;
    this.#failedBeforeTrading = parts.failedBeforeTrading;
  }

  /** Reads everything a status needs, each table once. */
  static async load(ledger: Ledger): Promise<LedgerView> {
    const [strategies, tokenNames, nativeJson, explorer, marked, trades, runCounts, marks, gas, balances, latestRuns, failedBeforeTrading, pauses, chain] = await Promise.all([
      ledger.strategies.all(),
      ledger.marks.tokenNames(),
      ledger.strategies.meta('native-token'),
      ledger.strategies.meta('explorer'),
      ledger.strategies.meta(markedAtKey),
      ledger.trades.all(),
      ledger.runs.counts(),
      ledger.marks.prices(),
      ledger.attempts.gasByTrade(),
      ledger.marks.balances(),
      ledger.runs.latest(),
      ledger.runs.failedBeforeTrading(),
      ledger.pauses.all(),
      ledger.chain(),
    ]);
    const names = new TokenNames(tokenNames);
    const native: Token = nativeJson ? (JSON.parse(nativeJson) as Token) : { address: nativePriceKey, symbol: 'native coin', decimals: 18 };
    return new LedgerView({
      strategies: knownStrategies(strategies),
      names,
      explorer: explorer || null,
      chainId: chain?.chainId ?? null,
      pricesAt: marked === undefined ? marks.at(-1)?.at : Number(marked),
      pauses,
      trades,
      runCounts,
      latestRuns,
      failedBeforeTrading,
      books: {
        prices: new PriceBook(marks),
        native,
        gas,
        balances: (wallet) => balances.get(wallet.toLowerCase()) ?? [],
        // A token no strategy named has unknown decimals; position tokens are 18-decimal like the LP tokens they stand for.
        token: (address) => names.get(address as Address) ?? { address, symbol: `${address.slice(0, 8)}…`, decimals: 18 },
        ...(marked !== undefined && { markedAt: Number(marked) }),
      },
    });
  }

  /** A strategy's runs by outcome. */
  runCounts(strategyId: string): Partial<Record<RunOutcome, number>> {
    return { ...this.#runCounts.get(strategyId) };
  }

  lastRun(strategyId: string): RunRecord | undefined {
    return this.#latestRuns.get(strategyId);
  }

  tradesOf(strategyId: string): TradeRecord[] {
    return this.#tradesByStrategy.get(strategyId) ?? [];
  }

  /** The pauses that stop this strategy's trades from this wallet. */
  pausesFor(strategyId: string, wallet: string): Pause[] {
    return this.pauses.filter((pause) => (pause.scope === 'strategy' ? pause.key === strategyId : pause.key === wallet.toLowerCase()));
  }

  account(known: KnownStrategy): StrategyAccount {
    return accountOf(known.strategy, this.tradesOf(known.strategy.id), known.wallet, this.books, this.#failedBeforeTrading.get(known.strategy.id) ?? []);
  }

  find(strategyId: string): KnownStrategy | undefined {
    return this.strategies.find((known) => known.strategy.id === strategyId);
  }
}

function lastRunOf(run: RunRecord | undefined): RunJson | null {
  return run ? { startedAt: iso(run.startedAt), slot: run.slot, outcome: run.outcome ?? 'interrupted', note: run.note ?? null } : null;
}

export function strategyStatus(view: LedgerView, known: KnownStrategy, now: number): StrategyStatus {
  const { strategy } = known;
  const pauses = view.pausesFor(strategy.id, known.wallet);
  const account = view.account(known);
  const slot = known.current ? nextSlot(strategy, now) : undefined;
  // When it will start: its slot plus its spread offset.
  const next = slot === undefined ? undefined : plannedStart(strategy, slot);
  const { kind, common } = account;
  return {
    id: strategy.id,
    kind,
    wallet: { name: known.walletName, address: known.wallet },
    inStrategyFile: known.current,
    plan: strategyInWords(strategy),
    paused: pauseJson(pauses.find((pause) => pause.scope === 'strategy') ?? pauses[0]),
    lastRun: lastRunOf(view.lastRun(strategy.id)),
    nextRun: next === undefined ? null : iso(next),
    runs: view.runCounts(strategy.id),
    ...common,
    ...(account.kind === 'dca' && { dca: account.dca }),
    ...(account.kind === 'rebalance' && { rebalance: account.rebalance }),
    ...(account.kind === 'limit' && { limit: account.limit }),
    ...(account.kind === 'compound' && { compound: account.compound }),
  };
}

function walletStatuses(view: LedgerView, strategies: readonly StrategyStatus[]): WalletStatus[] {
  const byAddress = new Map<string, { name: string; address: string; strategies: string[] }>();
  for (const known of view.strategies) {
    const entry = byAddress.get(known.wallet) ?? { name: known.walletName, address: known.wallet, strategies: [] };
    entry.strategies.push(known.strategy.id);
    byAddress.set(known.wallet, entry);
  }
  const walletPauses = view.pauses.filter((pause) => pause.scope === 'wallet');
  return [...byAddress.values()].map((wallet) => {
    const latest = new Map<string, bigint>();
    for (const mark of view.books.balances(wallet.address)) latest.set(mark.token.toLowerCase(), mark.balance);
    const holdings = [...latest].map(([token, balance]) => {
      const info = view.books.token(token);
      const usd = view.books.prices.usd(balance, info);
      return { amount: amountJson(balance, info), usd: usd === undefined ? null : amountJson(usd, usdToken).amount };
    });
    const priced = [...latest].map(([token, balance]) => view.books.prices.usd(balance, view.books.token(token)));
    const valueUsd = priced.every((usd) => usd !== undefined) && priced.length > 0 ? amountJson((priced as bigint[]).reduce((a, b) => a + b, 0n), usdToken).amount : null;
    const mine = strategies.filter((strategy) => strategy.wallet.address === wallet.address);
    const gas = mine.reduce((total, strategy) => total + BigInt(strategy.gas.native.raw), 0n);
    return {
      ...wallet,
      paused: pauseJson(walletPauses.find((pause) => pause.key === wallet.address.toLowerCase())),
      holdings,
      valueUsd,
      gas: amountJson(gas, view.books.native),
      trades: mine.reduce((total, strategy) => total + strategy.trades.confirmed, 0),
    };
  });
}

/** The status of every strategy the ledger describes (or only `strategyId`'s), and of their wallets. */
export async function statusReport(ledger: Ledger, options: { strategyId?: string; now?: number } = {}): Promise<StatusReport> {
  const view = await LedgerView.load(ledger);
  const now = options.now ?? Date.now();
  const chosen = view.strategies.filter((known) => options.strategyId === undefined || known.strategy.id === options.strategyId);
  const strategies = chosen.map((known) => strategyStatus(view, known, now));
  const pricesAt = view.pricesAt;
  return {
    version: statusVersion,
    generatedAt: iso(now),
    chainId: view.chainId,
    explorer: view.explorer,
    pricesAt: pricesAt === undefined ? null : iso(pricesAt),
    strategies,
    wallets: walletStatuses(view, strategies).filter((wallet) => options.strategyId === undefined || wallet.strategies.includes(options.strategyId)),
  };
}

/** A strategy's chart series and trade table, for the status page. */
export async function strategyDetail(ledger: Ledger, strategyId: string): Promise<{ series: Series; trades: TradeRow[] } | undefined> {
  const view = await LedgerView.load(ledger);
  const known = view.find(strategyId);
  if (!known) return undefined;
  const { series } = view.account(known);
  const trades = view
    .tradesOf(strategyId)
    .toReversed()
    .map((trade) => {
      const txHash = trade.settlement?.txHash ?? null;
      const text = describeTrade(
        { trade, status: trade.status, reason: trade.anomaly ?? trade.failure?.reason, expectedOut: trade.call?.expectedOut, minOut: trade.call?.minOut, amountOut: trade.settlement?.amountOut },
        view.names,
      );
      return { at: iso(trade.createdAt), id: trade.id, kind: trade.kind, status: trade.status, text, txHash, link: txHash && view.explorer ? `${view.explorer.replace(/\/$/, '')}/tx/${txHash}` : null };
    });
  return { series, trades };
}
