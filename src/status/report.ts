/**
 * The status of every strategy and wallet, read from a ledger alone: `routekeeper status --json` prints it and
 * the status page's `/api/status` serves it (from a StatusBook the daemon keeps up to date), so both always say the same. Its shape is documented in docs/status-api.md
 * (`version` changes when a field changes meaning or goes away).
 */
import type { LedgerView, Pause, RunOutcome, RunRecord } from '../ledger/ledger.ts';
import { nextSlot, plannedStart } from '../strategy/slots.ts';
import { strategyInWords } from '../strategy/plan.ts';
import type { Strategy } from '../strategy/types.ts';
import { describeTrade } from '../trade/describe.ts';
import type { CommonAccount, CompoundAccount, DcaAccount, LimitAccount, PositionAccount, RebalanceAccount, Series } from './accounting.ts';
import { type AmountJson, type Token, amountJson } from './amounts.ts';
import { StatusBook, inSlices } from './book.ts';
import type { KnownStrategy } from './definitions.ts';

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
} & CommonAccount & { dca?: DcaAccount; rebalance?: RebalanceAccount; limit?: LimitAccount; compound?: CompoundAccount; position?: PositionAccount };

export type WalletStatus = {
  name: string;
  address: string;
  paused: PauseJson | null;
  strategies: string[];
  /** The latest recorded balances of the tokens its strategies touch, with their USD value when priced. */
  holdings: { amount: AmountJson; usd: string | null }[];
  /** What its holdings with a price are worth, in USD; `unpriced`: how many holdings have none (not in the sum). */
  valueUsd: string | null;
  unpriced: number;
  gas: AmountJson;
  trades: number;
  /** The daemon that holds (or last held) the wallet's lease, its epoch, until when, and whether it holds it now. */
  lease: { holder: string; epoch: number; until: string; held: boolean } | null;
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
const pauseJson = (pause: Pause | undefined): PauseJson | null =>
  pause ? { scope: pause.scope, key: pause.key, reason: pause.reason, since: iso(pause.pausedAt) } : null;
const usdToken: Token = { address: 'usd', symbol: 'USD', decimals: 18 };

/** A book kept up to date (the daemon's), refreshed; or a ledger read once into a new one (`routekeeper status`). */
async function bookOf(source: LedgerView | StatusBook): Promise<StatusBook> {
  const book = source instanceof StatusBook ? source : new StatusBook(source);
  await book.refresh();
  return book;
}

function lastRunOf(run: RunRecord | undefined): RunJson | null {
  return run ? { startedAt: iso(run.startedAt), slot: run.slot, outcome: run.outcome ?? 'interrupted', note: run.note ?? null } : null;
}

export function strategyStatus(view: StatusBook, known: KnownStrategy, now: number): StrategyStatus {
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
    ...(account.kind === 'uniswap-v3-position' && { position: account.position }),
  };
}

function walletStatuses(view: StatusBook, strategies: readonly StrategyStatus[], now: number): WalletStatus[] {
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
    // The holdings with a price, summed; those without one are counted beside the sum, not allowed to blank it.
    const priced = [...latest].map(([token, balance]) => view.books.prices.usd(balance, view.books.token(token)));
    const known = priced.filter((usd): usd is bigint => usd !== undefined);
    const valueUsd =
      known.length > 0
        ? amountJson(
            known.reduce((a, b) => a + b, 0n),
            usdToken,
          ).amount
        : null;
    const unpriced = priced.length - known.length;
    const mine = strategies.filter((strategy) => strategy.wallet.address === wallet.address);
    const gas = mine.reduce((total, strategy) => total + BigInt(strategy.gas.native.raw), 0n);
    const lease = view.leases.find((held) => held.wallet === wallet.address.toLowerCase());
    return {
      ...wallet,
      paused: pauseJson(walletPauses.find((pause) => pause.key === wallet.address.toLowerCase())),
      holdings,
      valueUsd,
      unpriced,
      gas: amountJson(gas, view.books.native),
      trades: mine.reduce((total, strategy) => total + strategy.trades.confirmed, 0),
      lease: lease ? { holder: lease.holder, epoch: lease.epoch, until: iso(lease.expiresAt), held: lease.expiresAt > now } : null,
    };
  });
}

/** The status of every strategy the ledger describes (or only `strategyId`'s), and of their wallets. */
export async function statusReport(source: LedgerView | StatusBook, options: { strategyId?: string; now?: number } = {}): Promise<StatusReport> {
  const view = await bookOf(source);
  const now = options.now ?? Date.now();
  const chosen = view.strategies.filter((known) => options.strategyId === undefined || known.strategy.id === options.strategyId);
  // Strategy by strategy, letting runs go on between them: a daemon serves this while it trades.
  const strategies = await inSlices(chosen, (known) => strategyStatus(view, known, now));
  const pricesAt = view.pricesAt;
  return {
    version: statusVersion,
    generatedAt: iso(now),
    chainId: view.chainId,
    explorer: view.explorer,
    pricesAt: pricesAt === undefined ? null : iso(pricesAt),
    strategies,
    wallets: walletStatuses(view, strategies, now).filter((wallet) => options.strategyId === undefined || wallet.strategies.includes(options.strategyId)),
  };
}

/** A strategy's chart series and trade table, for the status page. */
export async function strategyDetail(source: LedgerView | StatusBook, strategyId: string): Promise<{ series: Series; trades: TradeRow[] } | undefined> {
  const view = await bookOf(source);
  const known = view.find(strategyId);
  if (!known) return undefined;
  const detail = await view.detail(known);
  const trades = detail.trades.map((trade) => {
    const txHash = trade.settlement?.txHash ?? null;
    const text = describeTrade(
      {
        trade,
        status: trade.status,
        reason: trade.anomaly ?? trade.failure?.reason,
        expectedOut: trade.call?.expectedOut,
        minOut: trade.call?.minOut,
        amountOut: trade.settlement?.amountOut,
        moved: trade.settlement?.position,
      },
      view.names,
    );
    return {
      at: iso(trade.createdAt),
      id: trade.id,
      kind: trade.kind,
      status: trade.status,
      text,
      txHash,
      link: txHash && view.explorer ? explorerLink(view.explorer, txHash) : null,
    };
  });
  return { series: detail.series, trades };
}

/**
 * A transaction's page on the block explorer, only at an https: explorer: the explorer is read back from the
 * ledger, which is no more trusted than anything else a page shows (a `javascript:` link would run in the page).
 */
export function explorerLink(explorer: string, txHash: string): string | null {
  let url: URL;
  try {
    url = new URL(explorer);
  } catch {
    return null;
  }
  return url.protocol === 'https:' ? `${explorer.replace(/\/$/, '')}/tx/${txHash}` : null;
}
