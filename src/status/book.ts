/**
 * What a status is computed from, kept up to date instead of read whole at every request. The first refresh reads
 * the ledger in pages (yielding between them); later ones read only what changed: trades by their update time,
 * runs after the last one seen, prices and balances after the last mark. Settled trades are folded into one tally
 * per strategy (a settled trade never changes again) and not kept; open trades are kept until they settle. Marks are
 * kept for a recent window only (the last of each token before it stays in force). So the book's size follows the
 * number of strategies and open trades, not the ledger's history. A daemon keeps one for its status page;
 * `routekeeper status` makes one, refreshes it once and reports.
 */
import type { PositionMark } from '../ledger/marks.ts';
import { type PositionTrack, foldPositionMark } from './position-track.ts';
import type { Address } from 'viem';
import type { BalanceMark, LedgerView, Pause, RunOutcome, RunRecord } from '../ledger/ledger.ts';
import type { Lease } from '../ledger/leases.ts';
import { markedAtKey, nativePriceKey } from '../engine/marker.ts';
import { TokenNames } from '../trade/describe.ts';
import type { TradeRecord } from '../model/trade.ts';
import { type Books, type Series, type StrategyAccount, accountFromTally, seriesOf } from './accounting.ts';
import type { Token } from './amounts.ts';
import { type KnownStrategy, knownStrategies } from './definitions.ts';
import { PriceBook } from './prices.ts';
import { type Tally, emptyTally, foldFailedRun, foldTrade, isSettled } from './tally.ts';

/** A trade's update time is the writer's clock: changes this much older than the newest seen are read again. */
const overlapMs = 60_000;
const pageSize = 2_000;
/** A run still going after this long was cut short by a stop or a crash: it stays interrupted and is not looked at again. */
const runsEndWithinMs = 60 * 60_000;
/** Price marks kept in memory: new trades are valued at recent marks. */
const marksKeptMs = 60 * 60_000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class StatusBook {
  readonly #ledger: LedgerView;
  strategies: KnownStrategy[] = [];
  names = new TokenNames([]);
  explorer: string | null = null;
  chainId: number | null = null;
  /** When the newest price was recorded, or last seen unchanged. */
  pricesAt: number | undefined;
  pauses: readonly Pause[] = [];
  /** Each wallet's lease as the database had it at the last refresh: which daemon holds it. */
  leases: readonly Lease[] = [];
  #prices = new PriceBook();
  /** Per wallet: the latest balance of each token, and the balances each rebalance strategy started from. */
  readonly #latestBalances = new Map<string, Map<string, BalanceMark>>();
  readonly #startBalances = new Map<string, { since: number; marks: BalanceMark[] }>();
  #native: Token = { address: nativePriceKey, symbol: 'native coin', decimals: 18 };
  #markedAt: number | undefined;
  /** Per V3 position strategy, its marks folded; and when the last one read was recorded. */
  readonly #positionTracks = new Map<string, PositionTrack>();
  /** Per V3 position strategy, its marks in order: the points of its value chart. */
  readonly #positionMarks = new Map<string, PositionMark[]>();
  #lastPositionMarkAt: number | undefined;

  readonly #tallies = new Map<string, Tally>();
  /** Trades not settled yet, by strategy, with the gas their mined transactions paid so far. */
  readonly #open = new Map<string, Map<string, TradeRecord>>();
  readonly #openGas = new Map<string, bigint>();
  /** Settled trades folded recently (their update time), so one read again in the overlap is not folded twice. */
  readonly #folded = new Map<string, number>();
  readonly #runCounts = new Map<string, Partial<Record<RunOutcome, number>>>();
  readonly #latestRuns = new Map<string, RunRecord>();
  /** Runs seen going: their outcome is counted once they finish. */
  readonly #goingRuns = new Map<number, RunRecord>();
  /** Per strategy, a number that rises whenever its trades or runs change; the marks' number for all of them. */
  readonly #versions = new Map<string, number>();
  #marksVersion = 0;
  readonly #accounts = new Map<string, { stamp: string; account: StrategyAccount }>();

  #tradesSeenUntil: number | undefined;
  #lastRunId = 0;
  #newestRunAt = Number.MIN_SAFE_INTEGER;
  #lastPriceAt: number | undefined;
  #lastBalanceAt: number | undefined;
  #strategiesStamp: string | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(ledger: LedgerView) {
    this.#ledger = ledger;
  }

  /** What accounting reads besides a strategy's trades, as of the last refresh (`gas`: of its open trades). */
  books: Books = this.#booksWith(this.#openGas);
  /** Each wallet's strategies (lower-case address), for the balances they started from. */
  #strategiesOf = new Map<string, string[]>();

  #booksWith(gas: ReadonlyMap<string, bigint>): Books {
    const names = this.names;
    return {
      prices: this.#prices,
      native: this.#native,
      gas,
      balances: (wallet) => this.#balancesOf(wallet),
      // A token no strategy named has unknown decimals; position tokens are 18-decimal like the LP tokens they stand for.
      token: (address) => names.get(address as Address) ?? { address, symbol: `${address.slice(0, 8)}…`, decimals: 18 },
      ...(this.#markedAt !== undefined && { markedAt: this.#markedAt }),
      positionTrack: (strategyId) => this.#positionTracks.get(strategyId),
      positionMarks: (strategyId) => this.#positionMarks.get(strategyId) ?? [],
    };
  }

  #balancesOf(wallet: string): BalanceMark[] {
    const key = wallet.toLowerCase();
    const starts = (this.#strategiesOf.get(key) ?? []).flatMap((id) => this.#startBalances.get(id)?.marks ?? []);
    return [...starts, ...(this.#latestBalances.get(key)?.values() ?? [])].sort((a, b) => a.at - b.at);
  }

  /** Brings the book up to what the ledger holds now; refreshes asked for while one runs share it. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refresh(): Promise<void> {
    const ledger = this.#ledger;
    const [stamp, tokenNames, nativeJson, explorer, marked, pauses, chain] = await Promise.all([
      ledger.strategies.stamp(),
      ledger.marks.tokenNames(),
      ledger.strategies.meta('native-token'),
      ledger.strategies.meta('explorer'),
      ledger.strategies.meta(markedAtKey),
      ledger.pauses.all(),
      ledger.chain(),
    ]);
    this.leases = await ledger.leases.all();
    if (stamp !== this.#strategiesStamp) {
      // A daemon started with other strategies (or changed ones): what was folded under the old ones is read again.
      if (this.#strategiesStamp !== undefined) this.#forgetTrades();
      this.strategies = knownStrategies(await ledger.strategies.all());
      this.#strategiesStamp = stamp;
      this.#strategiesOf = new Map();
      for (const known of this.strategies) {
        const ids = this.#strategiesOf.get(known.wallet.toLowerCase()) ?? [];
        ids.push(known.strategy.id);
        this.#strategiesOf.set(known.wallet.toLowerCase(), ids);
      }
    }
    this.names = new TokenNames(tokenNames);
    if (nativeJson) this.#native = JSON.parse(nativeJson) as Token;
    this.explorer = explorer || null;
    this.chainId = chain?.chainId ?? null;
    this.pauses = pauses;
    await this.#refreshMarks(marked === undefined ? undefined : Number(marked));
    await this.#refreshTrades();
    await this.#refreshRuns();
    await this.#refreshStarts();
    // Marks older than the window go, unless an open trade is older still: it is valued at its own time once it settles.
    const oldestOpen = Math.min(...[...this.#open.values()].flatMap((open) => [...open.values()].map((trade) => trade.createdAt)));
    this.#prices.forget(Math.min((this.#lastPriceAt ?? 0) - marksKeptMs, oldestOpen));
    this.books = this.#booksWith(this.#openGas);
  }

  #forgetTrades(): void {
    for (const kept of [
      this.#tallies,
      this.#open,
      this.#openGas,
      this.#folded,
      this.#runCounts,
      this.#latestRuns,
      this.#goingRuns,
      this.#startBalances,
      this.#accounts,
    ])
      kept.clear();
    this.#tradesSeenUntil = undefined;
    this.#lastRunId = 0;
    this.#newestRunAt = Number.MIN_SAFE_INTEGER;
    // Folding again values old trades at their own time: the marks are read again too.
    this.#prices = new PriceBook();
    this.#lastPriceAt = undefined;
  }

  async #refreshMarks(markedAt: number | undefined): Promise<void> {
    const prices = await this.#ledger.marks.prices(this.#lastPriceAt);
    const balances = await this.#ledger.marks.balances(this.#lastBalanceAt);
    this.#prices.add(prices);
    if (prices.length > 0) this.#lastPriceAt = (prices.at(-1) as (typeof prices)[number]).at;
    for (const [wallet, marks] of balances) {
      const latest = this.#latestBalances.get(wallet) ?? new Map<string, BalanceMark>();
      for (const mark of marks) latest.set(mark.token.toLowerCase(), mark);
      this.#latestBalances.set(wallet, latest);
      this.#lastBalanceAt = Math.max(this.#lastBalanceAt ?? 0, (marks.at(-1) as BalanceMark).at);
    }
    const positionMarks = await this.#ledger.marks.positionMarks(this.#lastPositionMarkAt);
    for (const mark of positionMarks) {
      this.#positionTracks.set(mark.strategyId, foldPositionMark(this.#positionTracks.get(mark.strategyId), mark));
      this.#positionMarks.set(mark.strategyId, [...(this.#positionMarks.get(mark.strategyId) ?? []), mark]);
      this.#lastPositionMarkAt = Math.max(this.#lastPositionMarkAt ?? mark.at, mark.at);
    }
    if (prices.length > 0 || balances.size > 0 || positionMarks.length > 0 || markedAt !== this.#markedAt) this.#marksVersion++;
    this.#markedAt = markedAt;
    this.pricesAt = markedAt ?? this.#lastPriceAt;
  }

  async #refreshTrades(): Promise<void> {
    const since = this.#tradesSeenUntil === undefined ? Number.MIN_SAFE_INTEGER : this.#tradesSeenUntil - overlapMs;
    const strategies = new Map(this.strategies.map((known) => [known.strategy.id, known.strategy]));
    let after: { updatedAt: number; id: string } | undefined;
    for (;;) {
      const page = await this.#ledger.trades.changedSince(since, pageSize, after);
      if (page.length === 0) break;
      const books = this.#booksWith(await this.#ledger.attempts.gasOf(page.map((trade) => trade.id)));
      for (const trade of page) {
        this.#tradesSeenUntil = Math.max(this.#tradesSeenUntil ?? trade.updatedAt, trade.updatedAt);
        const open = this.#open.get(trade.strategyId) ?? new Map<string, TradeRecord>();
        this.#open.set(trade.strategyId, open);
        this.#bump(trade.strategyId);
        if (!isSettled(trade)) {
          open.set(trade.id, trade);
          this.#openGas.set(trade.id, books.gas.get(trade.id) ?? 0n);
          continue;
        }
        open.delete(trade.id);
        this.#openGas.delete(trade.id);
        const strategy = strategies.get(trade.strategyId);
        if (!strategy || this.#folded.has(trade.id)) continue;
        foldTrade(this.#tallyOf(trade.strategyId), strategy, trade, books);
        this.#folded.set(trade.id, trade.updatedAt);
      }
      const last = page.at(-1) as TradeRecord;
      after = { updatedAt: last.updatedAt, id: last.id };
      if (page.length < pageSize) break;
      await yieldToLoop();
    }
    // A settled trade older than the overlap is never read again: it need not be remembered.
    for (const [id, updatedAt] of this.#folded) if (updatedAt < (this.#tradesSeenUntil ?? 0) - overlapMs) this.#folded.delete(id);
  }

  async #refreshRuns(): Promise<void> {
    // Runs seen going, as they are now; then the new ones, a page at a time. One that started long before the newest
    // was cut short by a stop or a crash: it stays interrupted and is not looked at again.
    for (const [id, run] of this.#goingRuns) if (run.startedAt < this.#newestRunAt - runsEndWithinMs) this.#goingRuns.delete(id);
    this.#countRuns(await this.#ledger.runs.byIds([...this.#goingRuns.keys()]));
    for (;;) {
      const page = await this.#ledger.runs.since(this.#lastRunId, pageSize);
      this.#countRuns(page);
      if (page.length < pageSize) break;
      await yieldToLoop();
    }
  }

  #countRuns(runs: readonly RunRecord[]): void {
    for (const run of runs) {
      const counts = this.#runCounts.get(run.strategyId) ?? {};
      if (this.#goingRuns.delete(run.id)) counts.interrupted = (counts.interrupted ?? 1) - 1;
      const outcome = run.outcome ?? 'interrupted';
      counts[outcome] = (counts[outcome] ?? 0) + 1;
      this.#runCounts.set(run.strategyId, counts);
      this.#newestRunAt = Math.max(this.#newestRunAt, run.startedAt);
      if (run.outcome === undefined) this.#goingRuns.set(run.id, run);
      if ((this.#latestRuns.get(run.strategyId)?.id ?? -1) <= run.id) this.#latestRuns.set(run.strategyId, run);
      if (run.outcome === 'error' && run.note !== undefined) foldFailedRun(this.#tallyOf(run.strategyId), run.note);
      this.#lastRunId = Math.max(this.#lastRunId, run.id);
      this.#bump(run.strategyId);
    }
  }

  /** The balances each rebalance strategy started from: read once its first trade is known. */
  async #refreshStarts(): Promise<void> {
    for (const known of this.strategies) {
      const { strategy } = known;
      if (strategy.kind !== 'rebalance') continue;
      const tally = this.#tallies.get(strategy.id);
      const openTimes = [...(this.#open.get(strategy.id)?.values() ?? [])].map((trade) => trade.createdAt);
      const since = tally?.firstSwapAt ?? Math.min(tally?.firstAt ?? Number.POSITIVE_INFINITY, ...openTimes);
      if (!Number.isFinite(since) || this.#startBalances.get(strategy.id)?.since === since) continue;
      const tokens = [...new Set([...strategy.targets.map((target) => target.token.address), strategy.quote.address])];
      const marks = await Promise.all(tokens.map((token) => this.#ledger.marks.balanceAt(known.wallet, token, since)));
      this.#startBalances.set(strategy.id, { since, marks: marks.filter((mark) => mark !== undefined) });
      this.#bump(strategy.id);
    }
  }

  #tallyOf(strategyId: string): Tally {
    let tally = this.#tallies.get(strategyId);
    if (!tally) {
      tally = emptyTally();
      this.#tallies.set(strategyId, tally);
    }
    return tally;
  }

  #bump(strategyId: string): void {
    this.#versions.set(strategyId, (this.#versions.get(strategyId) ?? 0) + 1);
  }

  /** A strategy's runs by outcome. */
  runCounts(strategyId: string): Partial<Record<RunOutcome, number>> {
    return Object.fromEntries(Object.entries(this.#runCounts.get(strategyId) ?? {}).filter(([, count]) => count > 0));
  }

  lastRun(strategyId: string): RunRecord | undefined {
    return this.#latestRuns.get(strategyId);
  }

  /** The pauses that stop this strategy's trades from this wallet. */
  pausesFor(strategyId: string, wallet: string): Pause[] {
    return this.pauses.filter((pause) => (pause.scope === 'strategy' ? pause.key === strategyId : pause.key === wallet.toLowerCase()));
  }

  /** A strategy's figures (no series), kept until its trades, its runs or the marks change. */
  account(known: KnownStrategy): StrategyAccount {
    const id = known.strategy.id;
    const stamp = `${this.#versions.get(id) ?? 0}:${this.#marksVersion}`;
    const kept = this.#accounts.get(id);
    if (kept?.stamp === stamp) return kept.account;
    const open = [...(this.#open.get(id)?.values() ?? [])].sort((a, b) => a.createdAt - b.createdAt);
    const account = accountFromTally(known.strategy, this.#tallies.get(id) ?? emptyTally(), open, known.wallet, this.books);
    this.#accounts.set(id, { stamp, account });
    return account;
  }

  /**
   * A strategy's chart series and its trades, newest first: read from the ledger for this one strategy, with every
   * price and balance mark (a chart spans the strategy's whole history).
   */
  async detail(known: KnownStrategy): Promise<{ series: Series; trades: TradeRecord[] }> {
    const [trades, prices, balances] = await Promise.all([
      this.#ledger.trades.all(known.strategy.id),
      this.#ledger.marks.prices(),
      this.#ledger.marks.balances(),
    ]);
    const gas = await this.#ledger.attempts.gasOf(trades.map((trade) => trade.id));
    const books = { ...this.#booksWith(gas), prices: new PriceBook(prices), balances: (wallet: string) => balances.get(wallet.toLowerCase()) ?? [] };
    return { series: seriesOf(known.strategy, trades, known.wallet, books), trades: trades.toReversed() };
  }

  find(strategyId: string): KnownStrategy | undefined {
    return this.strategies.find((known) => known.strategy.id === strategyId);
  }
}

/** Yields to the event loop now and then while working through many items, so no run waits long behind a report. */
export async function inSlices<T, R>(items: readonly T[], work: (item: T) => R, sliceMs = 10): Promise<R[]> {
  const results: R[] = [];
  let sliceStart = performance.now();
  for (const item of items) {
    results.push(work(item));
    if (performance.now() - sliceStart > sliceMs) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return results;
}
