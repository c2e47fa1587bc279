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
  readonly ledger: Ledger;
  readonly strategies: KnownStrategy[];
  readonly names: TokenNames;
  readonly books: Books;
  readonly explorer: string | null;
  /** When the newest price was recorded, or last seen unchanged. */
  readonly pricesAt: number | undefined;
  readonly #trades: TradeRecord[];
  readonly #runCounts: ReturnType<Ledger['runCounts']>;

  constructor(ledger: Ledger) {
    this.ledger = ledger;
    this.strategies = knownStrategies(ledger.strategyDescriptions());
    this.names = new TokenNames(ledger.tokenNames());
    const nativeJson = ledger.meta('native-token');
    const native: Token = nativeJson ? (JSON.parse(nativeJson) as Token) : { address: nativePriceKey, symbol: 'native coin', decimals: 18 };
    this.explorer = ledger.meta('explorer') || null;
    const marked = ledger.meta(markedAtKey);
    this.#trades = ledger.allTrades();
    this.#runCounts = ledger.runCounts();
    const names = this.names;
    const marks = ledger.priceMarks();
    this.pricesAt = marked === undefined ? marks.at(-1)?.at : Number(marked);
    this.books = {
      prices: new PriceBook(marks),
      native,
      gas: ledger.gasByTrade(),
      balances: (wallet) => ledger.balanceMarks(wallet as Address),
      // A token no strategy named has unknown decimals; position tokens are 18-decimal like the LP tokens they stand for.
      token: (address) => names.get(address as Address) ?? { address, symbol: `${address.slice(0, 8)}…`, decimals: 18 },
      ...(marked !== undefined && { markedAt: Number(marked) }),
    };
  }

  /** A strategy's runs by outcome. */
  runCounts(strategyId: string): Partial<Record<RunOutcome, number>> {
    const runs: Partial<Record<RunOutcome, number>> = {};
    for (const row of this.#runCounts.filter((row) => row.strategyId === strategyId)) runs[row.outcome] = row.count;
    return runs;
  }

  tradesOf(strategyId: string): TradeRecord[] {
    return this.#trades.filter((trade) => trade.strategyId === strategyId);
  }

  account(known: KnownStrategy): StrategyAccount {
    const failedRuns = this.ledger
      .runs({ strategyId: known.strategy.id, limit: 1_000_000 })
      .filter((run) => run.outcome === 'failed' && run.note?.startsWith('failed before trading'))
      .map((run) => run.note as string);
    return accountOf(known.strategy, this.tradesOf(known.strategy.id), known.wallet, this.books, failedRuns);
  }

  find(strategyId: string): KnownStrategy | undefined {
    return this.strategies.find((known) => known.strategy.id === strategyId);
  }
}

function lastRunOf(runs: readonly RunRecord[]): RunJson | null {
  const run = runs[0];
  return run ? { startedAt: iso(run.startedAt), slot: run.slot, outcome: run.outcome ?? 'interrupted', note: run.note ?? null } : null;
}

export function strategyStatus(view: LedgerView, known: KnownStrategy, now: number): StrategyStatus {
  const { strategy } = known;
  const pauses = view.ledger.pausesFor(strategy.id, known.wallet);
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
    lastRun: lastRunOf(view.ledger.runs({ strategyId: strategy.id, limit: 1 })),
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
  const walletPauses = view.ledger.pauses().filter((pause) => pause.scope === 'wallet');
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
export function statusReport(ledger: Ledger, options: { strategyId?: string; now?: number } = {}): StatusReport {
  const now = options.now ?? Date.now();
  const view = new LedgerView(ledger);
  const chosen = view.strategies.filter((known) => options.strategyId === undefined || known.strategy.id === options.strategyId);
  const strategies = chosen.map((known) => strategyStatus(view, known, now));
  const pricesAt = view.pricesAt;
  return {
    version: statusVersion,
    generatedAt: iso(now),
    chainId: ledger.chain()?.chainId ?? null,
    explorer: view.explorer,
    pricesAt: pricesAt === undefined ? null : iso(pricesAt),
    strategies,
    wallets: walletStatuses(view, strategies).filter((wallet) => options.strategyId === undefined || wallet.strategies.includes(options.strategyId)),
  };
}

/** A strategy's chart series and trade table, for the status page. */
export function strategyDetail(ledger: Ledger, strategyId: string): { series: Series; trades: TradeRow[] } | undefined {
  const view = new LedgerView(ledger);
  const known = view.find(strategyId);
  if (!known) return undefined;
  const { series } = view.account(known);
  const trades = view
    .tradesOf(strategyId)
    .reverse()
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
