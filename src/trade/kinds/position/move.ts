/**
 * The checks of a position move (`move-position`): one transaction, all or nothing, in which the wallet sends its NFT
 * to the chain data's position mover (our contract, `src/contracts/solidity/V3RangeMover.sol`) with the position
 * manager's `safeTransferFrom`, and the mover removes the liquidity, collects everything owed, sells the surplus
 * through a checked route, mints the new range to the wallet (a re-range; an exit mints nothing), returns or burns the
 * old NFT and sends the wallet what is left. In order:
 *  - `manager-known` (position/check.ts), `mover-known`: the mover is the chain data's and holds exactly this build's
 *    code, read at every use;
 *  - `position-read`: the position is the wallet's, of the trade's tokens, holds the liquidity to remove; a new range is
 *    on its pool's spacing;
 *  - with a swap, the routed checks of its route (check.ts): `answer-is-ours`, `contracts-known`, `route-known`,
 *    `pools-steady`, and `no-feed-venue` (a venue held to its feed is not used inside a move);
 *  - `at-reference`: the position's pool steady and at the reference, the removal's and the mint's minimums from the
 *    reference, never the pool's price;
 *  - `chain-read` (the call simulated at the quote's minimum, and the route's hop quotes on the same state),
 *    `reference-read`, `near-reference`, `call-is-ours` (the minimums may only rise), `deadline`, `fee-cap`,
 *    `simulation`, `move-flows` (every token and NFT movement accounted for, phase by phase), `shown-pools-steady`.
 */
import {
  type Address,
  type Hex,
  type Log,
  decodeAbiParameters,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  isAddressEqual,
  parseEventLogs,
  toEventSelector,
  zeroAddress,
} from 'viem';
import { getCode } from 'viem/actions';
import { preflight } from '../../../chain/preflight.ts';
import { positionManagerAbi, positionMoveParameters, uniswapV3PoolAbi } from '../../../contracts/abi.ts';
import { hopQuoteRead } from '../../../contracts/hop-quoter.ts';
import { type SwapPayload, swapPayloadFrom } from '../../../contracts/payload.ts';
import { V3RangeMover } from '../../../contracts/solidity-code.ts';
import { flowsOf } from '../../../guard/flows.ts';
import { checkContractsAllowed, checkMarket, checkPrice, checkSwapQuote, minimumOutput, checkDeadline } from '../../../guard/guards.ts';
import { addAtReference, checkPoolAtReference, checkPositionOwned, checkRange, removeAtReference } from '../../../guard/position.ts';
import { isUnlisted } from '../../../guard/route.ts';
import { GuardRefusal } from '../../../model/guard-refusal.ts';
import type { MovePositionTrade, SwapTrade } from '../../../model/trade.ts';
import { abortable } from '../../../ops/abort.ts';
import { type TokenAmounts, sqrtPriceX96FromUsd } from '../../../pools/uniswap-v3/liquidity.ts';
import { type PositionManagerOf, type V3Position, readV3Position } from '../../../pools/uniswap-v3/position.ts';
import type { SwapRoute } from '../../../routing-api/schemas.ts';
import { CallCheckFields, type CallCheckState, callChecks } from '../../call-checks.ts';
import type { BuiltCall } from '../../call-types.ts';
import { uncappedOutput } from '../../call-types.ts';
import { type RouteHop, checkPoolsSteady, poolsOf, provenSwaps, tolerated } from '../../check.ts';
import { type NamedCheck, filledIn, runChecks } from '../../check-runner.ts';
import type { CheckContext, Checked } from '../../check-types.ts';
import { withPriceRefusals } from '../../price-refusals.ts';
import { type Proposal, proposalOf } from '../../proposal.ts';
import { type Reference, swapReference } from '../../reference.ts';
import { positionManagerOf } from './check.ts';

/** The swap inside a move: what is sold, for what, and how much (none: the move sells nothing). */
export function sellOf(trade: MovePositionTrade): { tokenIn: Address; tokenOut: Address; amountIn: bigint } | undefined {
  if (trade.amountIn > 0n) return { tokenIn: trade.tokenIn, tokenOut: trade.tokenOut, amountIn: trade.amountIn };
  if (trade.amountIn1 > 0n) return { tokenIn: trade.tokenOut, tokenOut: trade.tokenIn, amountIn: trade.amountIn1 };
  return undefined;
}

/** The swap inside a move as the routed checks see a swap: paid by the mover, from what the removal paid it. */
const swapOf = (trade: MovePositionTrade, mover: Address): SwapTrade | undefined => {
  const sell = sellOf(trade);
  return sell && { ...trade, ...sell, kind: 'swap', wallet: mover };
};

/** The least each step of a move may pay or take, from the reference, and what the mint buys there. */
type MoveMinimums = { removal: TokenAmounts; mint: TokenAmounts; liquidity: bigint; swapMinOut: bigint; deadline: bigint };

/** What the checks of one move share. */
export class MoveCheck extends CallCheckFields implements CallCheckState {
  manager: PositionManagerOf | undefined;
  mover: Address | undefined;
  position: V3Position | undefined;
  route: SwapRoute | undefined;
  hops: RouteHop[] | undefined;
  referenceSqrtPriceX96: bigint | undefined;
  simulated: BuiltCall | undefined;
  simulatedMinimums: MoveMinimums | undefined;
  reference: Reference | undefined;
  minimums: MoveMinimums | undefined;
  call: BuiltCall | undefined;
  swappedPools: Address[] = [];

  constructor(
    readonly ctx: CheckContext,
    readonly trade: MovePositionTrade,
    readonly proposal: Proposal,
  ) {
    super();
    if (proposal.kind === 'swap') this.route = proposalOf(proposal, 'swap').route;
  }

  /** The NFT's transfer returns nothing: what the move did is read from its logs. */
  paid(): bigint {
    return 0n;
  }

  /** The call holds its own minimums (removal, swap, mint): the simulation must only succeed. */
  simulatedMinimum(): undefined {
    return undefined;
  }

  /** The swap the move makes, paid by the mover. */
  swap(): SwapTrade | undefined {
    return swapOf(this.trade, this.filled('mover'));
  }

  filled<K extends 'manager' | 'mover' | 'position' | 'reads' | 'call' | 'fees' | 'minimums' | 'simulated' | 'simulatedMinimums'>(
    key: K,
  ): NonNullable<this[K]> {
    return filledIn(this, key);
  }
}

export async function checkMove(ctx: CheckContext, trade: MovePositionTrade, proposal: Proposal): Promise<Checked> {
  const state = new MoveCheck(ctx, trade, proposal);
  if ((state.route !== undefined) !== (sellOf(trade) !== undefined))
    throw new Error(`check: a move ${sellOf(trade) ? 'selling' : 'selling nothing'} with a ${proposal.kind} proposal`);
  const passed = await runChecks(moveChecks, state, ctx.signal);
  const fees = state.filled('fees');
  return {
    call: state.filled('call'),
    ...(state.reference && { reference: state.reference }),
    approvals: state.needed,
    reads: state.filled('reads'),
    fees: ctx.wallet.fees.capped(fees),
    gas: state.gas,
    passed,
  };
}

/** The call: the NFT to the mover with our instructions, every minimum ours; `swapMinOut` the swap's, from the checks. */
export function moveCall(s: MoveCheck, minimums: MoveMinimums): BuiltCall {
  const { trade } = s;
  const mover = s.filled('mover');
  const route = s.route;
  const payload: SwapPayload | undefined = route
    ? swapPayloadFrom(route.details, { minOutputAmount: minimums.swapMinOut, to: mover, expectedOutputAmount: uncappedOutput })
    : undefined;
  const move = {
    liquidity: trade.liquidity,
    amount0Min: minimums.removal.amount0,
    amount1Min: minimums.removal.amount1,
    deadline: minimums.deadline,
    router: route?.routerAddress ?? zeroAddress,
    swap: payload ?? {
      path: [],
      pairs: [],
      extras: [],
      inputAmount: 0n,
      minOutputAmount: 0n,
      expectedOutputAmount: 0n,
      to: mover,
      deadline: 0n,
      partner: 0n,
      sig: '0x' as Hex,
    },
    // An exit sells all the mover holds of the token, the slippage's share the amount asked left out included.
    sellAll: trade.mint === undefined,
    mint: trade.mint !== undefined,
    tickLower: trade.mint?.range.tickLower ?? 0,
    tickUpper: trade.mint?.range.tickUpper ?? 0,
    mint0Min: minimums.mint.amount0,
    mint1Min: minimums.mint.amount1,
    burn: trade.burn,
  };
  const data = encodeFunctionData({
    abi: positionManagerAbi,
    functionName: 'safeTransferFrom',
    args: [trade.wallet, mover, trade.position.positionId, encodeAbiParameters(positionMoveParameters, [move])],
  });
  const deadlines = payload ? [minimums.deadline, payload.deadline] : [minimums.deadline];
  return {
    target: trade.position.positionManager,
    data,
    // What the move's mint buys at the reference (an exit: what its swap pays), and the removal's minimums.
    expectedOut: trade.mint ? minimums.liquidity : (route?.expectedOut ?? 0n),
    minOut: minimums.removal.amount0,
    minOut1: minimums.removal.amount1,
    deadline: deadlines.reduce((a, b) => (a < b ? a : b)),
    ...(route && { router: route.routerAddress }),
    ...(payload && { payload }),
  };
}

/** What the removal pays at least, the least the swap pays and what the mint then buys, each from the reference. */
function minimumsAt(s: MoveCheck, swapMinOut: bigint, deadline: bigint): MoveMinimums {
  const { trade } = s;
  const position = s.filled('position');
  const reference = filledIn(s, 'referenceSqrtPriceX96');
  const least = removeAtReference(reference, position, trade.liquidity, trade.slippageBps);
  const removal = { amount0: least.amount0Min, amount1: least.amount1Min };
  if (!trade.mint) return { removal, mint: { amount0: 0n, amount1: 0n }, liquidity: 0n, swapMinOut, deadline };
  // The least the mover holds when it mints: the removal's minimums and the fees owed, less what it sells, plus the
  // least the swap pays.
  const sell = sellOf(trade);
  const soldToken0 = sell !== undefined && isAddressEqual(sell.tokenIn, trade.tokenIn);
  const held = {
    amount0: removal.amount0 + position.uncollected.amount0 - (soldToken0 ? (sell?.amountIn ?? 0n) : 0n) + (sell && !soldToken0 ? swapMinOut : 0n),
    amount1: removal.amount1 + position.uncollected.amount1 - (sell && !soldToken0 ? sell.amountIn : 0n) + (soldToken0 ? swapMinOut : 0n),
  };
  if (held.amount0 < 0n || held.amount1 < 0n)
    throw new GuardRefusal('position', `the move sells more than the removal pays at least (${held.amount0}, ${held.amount1})`);
  const added = addAtReference(reference, trade.mint.range, held, trade.slippageBps);
  if (added.liquidity === 0n) throw new GuardRefusal('simulation', 'what the removal pays buys no liquidity in the new range');
  return { removal, mint: { amount0: added.amount0Min, amount1: added.amount1Min }, liquidity: added.liquidity, swapMinOut, deadline };
}

const nftTransferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const isNftTransfer = (log: Pick<Log, 'topics'>) => log.topics[0] === nftTransferTopic && log.topics.length === 4;
const isErc20Approval = (log: Pick<Log, 'topics'>) => log.topics[0] === '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
const removedTopic = toEventSelector(getEvent('Removed'));
const swappedTopic = toEventSelector(getEvent('Swapped'));
function getEvent(name: 'Removed' | 'Swapped') {
  const event = V3RangeMover.abi.find((item) => item.type === 'event' && item.name === name);
  if (event?.type !== 'event') throw new Error(`V3RangeMover's ABI has no ${name} event`);
  return event;
}
const moverEvents = (logs: readonly Log[], mover: Address) =>
  parseEventLogs({ abi: V3RangeMover.abi, logs: logs as Log[] }).filter((event) => isAddressEqual(event.address, mover));

/**
 * Every token and NFT movement of the simulated move, phase by phase (the mover's `Removed` and `Swapped` events mark
 * where the removal and the swap end): the removal pays the mover from the position's pool only; the swap's flows are
 * accounted for as a swap's (guard/flows.ts), paid by the mover; after it only the mint's payment to the pool and what
 * is left to the wallet move, and the mover keeps nothing. The NFTs: the old one to the mover and back to the wallet
 * (or burned), and a re-range's new one minted to the wallet. The simulated swap and mint reach the signed minimums.
 */
async function checkMoveFlows(s: MoveCheck): Promise<void> {
  const reads = s.filled('reads');
  if (reads.call === 'unsimulated' || !reads.call.ok || !reads.call.logs) {
    // Without the simulation's logs nothing proves what an unlisted adapter does.
    const unproven = s.hops?.find(isUnlisted);
    if (unproven)
      throw new GuardRefusal(
        'unknown-adapter',
        `${unproven.field} ${unproven.adapter} is not a listed adapter, and this node cannot simulate to prove what it does`,
        undefined,
        unproven.field,
      );
    return;
  }
  const { trade } = s;
  const logs = reads.call.logs;
  const mover = s.filled('mover');
  const manager = s.filled('manager').address;
  const position = s.filled('position');
  const minimums = s.filled('minimums');
  const refuse = (why: string): never => {
    throw new GuardRefusal('token-flow', `the simulated move ${why}`);
  };
  // NFTs: exactly the old one to the mover and back (or burned), and a re-range's new one to the wallet.
  const nfts = logs.filter(isNftTransfer).map((log) => ({
    contract: log.address,
    from: `0x${(log.topics[1] ?? '').slice(26)}` as Address,
    to: `0x${(log.topics[2] ?? '').slice(26)}` as Address,
    id: BigInt(log.topics[3] ?? '0x0'),
  }));
  const expected = [
    { from: trade.wallet, to: mover, id: trade.position.positionId },
    ...(trade.mint ? [{ from: zeroAddress, to: trade.wallet, id: undefined }] : []),
    { from: mover, to: trade.burn ? zeroAddress : trade.wallet, id: trade.position.positionId },
  ];
  if (nfts.length !== expected.length) refuse(`moves ${nfts.length} NFTs, not the ${expected.length} it should`);
  for (const [i, nft] of nfts.entries()) {
    const want = expected[i] as (typeof expected)[number];
    if (
      !isAddressEqual(nft.contract, manager) ||
      !isAddressEqual(nft.from, want.from) ||
      !isAddressEqual(nft.to, want.to) ||
      (want.id !== undefined && nft.id !== want.id)
    )
      refuse(`moves NFT ${nft.id} of ${nft.contract} from ${nft.from} to ${nft.to}: a position only ever goes to the mover and back, or to the wallet`);
  }
  // Phases, by the mover's own markers.
  const events = moverEvents(logs, mover);
  const removed = events.find((event) => event.eventName === 'Removed');
  const swapped = events.find((event) => event.eventName === 'Swapped');
  if (!removed) return refuse('shows no removal by the mover');
  const sell = sellOf(trade);
  if ((swapped !== undefined) !== (sell !== undefined)) refuse(sell ? 'shows no swap' : 'swaps, and the move sells nothing');
  const markerAt = (topic: Hex) => logs.findIndex((log) => isAddressEqual(log.address, mover) && log.topics[0] === topic);
  const removalEnd = markerAt(removedTopic);
  const swapEnd = swapped ? markerAt(swappedTopic) : removalEnd;
  const tokenLogs = (from: number, to: number) => logs.slice(from, to).filter((log) => !isNftTransfer(log) && !isErc20Approval(log));
  const isPair = (token: Address) => isAddressEqual(token, trade.tokenIn) || isAddressEqual(token, trade.tokenOut);
  const balance = new Map<string, bigint>();
  const add = (token: Address, amount: bigint) => balance.set(token.toLowerCase(), (balance.get(token.toLowerCase()) ?? 0n) + amount);
  for (const flow of flowsOf(tokenLogs(0, removalEnd))) {
    if (!isPair(flow.token) || !isAddressEqual(flow.from, position.pool) || !isAddressEqual(flow.to, mover))
      refuse(`moves ${flow.amount} of ${flow.token} from ${flow.from} to ${flow.to} in its removal: only the position's pool pays the mover`);
    add(flow.token, flow.amount);
  }
  if (swapped?.eventName === 'Swapped' && sell) {
    // What it sold: the amount asked, or for an exit all it held, which is no less.
    const sold = swapped.args.amountIn;
    if (trade.mint ? sold !== sell.amountIn : sold < sell.amountIn) refuse(`swap sells ${sold}, not the ${sell.amountIn} asked`);
    const swap = { ...(s.swap() as SwapTrade), amountIn: sold };
    const swaps = await abortable(
      provenSwaps(s.ctx.routes, swap, tokenLogs(removalEnd, swapEnd), s.hops ?? [], {
        router: s.route?.routerAddress as Address,
        partners: [BigInt(s.route?.details.partner ?? 0)],
        minOut: minimums.swapMinOut,
      }),
      s.ctx.signal,
    );
    s.swappedPools = (swaps ?? []).map((proven) => proven.pool);
    if (swapped.args.amountOut < minimums.swapMinOut) refuse(`swap pays ${swapped.args.amountOut}, less than the ${minimums.swapMinOut} signed`);
    add(sell.tokenIn, -sold);
    add(sell.tokenOut, swapped.args.amountOut);
  }
  for (const flow of flowsOf(tokenLogs(swapEnd, logs.length))) {
    const toPool = isAddressEqual(flow.to, position.pool) && trade.mint !== undefined;
    if (!isPair(flow.token) || !isAddressEqual(flow.from, mover) || !(toPool || isAddressEqual(flow.to, trade.wallet)))
      refuse(
        `moves ${flow.amount} of ${flow.token} from ${flow.from} to ${flow.to} after its swap: only the mint's payment to the pool and what is left to the wallet`,
      );
    add(flow.token, -flow.amount);
  }
  for (const [token, left] of balance) if (left !== 0n) refuse(`leaves ${left} of ${token} with the mover`);
  if (trade.mint) {
    const moved = events.find((event) => event.eventName === 'Moved');
    if (moved?.eventName !== 'Moved') return refuse('shows no end of the move');
    if (moved.args.added0 < minimums.mint.amount0 || moved.args.added1 < minimums.mint.amount1)
      refuse(`mint takes ${moved.args.added0} and ${moved.args.added1}, less than the minimums ${minimums.mint.amount0} and ${minimums.mint.amount1} signed`);
  }
}

/** The named checks of a move, in order (`docs/safety.md` cites them). */
export const moveChecks: readonly NamedCheck<MoveCheck>[] = [
  { name: 'manager-known', verify: (s) => void (s.manager = positionManagerOf(s.ctx, s.trade.position.positionManager)) },
  {
    name: 'mover-known',
    verify: async (s) => {
      const movers = s.ctx.routes.known.positionMovers;
      const mover = movers[0];
      if (!mover)
        throw new GuardRefusal('contract-not-allowed', "the chain data names no position mover (deploy one: 'routekeeper deploy-adapter v3-range-mover')");
      const code = await abortable(getCode(s.ctx.wallet.client, { address: mover }), s.ctx.signal);
      if (code?.toLowerCase() !== V3RangeMover.runtimeCode.toLowerCase())
        throw new GuardRefusal('contract-not-allowed', `the position mover ${mover} does not hold this build's code: nothing is sent to it`);
      s.mover = mover;
    },
  },
  {
    name: 'position-read',
    verify: async (s) => {
      const { trade } = s;
      const client = s.ctx.wallet.client;
      const blockNumber = await client.getBlockNumber();
      const position = await abortable(readV3Position(client, s.filled('manager'), trade.position.positionId, blockNumber), s.ctx.signal);
      checkPositionOwned(
        {
          kind: trade.kind,
          wallet: trade.wallet,
          tokenIn: trade.tokenIn,
          tokenOut: trade.tokenOut,
          amountIn: 0n,
          amountIn1: 0n,
          positionId: trade.position.positionId,
          burns: trade.burn,
          mints: trade.mint !== undefined,
          pays: false,
        },
        position,
      );
      if (trade.liquidity > position.liquidity)
        throw new GuardRefusal(
          'position',
          `position ${trade.position.positionId} holds ${position.liquidity} liquidity, less than the ${trade.liquidity} to remove`,
        );
      if (trade.mint) {
        if (trade.mint.fee !== position.fee)
          throw new GuardRefusal('position', `the new range's fee ${trade.mint.fee} is not the position's pool's ${position.fee}`);
        const tickSpacing = await s.ctx.wallet.client.readContract({ address: position.pool, abi: uniswapV3PoolAbi, functionName: 'tickSpacing', blockNumber });
        checkRange(trade.mint.range, tickSpacing);
      }
      s.position = position;
    },
  },
  {
    name: 'answer-is-ours',
    verify: (s) => {
      const swap = s.swap();
      if (s.route && swap) checkSwapQuote(swap, s.route);
    },
  },
  { name: 'contracts-known', verify: (s) => void (s.route && checkContractsAllowed(s.ctx.routes.known, { router: s.route.routerAddress })) },
  {
    name: 'route-known',
    verify: async (s) => {
      if (s.route) s.hops = await abortable(s.ctx.routes.verifyRoute(s.route.details, 'details', 'prove-by-flows'), s.ctx.signal);
    },
  },
  { name: 'pools-steady', verify: (s) => checkPoolsSteady(s.ctx, poolsOf(s.hops ? { hops: s.hops } : undefined)) },
  {
    name: 'no-feed-venue',
    verify: (s) => {
      const venue = s.hops?.find((hop) => !isUnlisted(hop) && hop.venue);
      if (venue && !isUnlisted(venue))
        throw new GuardRefusal(
          'unknown-pool',
          `the move's swap goes through ${venue.pool}, a venue held to its feed: a move swaps in pools with a history only`,
          undefined,
          undefined,
          venue.pool,
        );
    },
  },
  {
    name: 'at-reference',
    verify: async (s) => {
      const { ctx } = s;
      const position = s.filled('position');
      const [, price0, price1, decimals0, decimals1] = await withPriceRefusals(() =>
        Promise.all([
          ctx.prices.checkSteady(position.pool, ctx.priceToleranceBps, 'uniswap-v3'),
          ctx.prices.usdPrice(position.token0),
          ctx.prices.usdPrice(position.token1),
          ctx.prices.decimals(position.token0),
          ctx.prices.decimals(position.token1),
        ]),
      );
      s.referenceSqrtPriceX96 = sqrtPriceX96FromUsd(price0.usdE18, price1.usdE18, decimals0, decimals1);
      checkPoolAtReference(position.sqrtPriceX96, s.referenceSqrtPriceX96, ctx.priceToleranceBps);
      const head = await ctx.prices.headNow();
      const deadline = head.timestamp + BigInt(ctx.settings.deadline.maxSeconds);
      const quoteMin = s.route ? minimumOutput(s.route.expectedOut, s.trade.slippageBps) : 0n;
      s.simulatedMinimums = minimumsAt(s, quoteMin, deadline);
      s.simulated = moveCall(s, s.simulatedMinimums);
    },
  },
  {
    name: 'chain-read',
    verify: async (s) => {
      const call = s.filled('simulated');
      const sell = sellOf(s.trade);
      s.reads = await abortable(
        preflight(s.ctx.wallet.client, {
          from: s.trade.wallet,
          to: call.target,
          data: call.data,
          approvals: [],
          before: s.ctx.wallet.inFlightCalls(),
          quote: s.route && sell ? hopQuoteRead(s.route.details, sell.amountIn) : undefined,
        }),
        s.ctx.signal,
      );
    },
  },
  {
    name: 'reference-read',
    verify: async (s) => {
      const swap = s.swap();
      if (!s.route || !swap || !s.hops) return;
      const quoted = Promise.resolve(s.filled('reads').quote);
      s.reference = await withPriceRefusals(() => swapReference(s.ctx.prices, swap, (s.route as SwapRoute).details, s.hops as RouteHop[], quoted));
    },
  },
  {
    name: 'near-reference',
    verify: (s) => {
      const { reference, route } = s;
      if (!reference || !route) return;
      if (reference.oracleOut !== undefined) checkMarket(reference.amountOut, reference.oracleOut, s.ctx.priceToleranceBps);
      checkPrice(route.expectedOut, reference, s.ctx.priceToleranceBps);
    },
  },
  {
    name: 'call-is-ours',
    verify: (s) => {
      const { reference, route } = s;
      const simulated = s.filled('simulatedMinimums');
      const floor = reference && (reference.oracleOut !== undefined ? reference.amountOut : tolerated(reference.amountOut, s.ctx.priceToleranceBps));
      const swapMinOut = route ? minimumOutput(route.expectedOut, s.trade.slippageBps, { reference: floor }) : 0n;
      if (route && swapMinOut === 0n) throw new GuardRefusal('price', 'the swap inside the move would accept 0: a trade that accepts nothing is never signed');
      s.minimums = minimumsAt(s, swapMinOut, simulated.deadline);
      if (s.minimums.swapMinOut < simulated.swapMinOut || s.minimums.mint.amount0 < simulated.mint.amount0 || s.minimums.mint.amount1 < simulated.mint.amount1)
        throw new Error('check: the move signed may only raise the minimums of the move simulated');
      s.call = moveCall(s, s.minimums);
    },
  },
  {
    name: 'deadline',
    verify: (s) => {
      const { deadline } = s.filled('call');
      if (deadline !== undefined) checkDeadline([deadline], s.filled('reads').block.timestamp, s.ctx.settings.deadline);
    },
  },
  callChecks.feeCap,
  callChecks.simulation,
  { name: 'move-flows', verify: checkMoveFlows },
  {
    name: 'shown-pools-steady',
    verify: async (s) => {
      const known = poolsOf(s.hops ? { hops: s.hops } : undefined).map((pool) => pool.address);
      const shown = s.swappedPools.filter((pool) => !known.some((address) => isAddressEqual(address, pool))).map((address) => ({ address }));
      await abortable(checkPoolsSteady(s.ctx, shown), s.ctx.signal);
    },
  },
];

/** The tokens a move's call can move besides the pair: its route's intermediate tokens. */
export function moveCallTokens(data: Hex): readonly Address[] {
  return movedRoute(data)?.path ?? [];
}

/** The route inside a move's stored call (none: it sells nothing), and the mover it goes to. */
export function movedRoute(data: Hex): SwapPayload | undefined {
  const move = decodedMove(data);
  return move && move.router !== zeroAddress ? (move.swap as SwapPayload) : undefined;
}

/** The mover and the instructions a stored move's call carries. */
export function decodedMove(data: Hex) {
  try {
    const decoded = decodeFunctionData({ abi: positionManagerAbi, data });
    if (decoded.functionName !== 'safeTransferFrom') return undefined;
    const [, mover, , instructions] = decoded.args as readonly [Address, Address, bigint, Hex];
    const [move] = decodeAbiParameters(positionMoveParameters, instructions);
    return { ...move, mover };
  } catch {
    return undefined;
  }
}
