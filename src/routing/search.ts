/**
 * The route search: every simple path (no token, so no pool, twice) of at most `maxHops` hops from tokenIn to
 * tokenOut, each priced exactly, the best kept. Exhaustive, so never below the best path, but pruned where no
 * answer can lie: a hop is taken only to a token from which tokenOut is still reachable in the hops left (distances
 * from tokenOut found first, by breadth). Ranked by what the path pays less what its hops cost in gas, priced in
 * tokenOut: an extra hop must gain more than it costs.
 *
 * The search is a generator that pauses every few hundred hops, so that a driver can give the event loop back (no
 * request stalls the others) and stop at a time budget with the best path found so far.
 */
import { type Address, isAddressEqual } from 'viem';
import type { Hop, Market, Neighbor } from './market.ts';

export type RouteSearch = {
  maxHops: number;
  /** Protocol ids no hop may use. */
  exclude?: readonly string[];
  /** Pools (by address) no hop may use. */
  excludePools?: readonly Address[];
  /** The tokens (lower-case) a path may pass through between its ends; none: any. */
  through?: ReadonlySet<string>;
  /** What one hop costs in gas, in tokenOut's raw units (0: rank by output alone). */
  hopCost?: bigint;
};

export type FoundPath = { hops: Hop[]; amountOut: bigint };

export type SearchOutcome = {
  best: FoundPath | undefined;
  /** False when the budget ran out first: `best` is the best of the paths priced until then. */
  complete: boolean;
  /** Hops priced. */
  priced: number;
};

const key = (address: Address) => address.toLowerCase();
/** Hops priced between two pauses. */
const HOPS_PER_STEP = 256;

/** Whether a search may not use a pool: its protocol or its address excluded. */
type Excluded = (neighbor: Neighbor) => boolean;

function excludedBy(search: RouteSearch): Excluded | undefined {
  const protocols = new Set(search.exclude ?? []);
  const pools = new Set((search.excludePools ?? []).map(key));
  if (protocols.size === 0 && pools.size === 0) return undefined;
  return (neighbor) => protocols.has(neighbor.pool.protocol) || pools.has(neighbor.poolKey);
}

/**
 * How many hops each token is from `tokenOut`, up to `maxHops`, over the pools not excluded and, between the ends,
 * through the tokens allowed (`through`).
 */
function distancesTo(
  market: Market,
  tokenOut: Address,
  maxHops: number,
  excluded: Excluded | undefined,
  through: ReadonlySet<string> | undefined,
): Map<string, number> {
  const distance = new Map<string, number>([[key(tokenOut), 0]]);
  let frontier: Address[] = [tokenOut];
  for (let depth = 1; depth <= maxHops && frontier.length > 0; depth++) {
    const next: Address[] = [];
    for (const token of frontier) {
      for (const neighbor of market.neighbors(token)) {
        const { other, otherKey } = neighbor;
        if (excluded?.(neighbor) || distance.has(otherKey)) continue;
        distance.set(otherKey, depth);
        // A token no path may pass through can still start one.
        if (!through || through.has(otherKey)) next.push(other);
      }
    }
    frontier = next;
  }
  return distance;
}

/** Better: pays more net of its hops' gas, or as much in fewer hops. */
function better(candidate: FoundPath, than: FoundPath | undefined, hopCost: bigint): boolean {
  if (!than) return true;
  const net = candidate.amountOut - hopCost * BigInt(candidate.hops.length);
  const best = than.amountOut - hopCost * BigInt(than.hops.length);
  return net > best || (net === best && candidate.hops.length < than.hops.length);
}

/**
 * The search itself; `progress.best` holds the best path so far at every pause. Returns when every path was priced.
 */
export function* searchPaths(
  market: Market,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  search: RouteSearch,
  progress: { best?: FoundPath; priced: number },
): Generator<void, void> {
  const excluded = excludedBy(search);
  const hopCost = search.hopCost ?? 0n;
  const through = search.through;
  const distance = distancesTo(market, tokenOut, search.maxHops, excluded, through);
  if (!distance.has(key(tokenIn)) || isAddressEqual(tokenIn, tokenOut)) return;
  const visited = new Set<string>([key(tokenIn)]);
  const hops: Hop[] = [];

  function* visit(token: Address, amount: bigint): Generator<void, void> {
    const left = search.maxHops - hops.length - 1;
    for (const neighbor of market.neighbors(token)) {
      const away = distance.get(neighbor.otherKey);
      if (away === undefined || away > left || visited.has(neighbor.otherKey) || excluded?.(neighbor)) continue;
      if (away > 0 && through && !through.has(neighbor.otherKey)) continue;
      const out = market.neighborOutput(neighbor, amount);
      if (++progress.priced % HOPS_PER_STEP === 0) yield;
      if (out === 0n) continue;
      hops.push({ pool: neighbor.pool, tokenIn: token, tokenOut: neighbor.other });
      if (away === 0) {
        const found = { hops: [...hops], amountOut: out };
        if (better(found, progress.best, hopCost)) progress.best = found;
      } else {
        visited.add(neighbor.otherKey);
        yield* visit(neighbor.other, out);
        visited.delete(neighbor.otherKey);
      }
      hops.pop();
    }
  }
  yield* visit(tokenIn, amountIn);
}

/** The whole search at once (deposit and withdraw legs, tests). */
export function bestPathNow(market: Market, tokenIn: Address, tokenOut: Address, amountIn: bigint, search: RouteSearch): FoundPath | undefined {
  const progress: { best?: FoundPath; priced: number } = { priced: 0 };
  const steps = searchPaths(market, tokenIn, tokenOut, amountIn, search, progress);
  while (!steps.next().done);
  return progress.best;
}

/**
 * The search within `budgetMs`, handing the event loop back every `sliceMs` so that other requests (and `GET /`)
 * are answered meanwhile. Past the budget it answers the best path found so far, `complete: false`.
 */
export async function searchWithin(
  market: Market,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  search: RouteSearch,
  { budgetMs, sliceMs = 2 }: { budgetMs: number; sliceMs?: number },
): Promise<SearchOutcome> {
  const progress: { best?: FoundPath; priced: number } = { priced: 0 };
  const steps = searchPaths(market, tokenIn, tokenOut, amountIn, search, progress);
  const started = performance.now();
  let sliceStarted = started;
  for (let step = steps.next(); !step.done; step = steps.next()) {
    const now = performance.now();
    if (now - started > budgetMs) return { best: progress.best, complete: false, priced: progress.priced };
    if (now - sliceStarted > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
  }
  return { best: progress.best, complete: true, priced: progress.priced };
}
