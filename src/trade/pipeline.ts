/**
 * One trade, end to end, as named stages:
 *
 *   claim → quote → check → approve → sign → broadcast → follow → settle
 *
 * Each stage advances the trade's state in the ledger. A run that stops midway (a stop, a crash, a node that
 * does not answer) is a stored state, and `resumeTrade` continues it through the same stages: before `signed`
 * it quotes and checks anew; from `signed` on it only ever broadcasts the stored bytes and follows them, so
 * nothing new is signed for a slot whose fate is not known. Every run returns a typed report, failures included.
 */
import { type Address, type Hex, type TransactionReceipt, isAddressEqual } from 'viem';
import { getBlock, getTransactionReceipt } from 'viem/actions';
import { broadcast } from '../chain/broadcast.ts';
import { follow } from '../chain/follower.ts';
import { isOpenAttempt } from '../chain/journal.ts';
import { readReceiptBlocks } from '../chain/evidence.ts';
import { KeyUsedElsewhereError, StoredRecordRefusedError, TransactionRevertedError } from '../chain/errors.ts';
import { TransactionRejectedError } from '../chain/node-errors.ts';
import type { Mined, Wallet } from '../chain/wallet.ts';
import { RoutekeeperError } from '../errors.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';
import { LeaseLostError } from '../ledger/leases.ts';
import type { Pause, TradeReads } from '../ledger/ledger.ts';
import type { Attempt } from '../model/attempt.ts';
import { PausedError } from '../ledger/pauses.ts';
import type { WalletRows } from '../ledger/trades.ts';
import { afterGrace, isAbort, stopGraceMs, throwIfAborted } from '../ops/abort.ts';
import type { RoutingClient } from '../routing-client/client.ts';
import type { CheckContext, Checked } from './check-types.ts';
import { budgetsApply, checkBudgets } from './budgets.ts';
import { checkTrade } from './check-trade.ts';
import type { RefusedBy } from './check-runner.ts';
import { recheck } from './recheck.ts';
import { type Proposal, type SharedQuotes, quote } from './quote.ts';
import type { ExecutionSettings, TradeBudgets } from './settings.ts';
import { type SettlementReads, settle } from './settle.ts';
import { readBalances } from './balances.ts';
import { approvalTxs, signTrade } from './sign.ts';
import type { SignedHistory } from './signed-history.ts';
import { WalletHistory, pastTradesOf } from './wallet-history.ts';
import { type StrategyFit, authorizeStoredTrade, authorizedCall } from './stored.ts';
import { failureClassOf } from './classify-failure.ts';
import type { TradeRecorder } from './recorder.ts';
import { type Trade, type TradeRecord, type TradeReport, openStates, presignStates } from '../model/trade.ts';

export type PipelineDeps = {
  /** What the pipeline reads back of the ledger. */
  reads: TradeReads;
  /** The one writer of a trade's record (one per ledger: the wallets' journals write through it too). */
  recorder: TradeRecorder;
  routing: RoutingClient;
  routes: CheckContext['routes'];
  prices: CheckContext['prices'];
  wallet: Wallet;
  settings: ExecutionSettings;
  budgets?: TradeBudgets;
  /** A strategy's own price tolerance, when it has one (else settings.maxPriceDeviationBps). */
  priceTolerance?: (strategyId: string) => number | undefined;
  /** The ERC20 that is also the native coin (CELO on Celo), for the balance check after a trade. */
  nativeToken?: Address;
  /** Identical quotes within a block, asked once for every wallet of the process. */
  sharedQuotes?: SharedQuotes;
  /** Whether a trade read back from the ledger fits a strategy of the current file (none: not checked). */
  fits?: StrategyFit;
  /** The wallet's signed history, proven before each signature (signed-history.ts). */
  history: SignedHistory;
  /**
   * Why a trade read back before it was signed is no longer asked for by its strategy, decided again now (none: not
   * decided again; engine/still-asked.ts).
   */
  stillAsked?: (trade: TradeRecord) => Promise<string | undefined>;
};

/** How many other routes a trade asks for, each without the pools refused before it, once its first is refused for a pool's state. */
const otherRoutesAsked = 2;

export const intentIdOf = (strategyId: string, slot: string) => `${strategyId}:${slot}`;

const askedOf = (trade: Trade): TradeReport['trade'] => ({ kind: trade.kind, tokenIn: trade.tokenIn, tokenOut: trade.tokenOut, amountIn: trade.amountIn });

/**
 * Claims the trade's slot and runs it; `skipped` when the slot already has its trade. `avoidPools`: pools its route
 * must not use from its first quote (the other routes of an order split in one block: engine/worked-order.ts); a
 * trade resumed later asks without them, and is checked as any.
 */
export async function runTrade(
  deps: PipelineDeps,
  trade: Trade,
  signal?: AbortSignal,
  runId?: number,
  options: { avoidPools?: readonly Address[] } = {},
): Promise<TradeReport> {
  const now = Date.now();
  const claimed = await deps.recorder.claim(trade, { runId, now, requestTag: await deps.wallet.tags.request(trade, now) });
  if (!claimed)
    return { intentId: trade.id, trade: askedOf(trade), status: 'skipped', reason: `slot ${trade.slot} of ${trade.strategyId} already ran`, stages: [] };
  return advance(deps, claimed.record, signal, undefined, {
    claimedNow: { paused: claimed.paused },
    ...(options.avoidPools && { avoidPools: options.avoidPools }),
  });
}

/**
 * Continues a trade from the state the ledger holds (after a restart, or to settle an `unknown` one).
 * `followForMs` bounds how long its transactions are followed this time (default: the wallet's `giveUpAfterMs`).
 */
export function resumeTrade(deps: PipelineDeps, record: TradeRecord, signal?: AbortSignal, options: { followForMs?: number } = {}): Promise<TradeReport> {
  return advance(deps, record, signal, options.followForMs);
}

/**
 * Resumes every unfinished trade of the deps' wallet on its chain: those with transactions out by nonce, then the rest
 * oldest first. The wallet's rows are read as its history reads them (its `wallet` column, or a transaction of the
 * wallet naming the trade: a row moved to another wallet is still found), and each is authorized by its tags before
 * anything is done for it. A state moved to a final one only stops a trade: what it signed stays counted.
 */
export async function resumeOpenTrades(deps: PipelineDeps, signal?: AbortSignal): Promise<TradeReport[]> {
  const reports: TradeReport[] = [];
  const rows = pastTradesOf(await deps.reads.trades.walletRows(deps.wallet.address, deps.wallet.chainId));
  const unfinished = rows.filter(({ record }) => openStates.includes(record.status)).map(({ record }) => record);
  const mine = await inNonceOrder(deps.reads, unfinished);
  for (const record of mine) {
    throwIfAborted(signal);
    await deps.recorder.resumed(record);
    reports.push(await resumeTrade(deps, record, signal));
  }
  return reports;
}

/**
 * Trades with transactions out, by their lowest open nonce, then the rest as made. A wallet's transactions mine in
 * nonce order and each trade is followed to its end before the next is resumed: a trade made first may hold a later
 * nonce than one made after it (quoted sooner, it signed later), and followed first it would wait behind bytes not
 * yet sent again. The order decides nothing else: each trade is still proven before anything is sent.
 */
async function inNonceOrder(ledger: TradeReads, records: readonly TradeRecord[]): Promise<TradeRecord[]> {
  const lowestOpen = await Promise.all(
    records.map(async (record) => Math.min(...(await ledger.attempts.ofTrade(record.id)).filter(isOpenAttempt).map((attempt) => attempt.nonce))),
  );
  return records
    .map((record, i) => ({ record, nonce: lowestOpen[i] as number }))
    .sort((a, b) => (a.nonce === b.nonce ? 0 : a.nonce < b.nonce ? -1 : 1))
    .map(({ record }) => record);
}

/** A paused strategy or wallet, as the refusal that stops its trade. */
const pausedRefusal = (pause: Pause) =>
  new GuardRefusal('paused', `the ${pause.scope} ${pause.key} is paused (${pause.reason}); lift it with \`routekeeper resume\``);

/**
 * `claimedNow`: the trade was claimed by this run a moment ago, and the claim said whether it is paused: it has no
 * attempts yet, and neither is read again (the pause is checked once more as the trade is committed).
 */
async function advance(
  deps: PipelineDeps,
  record: TradeRecord,
  signal?: AbortSignal,
  followForMs?: number,
  options: { claimedNow?: { paused: boolean }; avoidPools?: readonly Address[] } = {},
): Promise<TradeReport> {
  const { reads: ledger, recorder, wallet } = deps;
  const report: TradeReport = { intentId: record.id, trade: askedOf(record), status: record.status, stages: [] };
  const stage = async <T>(name: string, work: () => Promise<T> | T, stopOn = signal): Promise<T> => {
    throwIfAborted(stopOn);
    const started = performance.now();
    try {
      const result = await work();
      report.stages.push({ stage: name, ms: performance.now() - started, ok: true });
      return result;
    } catch (error) {
      report.stages.push({ stage: name, ms: performance.now() - started, ok: false });
      throw error;
    }
  };

  try {
    const attempts = options.claimedNow ? [] : await ledger.attempts.ofTrade(record.id);
    // Read back from the ledger: only the wallet's own tags, the strategy file and the chain may justify going on.
    if (!options.claimedNow)
      await stage('authorize', () => authorizeStoredTrade(wallet, record, attempts, { approvals: deps.settings.approvals, fits: deps.fits }));
    if (!attempts.some((a) => a.purpose !== 'approve' || isOpenAttempt(a)) && presignStates.includes(record.status)) {
      if (!options.claimedNow && Date.now() - record.createdAt > deps.settings.resumeWithinMs) {
        const reason = `interrupted before it was signed, and not resumed after ${Math.round(deps.settings.resumeWithinMs / 60_000)} min; nothing was traded`;
        await recorder.failed(record.id, { reason, errorClass: 'interrupted', retryable: false });
        return { ...report, status: 'failed', reason };
      }
      // After an anomaly, the strategy and the wallet sign nothing new until a person looks (`routekeeper resume`).
      if (options.claimedNow?.paused !== false) {
        const pause = (await ledger.pauses.for(record.strategyId, record.wallet))[0];
        if (pause) throw pausedRefusal(pause);
      }
      // Read back: what it asks was decided when it was claimed; it goes on only if its strategy decides it again now.
      if (!options.claimedNow && deps.stillAsked) {
        const stillAsked = deps.stillAsked;
        const why = await stage('decide again', () => stillAsked(record));
        if (why !== undefined) throw new GuardRefusal('strategy-file', `trade ${record.id}: ${why}; it is not resumed`);
      }
      const avoidFirst = options.avoidPools ?? [];
      const quoteAvoiding = (refused: readonly Address[]) => {
        const avoid = [...avoidFirst, ...refused];
        return stage('quote', () =>
          deps.sharedQuotes ? deps.sharedQuotes.quote(deps.routing, record, signal, avoid) : quote(deps.routing, record, signal, avoid),
        );
      };
      let proposal = await quoteAvoiding([]);
      const context: CheckContext = {
        wallet,
        routes: deps.routes,
        prices: deps.prices,
        settings: deps.settings,
        budgets: deps.budgets ?? {},
        priceToleranceBps: deps.priceTolerance?.(record.strategyId) ?? deps.settings.maxPriceDeviationBps,
        signal,
      };
      /**
       * The checked call, in the report and in the ledger. The budgets are checked in the same database transaction
       * as the move to `checked`, which commits the amount: no other trade commits in between.
       */
      const verify = budgetsApply(context.budgets, record)
        ? async (rows: WalletRows) => checkBudgets(context.budgets, record, await WalletHistory.read(rows, wallet))
        : undefined;
      const recordChecked = async (checked: Checked, status: 'checked' | 'dry-run') => {
        Object.assign(report, {
          expectedOut: checked.call.expectedOut,
          referenceOut: checked.call.referenceOut,
          minOut: checked.call.minOut,
          simulatedOut: checked.simulatedOut,
          checks: checked.passed,
        });
        try {
          const callTag = await wallet.tags.call(record.id, checked.call);
          await recorder.checked(record.id, { call: checked.call, callTag, simulatedOut: checked.simulatedOut, status, verify });
        } catch (error) {
          throw error instanceof PausedError ? pausedRefusal(error.pause) : error;
        }
      };
      const signingsAtCheck = wallet.signings;
      let checked: Checked;
      ({ checked, proposal } = await checkAvoidingRefusedPools(
        deps,
        record,
        proposal,
        (current) => stage('check', () => checkTrade(context, record, current)),
        quoteAvoiding,
      ));
      await recordChecked(checked, deps.settings.dryRun ? 'dry-run' : 'checked');
      if (deps.settings.dryRun) return { ...report, status: 'dry-run' };
      const signed = await wallet.exclusive(async () => {
        // Runs of one wallet check side by side, each simulated after the wallet's transactions then in flight; if
        // another of its trades was signed meanwhile, the chain this one was checked on is not the one it will meet:
        // check again, after every transaction signed so far. (Only signing waits here: sending and following do not.)
        if (wallet.signings !== signingsAtCheck) {
          checked = await stage('check', () => checkTrade(context, record, proposal));
          await recordChecked(checked, 'checked');
        }
        if (checked.gas.trade === undefined) {
          // A node without eth_simulateV1 cannot simulate the trade before its approval exists: approve first,
          // then check again (the simulation included) before the trade is signed.
          await stage('approve', () => approveFirst(deps, { ...record, call: checked.call }, checked, signal));
          checked = await stage('check', () => checkTrade(context, record, proposal));
          report.simulatedOut = checked.simulatedOut;
          if (checked.simulatedOut !== undefined) await recorder.simulated(record.id, checked.simulatedOut);
        }
        return stage('sign', async () => signTrade(wallet, record, checked, await deps.history.beforeSigning(record.id, checked.reads.pendingNonce)));
      });
      return await finish(deps, { ...record, status: 'signed', call: checked.call }, signed, report, stage, signal, followForMs);
    }
    return await finish(
      deps,
      record,
      attempts.filter((a) => a.status === 'signed'),
      report,
      stage,
      signal,
      followForMs,
    );
  } catch (error) {
    return { ...report, ...(await recordFailure(deps, record, error)) };
  }
}

type Stage = <T>(name: string, work: () => Promise<T> | T, stopOn?: AbortSignal) => Promise<T>;

/**
 * The proposal checked; a route refused because of one pool's state now (closed, past a limit, moved, with nothing to
 * price it) is asked for again without that pool, a few times: the next best route, checked as fully, rather than
 * nothing. Each refused route is an event of the trade; the last refusal stands when no route passes or none is given.
 */
async function checkAvoidingRefusedPools(
  { recorder }: PipelineDeps,
  record: TradeRecord,
  first: Proposal,
  checkProposal: (proposal: Proposal) => Promise<Checked>,
  quoteAvoiding: (avoid: readonly Address[]) => Promise<Proposal>,
): Promise<{ checked: Checked; proposal: Proposal }> {
  const avoided: Address[] = [];
  for (let proposal = first; ; ) {
    try {
      return { checked: await checkProposal(proposal), proposal };
    } catch (error) {
      const venue = error instanceof GuardRefusal ? error.venue : undefined;
      if (!venue || avoided.length >= otherRoutesAsked || avoided.some((pool) => isAddressEqual(pool, venue))) throw error;
      const refusal = error as GuardRefusal;
      await recorder.routeRefused(record.id, { reason: refusal.reason, venue, field: refusal.field, why: refusal.shortMessage });
      avoided.push(venue);
      proposal = await quoteAvoiding(avoided).catch((quoteError: unknown) => {
        if (isAbort(quoteError)) throw quoteError;
        throw error;
      });
    }
  }
}

/** broadcast → follow → settle, for freshly signed attempts or for those a previous run left open. */
async function finish(
  deps: PipelineDeps,
  record: TradeRecord,
  unsent: Attempt[],
  report: TradeReport,
  stage: Stage,
  stopSignal?: AbortSignal,
  followForMs?: number,
): Promise<TradeReport> {
  const { reads: ledger, recorder, wallet } = deps;
  // Transactions are out (or about to be): a stop lets them settle for a moment, then leaves them to the next start.
  const signal = afterGrace(stopSignal, stopGraceMs);
  // From here the bytes may be in a mempool: the trade is `broadcast` before they leave, like its attempts.
  if (record.status === 'signed' || (await ledger.trades.get(record.id))?.status === 'signed') await recorder.sending(record.id, wallet.fence());
  const receipts =
    unsent.length > 0 ? await stage('broadcast', () => sendOrFillNonce(deps, record, unsent, signal), signal) : new Map<Hex, TransactionReceipt>();
  const readAhead = readSettlementAhead(wallet, record, unsent, receipts);
  const call = record.call;
  const mined = await stage(
    'follow',
    async () =>
      (await follow(wallet, {
        intentId: record.id,
        deadline: call?.deadline,
        // A replacement is a new signature: the checks that can change with time run again first.
        recheck: call
          ? () =>
              recheck(
                { wallet, settings: deps.settings, routes: deps.routes, prices: deps.prices, priceToleranceBps: deps.priceTolerance?.(record.strategyId) },
                record,
                call,
              )
          : undefined,
        receipts,
        receiptBlocks: readAhead?.blocks,
        giveUpAfterMs: followForMs,
        authorize: (attempt) => authorizedCall(wallet, record, attempt, deps.settings.approvals),
        signal,
      })) ?? (await adoptSettled(deps, record)),
    signal,
  );
  if (!mined) {
    const reason = 'the node took none of its transactions; nothing was traded';
    await recorder.failed(record.id, { reason, errorClass: 'rejected', retryable: false });
    return { ...report, status: 'failed', reason };
  }
  return { ...report, ...(await stage('settle', () => settle(deps, record, mined, { nativeToken: deps.nativeToken, readAhead }), signal)) };
}

/**
 * Broadcasts the trade's transactions. The node may refuse one (fees, funds): it is dropped, and its nonce stays
 * unused. When a later transaction of the wallet is in flight, it could never mine past that hole: the nonce is
 * filled at once with a cancellation (a zero-value transfer to ourselves) under this trade, and the trade follows it
 * like any other; its settlement says it was cancelled. The later transactions are never signed again: each may still
 * mine on its own nonce. A cancellation the node refuses too is sent again while its nonce is followed.
 */
async function sendOrFillNonce(
  { wallet, reads: ledger, recorder }: PipelineDeps,
  record: TradeRecord,
  attempts: Attempt[],
  signal?: AbortSignal,
): Promise<Map<Hex, TransactionReceipt>> {
  try {
    return await broadcast(wallet, attempts, { signal });
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
    const dropped = [...new Set((await ledger.attempts.ofTrade(record.id)).filter((a) => a.status === 'dropped').map((a) => a.nonce))];
    const fillers = await wallet.exclusive(async () => {
      // Inside the wallet's signing turn: no nonce is handed out while we look.
      for (const nonce of dropped) wallet.settled(nonce);
      const holes = dropped.filter((nonce) => wallet.inFlightAbove(nonce));
      if (holes.length === 0) return [];
      const fees = wallet.fees.capped(await currentFees(wallet));
      return wallet.sign(
        record.id,
        holes.map((nonce) => ({ to: wallet.address, data: '0x', value: 0n, purpose: 'cancel' as const, nonce, gas: 21_000n, fees })),
      );
    });
    if (fillers.length === 0) throw error;
    for (const filler of fillers) await recorder.nonceFilled(record.id, filler, error.shortMessage);
    return broadcast(wallet, fillers, { stage: 'cancelled', signal });
  }
}

/** The fees a transaction would be signed with now, from the latest block and the node's tip. */
async function currentFees(wallet: Wallet) {
  const [block, tip] = await Promise.all([getBlock(wallet.client, { blockTag: 'latest' }), wallet.client.request({ method: 'eth_maxPriorityFeePerGas' })]);
  return wallet.fees.fromBlock(block.baseFeePerGas ?? 0n, BigInt(tip));
}

/**
 * A send whose answer was the trade's receipt: the blocks that judge the receipts in hand and the balances the
 * settlement compares are read at once, in one round trip (the third of a trade, after the checks and the send).
 */
function readSettlementAhead(
  wallet: Wallet,
  record: TradeRecord,
  sent: Attempt[],
  receipts: ReadonlyMap<Hex, TransactionReceipt>,
): SettlementReads | undefined {
  const trade = sent.find((attempt) => attempt.purpose === 'trade');
  const receipt = trade && receipts.get(trade.hash);
  if (receipt?.status !== 'success') return undefined;
  const blocks = readReceiptBlocks(wallet.client, receipts.values(), wallet.settings.confirmations);
  const balances = readBalances(wallet.client, record, receipt.blockNumber);
  // Either may go unused (the receipt not confirmed after all): never an unhandled rejection.
  blocks.catch(() => {});
  balances.catch(() => {});
  return { receipt, blocks, balances, receipts };
}

/** Signs, sends and follows the approvals alone; throws unless every one succeeded. */
async function approveFirst(
  { wallet, reads, recorder, settings, history }: PipelineDeps,
  record: TradeRecord,
  checked: Checked,
  signal?: AbortSignal,
): Promise<void> {
  const proven = await history.beforeSigning(record.id, checked.reads.pendingNonce);
  const approvals = approvalTxs(checked, await wallet.nonces.next(checked.reads.pendingNonce, record.id, proven));
  if (approvals.length === 0) throw new Error('approveFirst: the check found no approval to make');
  const signed = await wallet.sign(record.id, approvals);
  await recorder.sending(record.id, wallet.fence());
  const receipts = await broadcast(wallet, signed, { signal });
  await follow(wallet, {
    intentId: record.id,
    receipts,
    authorize: (attempt) => authorizedCall(wallet, record, attempt, settings.approvals),
    signal,
  });
  // Each approval's nonce mined an approval (the one signed, or a replacement of it), not a revert or a cancellation.
  const settled = await reads.attempts.ofTrade(record.id);
  for (const attempt of signed) {
    if (!settled.some((candidate) => candidate.nonce === attempt.nonce && candidate.purpose === 'approve' && candidate.status === 'mined')) {
      throw new TransactionRevertedError('approval failed', `the approval at nonce ${attempt.nonce} did not succeed; the trade was not signed`);
    }
  }
}

/** The trade's transaction mined before a previous process could record its outcome: adopt it. */
async function adoptSettled({ wallet, reads: ledger, recorder }: PipelineDeps, record: TradeRecord): Promise<Mined | undefined> {
  const attempts = await ledger.attempts.ofTrade(record.id);
  const settled = attempts.filter((a) => a.status === 'mined' || a.status === 'reverted');
  // A row's `dropped` is not the chain's word: one the chain holds a receipt of was mined, whatever the row says.
  for (const attempt of attempts.filter((a) => a.status === 'dropped')) {
    const receipt = await getTransactionReceipt(wallet.client, { hash: attempt.hash }).catch(() => undefined);
    if (receipt) settled.push(attempt);
  }
  const last = settled.find((a) => a.purpose !== 'approve') ?? settled.at(-1);
  if (!last) return undefined;
  const receipt = await getTransactionReceipt(wallet.client, { hash: last.hash });
  await recorder.adopted(record.id, last.hash, receipt.status);
  return { receipt, attempt: last, cancelled: last.purpose === 'cancel' };
}

/**
 * A run that threw. Refused by a guard: `refused`, nothing signed. The key used elsewhere: `failed`, and the wallet
 * is paused until a person looks. Stopped (the daemon is stopping): the state stays, to be resumed at the next
 * start. Signed transactions whose fate is not known: `unknown`, settled later only by what the chain shows.
 * Anything else before signing: `failed`, with the error's class.
 */
async function recordFailure({ reads: ledger, recorder }: PipelineDeps, record: TradeRecord, error: unknown): Promise<Partial<TradeReport>> {
  const message = error instanceof RoutekeeperError ? error.shortMessage : error instanceof Error ? error.message : String(error);
  const errorClass = failureClassOf(error);
  const retryable = error instanceof RoutekeeperError ? error.retryable : false;
  const current = await ledger.trades.get(record.id);
  const state = current?.status ?? record.status;
  if (error instanceof StoredRecordRefusedError) {
    // A row that claims to authorize a signature and cannot prove it: the database was written by someone else.
    await recorder.anomaly(record, { reason: message, event: { kind: 'stored-record-refused', details: { reason: message } } });
    return { status: 'anomaly', reason: message, errorClass };
  }
  if (error instanceof GuardRefusal) {
    await recorder.refused(record.id, { reason: `${error.reason}: ${message}`, refusal: error.reason, errorClass, retryable: false });
    const refusedBy = (error as RefusedBy).check;
    return { status: 'refused', refusal: error.reason, reason: message, errorClass, ...(refusedBy && { refusedBy }) };
  }
  // Sent and not known to have failed, or mined with its outcome not yet read: only the chain can settle it.
  const unsettled = (await ledger.attempts.ofTrade(record.id)).some(
    (a) => a.purpose !== 'approve' && (isOpenAttempt(a) || a.status === 'mined' || a.status === 'reverted'),
  );
  // The wallet's lease is not this daemon's (lost, or not renewed in time): nothing was recorded or sent, and the
  // trade stays where it is for whichever daemon holds the wallet now.
  if (isAbort(error) || error instanceof LeaseLostError) {
    // An unknown trade stays unknown, with the reason it had; anything else resumes where it was at the next start.
    if (state === 'unknown') return { status: 'unknown', reason: current?.failure?.reason ?? message, errorClass };
    const reason = `interrupted at ${state}: ${message}`;
    await recorder.interrupted(record.id, { reason, errorClass, retryable: true });
    return { status: state, reason, errorClass };
  }
  // The key used elsewhere: the wallet is paused with the trade's outcome, in one database transaction.
  const pause = error instanceof KeyUsedElsewhereError ? { scope: 'wallet' as const, key: record.wallet, reason: message } : undefined;
  if (unsettled || state === 'unknown') {
    // Maybe traded: it counts against budgets and one-shot orders and blocks its strategy until the chain tells.
    const reason = `outcome not known: ${message}`;
    await recorder.unknown(record.id, { reason, errorClass, retryable: true }, pause);
    return { status: 'unknown', reason, errorClass };
  }
  await recorder.failed(record.id, { reason: message, errorClass, retryable }, { pause });
  return { status: 'failed', reason: message, errorClass };
}
