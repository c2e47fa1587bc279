/**
 * Every chain read a trade needs before it is signed, in one batched JSON-RPC request: the latest block (time and
 * base fee), the tip, the wallet's pending nonce, the spender's allowance, and an eth_simulateV1 of the exact calls
 * we would sign (the approval first, when one is needed), which also gives each call's gas.
 * The simulation runs after the latest block's time: a node simulating in the latest block's own time sees no time
 * elapse, so it skips the storage writes time drives (Uniswap V2's price accumulators, a gauge's reward accrual)
 * and under-reports the gas by up to a quarter, enough for a deposit to run out of it. The latest block is read in
 * the same batch, so its time is not known when the simulation is asked: the simulation takes its time from our
 * clock, moved by how far the chain's clock was from ours at the last block read (a devnet that jumped in time), and
 * a few seconds past that (a devnet mining many blocks a second runs ahead meanwhile). Any later second gives the
 * same gas (the writes happen or not, whatever their amount). Should the block read beside it be at or past that
 * time, or more than 30 s before it (a chain that jumped again), the simulation is asked again, at the block's time
 * plus one second: one more round trip, only then.
 * Nodes without eth_simulateV1 get eth_call and eth_estimateGas in the same batch instead; the approval must
 * then be in place before the trade can be simulated.
 * This module reads and reports; deciding whether the answers are acceptable is the check stage's job.
 */
import { type Address, type Hex, type Log, encodeFunctionData, erc20Abi, hexToBigInt } from 'viem';
import { call as ethCall, estimateGas, getBlock, getTransactionCount, readContract, simulateBlocks } from 'viem/actions';
import type { ChainClient } from '../chains.ts';
import { MethodUnsupportedError, nodeErrorOf } from './node-errors.ts';
import { reasonOf, revertDataOf } from '../contracts/revert.ts';

/** A transaction of the wallet signed and not yet known to be mined, at its nonce. */
export type InFlightCall = { to: Address; data: Hex; value?: bigint; nonce: number };

/** The allowance a call needs (`amount`), and what the approval sets it to (`value`: the amount, or unlimited). */
export type Approval = { token: Address; spender: Address; amount: bigint; value: bigint };

export type PreflightRequest = {
  from: Address;
  to: Address;
  data: Hex;
  /** The approvals the call needs (one per token it spends), if their allowances are short; simulated before the call. */
  approvals?: readonly Approval[];
  /**
   * The wallet's transactions signed and not yet mined, in nonce order: simulated first, in the same block, so the
   * call is simulated on the chain it will meet (their spending, their moves of a pool). A node that cannot
   * simulate runs the call alone.
   */
  before?: readonly InFlightCall[];
  /**
   * A read of what the call will meet (what its route pays): `code` placed at `to` by state override (never
   * deployed), called as an ordinary call after the wallet's transactions in flight and before the approval, in the
   * same simulated block; a node that cannot simulate answers it with eth_call on the latest block.
   */
  quote?: { to: Address; code: Hex; data: Hex };
};

/**
 * One simulated call: what it returned, the gas it used and (from eth_simulateV1 only) its logs, native-coin
 * movements included as `Transfer` logs of a pseudo-token; or why it reverted.
 */
export type CallResult = { ok: true; returned: Hex; gasUsed: bigint; logs?: readonly Log[] } | { ok: false; reason: string; revertData?: Hex };

export type Preflight = {
  block: { number: bigint; timestamp: bigint; baseFeePerGas: bigint };
  maxPriorityFeePerGas: bigint;
  pendingNonce: number;
  /** The current allowance of each approval's spender, in the order asked. */
  allowances: bigint[];
  /** The approvals simulated before the call (when given and the node simulates), in the order asked. */
  approvalResults: CallResult[];
  /** The call itself; `unsimulated` when the approval is missing and the node cannot simulate both together. */
  call: CallResult | 'unsimulated';
  /** The request's `quote`, when it had one. */
  quote?: CallResult;
};

/** Nodes found not to offer eth_simulateV1 (asked once per client). */
const withoutSimulate = new WeakSet<object>();

export async function preflight(client: ChainClient, request: PreflightRequest): Promise<Preflight> {
  if (!withoutSimulate.has(client)) {
    try {
      return await readAll(client, request, true);
    } catch (error) {
      if (!(error instanceof MethodUnsupportedError)) throw error;
      withoutSimulate.add(client);
    }
  }
  return readAll(client, request, false);
}

/** A cache: how far each node's chain clock was from ours at its last block read (seconds; ahead is positive), by client. */
const chainOffset = new WeakMap<object, bigint>();
const clockSeconds = () => BigInt(Math.floor(Date.now() / 1000));
/**
 * How far past our guess of the chain's time the simulation runs: a chain making several blocks a second (a devnet
 * mining each transaction, each block a second after the last) runs ahead of the wall clock between two reads.
 */
const simulatedLeadSeconds = 5n;
/** A simulation further than this past the latest block's time is asked again (deadlines are judged by it). */
const simulatedAheadMaxSeconds = 30n;

async function readAll(client: ChainClient, request: PreflightRequest, simulate: boolean): Promise<Preflight> {
  const { from, approvals = [] } = request;
  // With the wallet's transactions in flight, one of them may have mined since this process last looked: simulated
  // again on the block that holds it, it would run twice (its second run reverting, say, and leaving the allowance its
  // first run spent). So the reads are pinned to one block, read first (one more round trip, only then), and only the
  // transactions that block has not mined are simulated before the call.
  const pinned = simulate && request.before?.length ? await getBlock(client, { blockTag: 'latest' }) : undefined;
  const at = pinned && { blockNumber: pinned.number };
  const simulatedTime = pinned ? pinned.timestamp + 1n : clockSeconds() + (chainOffset.get(client) ?? 0n) + simulatedLeadSeconds;
  // All requests are made in this tick, so viem's batching transport sends them as one HTTP request.
  const [block, tip, pendingNonce, allowance, minedNonces, calls] = await Promise.all([
    pinned ?? getBlock(client, { blockTag: 'latest' }),
    client.request({ method: 'eth_maxPriorityFeePerGas' }).then((hex) => hexToBigInt(hex)),
    getTransactionCount(client, { address: from, blockTag: 'pending' }),
    Promise.all(
      approvals.map((approval) =>
        readContract(client, { address: approval.token, abi: erc20Abi, functionName: 'allowance', args: [from, approval.spender], ...at }),
      ),
    ),
    at && getTransactionCount(client, { address: from, ...at }),
    simulate ? simulateTogether(client, request, simulatedTime, at) : callAlone(client, request),
  ]);
  chainOffset.set(client, block.timestamp - clockSeconds());
  // The chain's clock is not where we guessed (it passed the time we simulated at, or is far behind it, as a chain
  // reverted to an old state is), or the pinned block mined a transaction we had in flight: simulate again, a second
  // after the block just read, without the transactions it mined.
  const missed = block.timestamp >= simulatedTime || simulatedTime > block.timestamp + simulatedAheadMaxSeconds;
  const mined = minedNonces !== undefined && (request.before ?? []).some((tx) => tx.nonce < minedNonces);
  const unmined = mined ? { ...request, before: request.before?.filter((tx) => tx.nonce >= minedNonces) } : request;
  const {
    results,
    allowances: allowancesAfterEarlier,
    quote,
  } = simulate && (missed || mined) ? await simulateTogether(client, unmined, block.timestamp + 1n, at) : calls;
  // The allowances the transactions in flight will leave, when there are any; else the chain's.
  const allowancesNow = approvals.map((_, i) => allowancesAfterEarlier?.[i] ?? (allowance[i] as bigint));
  const allowanceShort = approvals.some((approval, i) => (allowancesNow[i] as bigint) < approval.amount);
  return {
    block: { number: block.number, timestamp: block.timestamp, baseFeePerGas: block.baseFeePerGas ?? 0n },
    maxPriorityFeePerGas: tip,
    pendingNonce,
    allowances: allowancesNow,
    approvalResults: simulate ? results.slice(0, approvals.length) : [],
    call: !simulate && allowanceShort ? 'unsimulated' : (results.at(-1) as CallResult),
    ...(quote ? { quote } : {}),
  };
}

/** What one simulation (or the eth_call fallback) answered: the approval and the call, and the reads beside them. */
type Answers = { results: CallResult[]; allowances?: (bigint | undefined)[]; quote?: CallResult };

/**
 * eth_simulateV1 of [approval?, call] in one simulated block on top of the latest, at `time`, after the wallet's
 * transactions in flight; an unsupported method is reported as such. With transactions in flight, the spender's
 * allowance is read between them and the approval (theirs may have set or spent it): `allowance`; the quote is read
 * there too, with its code placed by the block's state override.
 */
async function simulateTogether(
  client: ChainClient,
  { from, to, data, approvals = [], before = [], quote }: PreflightRequest,
  time: bigint,
  at?: { blockNumber: bigint },
): Promise<Answers> {
  const earlier = before.map((tx) => ({ from, to: tx.to, data: tx.data, value: tx.value }));
  const readAllowance =
    earlier.length > 0
      ? approvals.map((approval) => ({
          from,
          to: approval.token,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [from, approval.spender] }),
        }))
      : [];
  const readQuote = quote ? [{ from, to: quote.to, data: quote.data }] : [];
  const calls = [
    ...approvals.map((approval) => ({
      from,
      to: approval.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [approval.spender, approval.value] }),
    })),
    { from, to, data },
  ];
  let blocks: Awaited<ReturnType<typeof simulateBlocks>>;
  try {
    const stateOverrides = quote ? [{ address: quote.to, code: quote.code }] : undefined;
    blocks = await simulateBlocks(client, {
      ...at,
      blocks: [{ blockOverrides: { time }, stateOverrides, calls: [...earlier, ...readAllowance, ...readQuote, ...calls] }],
      traceTransfers: true,
    });
  } catch (error) {
    const typed = nodeErrorOf(error);
    if (typed instanceof MethodUnsupportedError) throw typed;
    // A revert of the whole simulated block (some nodes answer a failing call this way).
    const failed = { ok: false as const, reason: reasonOf(error) };
    return { results: calls.map(() => failed), ...(quote ? { quote: failed } : {}) };
  }
  const simulated = blocks[0]?.calls ?? [];
  const allowanceCalls = simulated.slice(earlier.length, earlier.length + readAllowance.length);
  const quoteCall = quote ? simulated[earlier.length + readAllowance.length] : undefined;
  return {
    results: simulated.slice(earlier.length + readAllowance.length + readQuote.length).map(callResultOf),
    ...(allowanceCalls.length > 0 && { allowances: allowanceCalls.map((call) => (call.status === 'success' ? hexToBigInt(call.data) : undefined)) }),
    ...(quoteCall ? { quote: callResultOf(quoteCall) } : {}),
  };
}

type SimulatedCall = { status: 'success' | 'failure'; data: Hex; gasUsed: bigint; logs?: Log[]; error?: unknown };

function callResultOf(result: SimulatedCall): CallResult {
  return result.status === 'success'
    ? { ok: true, returned: result.data, gasUsed: result.gasUsed, logs: result.logs ?? [] }
    : { ok: false, reason: reasonOf(result.error), revertData: result.data };
}

/**
 * The fallback: eth_call for what the call returns and eth_estimateGas for its gas, as the chain is now; the quote
 * with eth_call and its code by state override.
 */
async function callAlone(client: ChainClient, { from, to, data, quote }: PreflightRequest): Promise<Answers> {
  const [results, quoted] = await Promise.all([
    Promise.all([ethCall(client, { account: from, to, data }), estimateGas(client, { account: from, to, data })]).then(
      ([returned, gasUsed]): CallResult[] => [{ ok: true, returned: returned.data ?? '0x', gasUsed }],
      (error: unknown): CallResult[] => [{ ok: false, reason: reasonOf(error) }],
    ),
    quote
      ? ethCall(client, { account: from, to: quote.to, data: quote.data, stateOverride: [{ address: quote.to, code: quote.code }] }).then(
          (returned): CallResult => ({ ok: true, returned: returned.data ?? '0x', gasUsed: 0n }),
          (error: unknown): CallResult => ({ ok: false, reason: reasonOf(error), revertData: revertDataOf(error) }),
        )
      : undefined,
  ]);
  return { results, ...(quoted ? { quote: quoted } : {}) };
}
