/**
 * Route verification by what the transaction does, not by what its route says. The exact transactions (the
 * approval included) are simulated with eth_simulateV1, whose answer carries every ERC20 `Transfer` log (and,
 * with `traceTransfers`, every movement of the native coin as a log of a pseudo-token). Each holder's net change
 * of each token is then accounted for:
 *
 * - the wallet pays exactly the trade's input (a deposit: at most; the farm returns what it could not use), pays
 *   nothing else, and receives at least the minimum we sign of the output;
 * - every other holder whose balance of any token rises is a pool that a known factory made (or a list holds)
 *   whose changes are one swap (one token in, the other out), a venue the chain data lists (a farm, a gauge),
 *   the position's own pool of a deposit or withdraw (and its factory's protocol fee recipient, in that pool's LP
 *   tokens only), the Reserve of a verified Mento hop taking that hop's collateral, or the route's partner taking
 *   at most its fee.
 *
 * Anything else (an adapter or the router keeping a wei, a pool nobody vouches for, a stranger paid) is refused,
 * naming the holder, the token and the amount. Adapters need not be listed: their effect is what is checked.
 */
import { type Address, type Log, getAddress, isAddressEqual, size, zeroAddress } from 'viem';
import { GuardRefusal } from '../model/guard-refusal.ts';

/** The pseudo-token under which eth_simulateV1's `traceTransfers` reports native-coin movements. */
export const nativeTokenPseudoAddress: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** One movement of a token from one holder to another (`from` 0: minted; `to` 0: burned). */
export type TokenFlow = { token: Address; from: Address; to: Address; amount: bigint };

const topicAddress = (topic: string) => getAddress(`0x${topic.slice(26)}`);

/** The token movements a simulation's logs show, in order. A non-fungible `Transfer` (4 topics) is refused. */
export function flowsOf(logs: readonly Pick<Log, 'address' | 'topics' | 'data'>[]): TokenFlow[] {
  const flows: TokenFlow[] = [];
  for (const log of logs) {
    const [topic0, from, to] = log.topics;
    if (topic0 !== transferTopic) continue;
    if (log.topics.length !== 3 || !from || !to || size(log.data) !== 32) {
      throw new GuardRefusal(
        'token-flow',
        `the simulated transaction moves a token ${log.address} that is not an ERC20 (a Transfer log of ${log.topics.length} topics)`,
      );
    }
    flows.push({ token: getAddress(log.address), from: topicAddress(from), to: topicAddress(to), amount: BigInt(log.data) });
  }
  return flows;
}

/** Net change of every holder's balance of every token (lower-case keys), mints and burns left out. */
export function netChanges(flows: readonly TokenFlow[]): Map<string, Map<string, bigint>> {
  const net = new Map<string, Map<string, bigint>>();
  const add = (holder: Address, token: Address, amount: bigint) => {
    if (isAddressEqual(holder, zeroAddress)) return;
    const key = holder.toLowerCase();
    let tokens = net.get(key);
    if (!tokens) net.set(key, (tokens = new Map()));
    tokens.set(token.toLowerCase(), (tokens.get(token.toLowerCase()) ?? 0n) + amount);
  };
  for (const flow of flows) {
    add(flow.from, flow.token, -flow.amount);
    add(flow.to, flow.token, flow.amount);
  }
  return net;
}

/** The router's partner fees are numerators over this. */
export const partnerFeeDenominator = 10_000_000_000n;

export type FlowRules = {
  wallet: Address;
  /** What the wallet pays: exactly `amount` of `token` (`atMost`: a deposit, whose farm returns what it cannot use). */
  pays: { token: Address; amount: bigint; atMost?: boolean };
  /** What the wallet receives: at least `minimum` of `token`. */
  receives: { token: Address; minimum: bigint };
  /** Contracts of the chain data that may keep what they receive (the farm and gauge of a deposit or withdraw). */
  venues: readonly Address[];
  /**
   * A deposit's or withdraw's pool: it may take or give its two tokens and mint or burn its own; its factory's
   * protocol fee recipient (`feeTo`, when switched on) may receive that pool's own LP tokens and nothing else.
   */
  positionPool?: { address: Address; token0: Address; token1: Address; protocolFeeRecipient?: Address };
  /** The router that pays partner fees, and each partner of the route with its fee recipient and numerator. */
  partnerFees?: { router: Address; recipients: readonly { recipient: Address; feeNumerator: bigint }[] };
  /**
   * The Reserves of the route's verified Mento hops, each with the collateral a hop pays into it: it may gain that
   * token and nothing else (a Mento swap's stables are burned and minted, so only collateral shows as a gain).
   */
  mentoReserves?: readonly { address: Address; token: Address }[];
  /**
   * The route's verified Mento v3 pools: each makes its one swap at its fees (`feePpm`), and its protocol fee
   * recipient may take at most `protocolFeeBps` of what the pool was paid of the hop's input, and nothing else.
   */
  fixedPricePools?: readonly { address: Address; tokenIn: Address; feePpm: number; protocolFeeRecipient: Address; protocolFeeBps: bigint }[];
};

/** One swap the flows show in a pool a known factory made (or a list holds), with that pool's fee. */
export type ProvenSwap = { pool: Address; tokenIn: Address; tokenOut: Address; amountIn: bigint; amountOut: bigint; feePpm: number };

/** The fee of a pool of exactly these two tokens, when a known factory made it or a list holds it. */
export type PoolProver = (pool: Address, tokens: readonly [Address, Address]) => Promise<number | undefined>;

const refuse = (message: string): never => {
  throw new GuardRefusal('token-flow', message);
};

/**
 * Accounts for every token movement of a simulated transaction under `rules` (see the module comment);
 * returns the swaps it made, in the order their pools were first paid. Throws GuardRefusal('token-flow').
 */
export async function accountFlows(flows: readonly TokenFlow[], rules: FlowRules, provePool: PoolProver): Promise<ProvenSwap[]> {
  const net = netChanges(flows);
  const describe = (token: string, amount: bigint) => `${amount} of ${getAddress(token)}`;
  checkWallet(net.get(rules.wallet.toLowerCase()) ?? new Map(), rules, describe);

  const firstPaid = new Map<string, number>();
  flows.forEach((flow, i) => firstPaid.has(flow.to.toLowerCase()) || firstPaid.set(flow.to.toLowerCase(), i));
  const swaps: (ProvenSwap & { order: number })[] = [];
  for (const [holder, changes] of net) {
    if (isAddressEqual(holder as Address, rules.wallet)) continue;
    const gains = [...changes].filter(([, amount]) => amount > 0n);
    if (gains.length === 0) continue;
    if (rules.venues.some((venue) => isAddressEqual(venue, holder as Address))) continue;
    const position = rules.positionPool;
    if (position && isAddressEqual(position.address, holder as Address)) {
      const own = [position.token0, position.token1, position.address];
      const foreign = gains.find(([token]) => !own.some((allowed) => isAddressEqual(allowed, token as Address)));
      if (foreign) refuse(`the position's pool ${getAddress(holder)} would receive ${describe(...foreign)}, not one of its own tokens`);
      continue;
    }
    if (position?.protocolFeeRecipient && isAddressEqual(position.protocolFeeRecipient, holder as Address)) {
      const foreign = gains.find(([token]) => !isAddressEqual(token as Address, position.address));
      if (foreign) refuse(`the protocol fee recipient ${getAddress(holder)} would receive ${describe(...foreign)}, not the pool's own LP token`);
      continue;
    }
    const reserve = rules.mentoReserves?.filter((entry) => isAddressEqual(entry.address, holder as Address)) ?? [];
    if (reserve.length > 0) {
      const foreign = gains.find(([token]) => !reserve.some((entry) => isAddressEqual(entry.token, token as Address)));
      if (foreign) refuse(`Mento's Reserve ${getAddress(holder)} would receive ${describe(...foreign)}, which no Mento hop of the route pays into it`);
      continue;
    }
    const feeOf = rules.fixedPricePools?.filter((entry) => isAddressEqual(entry.protocolFeeRecipient, holder as Address)) ?? [];
    if (feeOf.length > 0) {
      checkProtocolFee(flows, holder, gains, feeOf, describe);
      continue;
    }
    const partner = rules.partnerFees?.recipients.find((entry) => isAddressEqual(entry.recipient, holder as Address));
    if (partner && rules.partnerFees) {
      checkPartnerFee(flows, holder, gains, partner.feeNumerator, rules.partnerFees.router, describe);
      continue;
    }
    const losses = [...changes].filter(([, amount]) => amount < 0n);
    const [gain] = gains;
    const [loss] = losses;
    if (gains.length !== 1 || losses.length !== 1 || !gain || !loss) {
      const [token, amount] = gains[0] as [string, bigint];
      refuse(
        `${getAddress(holder)} would keep ${describe(token, amount)}: it is neither the wallet, a known pool making one swap, a listed venue nor our partner`,
      );
    }
    const [tokenIn, amountIn] = gain as [string, bigint];
    const [tokenOut, paid] = loss as [string, bigint];
    // A verified Mento v3 pool is proven by its factory's list (src/pools/mento-fpmm/hop.ts), not by a factory's getPool.
    const fixedPrice = rules.fixedPricePools?.find(
      (entry) => isAddressEqual(entry.address, holder as Address) && isAddressEqual(entry.tokenIn, tokenIn as Address),
    );
    const feePpm = fixedPrice ? fixedPrice.feePpm : await provePool(getAddress(holder), [getAddress(tokenIn), getAddress(tokenOut)]);
    if (feePpm === undefined) {
      refuse(
        `${getAddress(holder)} would take ${describe(tokenIn, amountIn)} for ${describe(tokenOut, -paid)}: a swap in a pool that no known factory made and no list holds`,
      );
    }
    swaps.push({
      pool: getAddress(holder),
      tokenIn: getAddress(tokenIn),
      tokenOut: getAddress(tokenOut),
      amountIn,
      amountOut: -paid,
      feePpm: feePpm as number,
      order: firstPaid.get(holder) ?? 0,
    });
  }
  return swaps.sort((a, b) => a.order - b.order).map(({ order: _order, ...swap }) => swap);
}

function checkWallet(changes: ReadonlyMap<string, bigint>, rules: FlowRules, describe: (token: string, amount: bigint) => string): void {
  const { pays, receives, wallet } = rules;
  const paid = -(changes.get(pays.token.toLowerCase()) ?? 0n);
  if (pays.atMost ? paid > pays.amount || paid <= 0n : paid !== pays.amount) {
    refuse(`the wallet ${wallet} would pay ${describe(pays.token, paid)}, not ${pays.atMost ? 'at most ' : ''}the ${pays.amount} it trades`);
  }
  const received = changes.get(receives.token.toLowerCase()) ?? 0n;
  if (received < receives.minimum) refuse(`the wallet ${wallet} would receive ${describe(receives.token, received)}, below the minimum ${receives.minimum}`);
  for (const [token, amount] of changes) {
    if (amount < 0n && !isAddressEqual(token as Address, pays.token)) refuse(`the wallet ${wallet} would also pay ${describe(token, -amount)}`);
  }
}

/** A Mento v3 pool's protocol fee recipient takes only the hop's input token, at most the protocol fee of what the pool was paid of it. */
function checkProtocolFee(
  flows: readonly TokenFlow[],
  holder: string,
  gains: readonly [string, bigint][],
  pools: NonNullable<FlowRules['fixedPricePools']>,
  describe: (token: string, amount: bigint) => string,
): void {
  for (const [token, amount] of gains) {
    const paying = pools.filter((pool) => isAddressEqual(pool.tokenIn, token as Address));
    if (paying.length === 0)
      refuse(
        `Mento v3's protocol fee recipient ${getAddress(holder)} would receive ${describe(token, amount)}, which no Mento v3 hop of the route pays its pool`,
      );
    const bound = paying.reduce((sum, pool) => {
      const paidToPool = flows
        .filter((flow) => isAddressEqual(flow.to, pool.address) && isAddressEqual(flow.token, token as Address))
        .reduce((total, flow) => total + flow.amount, 0n);
      return sum + (paidToPool * pool.protocolFeeBps) / 10_000n;
    }, 0n);
    if (amount > bound)
      refuse(`Mento v3's protocol fee recipient ${getAddress(holder)} would take ${describe(token, amount)}, more than the protocol fee of ${bound}`);
  }
}

/** A partner takes only from what the router received, at most its fee numerator of it. */
function checkPartnerFee(
  flows: readonly TokenFlow[],
  holder: string,
  gains: readonly [string, bigint][],
  feeNumerator: bigint,
  router: Address,
  describe: (token: string, amount: bigint) => string,
): void {
  for (const [token, amount] of gains) {
    const grossToRouter = flows
      .filter((flow) => isAddressEqual(flow.to, router) && isAddressEqual(flow.token, token as Address))
      .reduce((sum, flow) => sum + flow.amount, 0n);
    const bound = (grossToRouter * feeNumerator) / partnerFeeDenominator;
    if (amount > bound) refuse(`the partner's recipient ${getAddress(holder)} would take ${describe(token, amount)}, more than its fee of ${bound}`);
  }
}
