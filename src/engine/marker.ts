/**
 * The valuation marker: records, at one block, the independent reference price of every token the strategies
 * touch and each wallet's balances of them, so `status` and the status page can say what the money is worth
 * over time without a node. It marks at start, every `everyMs`, and soon after every run that traded. A failed
 * reading is skipped (a token without a price has no mark), never guessed.
 */
import { type Address, erc20Abi } from 'viem';
import type { BalanceMark, Ledger, PriceMark } from '../ledger/ledger.ts';
import type { Logger } from '../ops/logger.ts';
import { NoPriceError, type PriceReference } from '../price/reference.ts';
import { tokensHeld } from '../strategy/plan.ts';
import type { Strategy } from '../strategy/types.ts';
import type { TokenInfo } from '../units.ts';
import type { ChainClient } from '../chains.ts';

/** The token under which the chain's own coin is priced (gas is paid in it). */
export const nativePriceKey = 'native';

export type MarkerDeps = {
  client: ChainClient;
  prices: PriceReference;
  ledger: Ledger;
  strategies: readonly Strategy[];
  /** Wallet name to address. */
  wallets: ReadonlyMap<string, Address>;
  /** Whether this daemon holds a wallet now: daemons sharing a ledger each record the balances of their own. */
  holds?: (wallet: Address) => boolean;
  nativeToken?: TokenInfo;
  logger: Logger;
  now?: () => number;
  /**
   * Every balance the mark read, and each held wallet's native coin, at the mark's block: the daemon's metrics take
   * them from here, so no run reads balances for them.
   */
  onBalances?: (readings: WalletReadings) => void;
};

/** One mark's balances: of each held wallet's tokens, and of its native coin. */
export type WalletReadings = {
  tokens: readonly { wallet: Address; token: Address; balance: bigint }[];
  native: readonly { wallet: Address; balance: bigint }[];
};

const unique = (addresses: readonly Address[]) => [...new Map(addresses.map((address) => [address.toLowerCase(), address])).values()];

/** What the marker reads with, as a daemon or `once` opened it. */
export function markerDepsOf(
  runtime: { client: ChainClient; config: { strategies: readonly Strategy[] }; nativeToken?: TokenInfo },
  execution: {
    ledger: Ledger;
    executors: ReadonlyMap<string, { prices: PriceReference; wallet: { address: Address } }>;
    leases?: { holds(wallet: Address): boolean };
  },
  logger: Logger,
  onBalances?: MarkerDeps['onBalances'],
): MarkerDeps | undefined {
  const [first] = execution.executors.values();
  if (!first) return undefined;
  return {
    client: runtime.client,
    prices: first.prices,
    ledger: execution.ledger,
    strategies: runtime.config.strategies,
    wallets: new Map([...execution.executors].map(([name, executor]) => [name, executor.wallet.address])),
    holds: execution.leases && ((wallet) => execution.leases?.holds(wallet) ?? true),
    nativeToken: runtime.nativeToken,
    logger,
    onBalances,
  };
}

/** Marks once, logging rather than throwing when the node does not answer. */
export async function markOrWarn(deps: MarkerDeps): Promise<void> {
  await markOnce(deps).catch((error: unknown) =>
    deps.logger.warn({ error: error instanceof Error ? error.message.split('\n')[0] : String(error) }, 'could not record prices and balances for status'),
  );
}

/**
 * Reads and records one mark; resolves to the number of rows written (unchanged values write none). Every read is
 * asked in one tick, so a batching transport sends them as one request: the prices now (which read the latest block
 * once, shared), and the balances at the latest block. A node answers a batch from its head; should a block land
 * between two of its calls, a balance is one block newer than the mark says, which a valuation can bear.
 */
export async function markOnce(deps: MarkerDeps): Promise<number> {
  const at = (deps.now ?? Date.now)();
  // The native coin is priced even when no strategy trades it: gas is valued with it.
  const native = deps.nativeToken?.address;
  const tokens = unique([...deps.strategies.flatMap(tokensHeld), ...(native ? [native] : [])]).filter((token) => deps.prices.hasSource(token));
  const holdings = [...deps.wallets]
    .filter(([, wallet]) => deps.holds?.(wallet) ?? true)
    .flatMap(([name, wallet]) =>
      unique(deps.strategies.filter((strategy) => strategy.wallet === name).flatMap(tokensHeld)).map((token) => ({ wallet, token })),
    );
  const held = unique(holdings.map((holding) => holding.wallet));
  const [block, priced, balanceReads, nativeBalances] = await Promise.all([
    deps.prices.headNow(),
    Promise.all(
      tokens.map(async (token): Promise<Omit<PriceMark, 'block'> | undefined> => {
        try {
          const price = await deps.prices.usdPrice(token);
          return { at, token, usdE18: price.usdE18, source: price.source };
        } catch (error) {
          if (error instanceof NoPriceError) return undefined;
          throw error;
        }
      }),
    ),
    Promise.all(
      holdings.map(async ({ wallet, token }) => ({
        wallet,
        token,
        balance: await deps.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] }),
      })),
    ),
    deps.onBalances ? Promise.all(held.map(async (wallet) => ({ wallet, balance: await deps.client.getBalance({ address: wallet }) }))) : [],
  ]);
  const prices: PriceMark[] = priced.filter((mark) => mark !== undefined).map((mark) => ({ ...mark, block: block.number }));
  const nativePrice = native && prices.find((mark) => mark.token.toLowerCase() === native.toLowerCase());
  if (nativePrice) prices.push({ ...nativePrice, token: nativePriceKey });
  const balances: BalanceMark[] = balanceReads.map((reading) => ({ at, block: block.number, ...reading }));
  deps.onBalances?.({ tokens: balances, native: nativeBalances });
  const written = await deps.ledger.marks.recordMarks(prices, balances);
  // Unchanged values write no rows; when they were last seen is what `status` values at.
  await deps.ledger.strategies.setMeta(markedAtKey, String(at));
  return written;
}

/** The ledger_meta key of the last mark's time (ms). */
export const markedAtKey = 'marked-at';

export type Marker = {
  /** Settles when the first mark is recorded or failed: runs start after it, so holdings before any trade are known. */
  first: Promise<void>;
  /** Marks within about a second (coalescing several requests): after a run that traded. */
  soon(): void;
  stop(): Promise<void>;
};

export function startMarker(deps: MarkerDeps, everyMs: number): Marker {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const mark = (): Promise<void> | undefined => {
    if (stopped) return undefined;
    if (running) {
      again = true;
      return running;
    }
    running = markOrWarn(deps).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        mark();
      }
    });
    return running;
  };
  const interval = setInterval(mark, everyMs);
  interval.unref();
  let pending: NodeJS.Timeout | undefined;
  const first = mark() ?? Promise.resolve();
  return {
    first,
    soon() {
      if (pending || stopped) return;
      pending = setTimeout(() => {
        pending = undefined;
        mark();
      }, 500);
      pending.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(interval);
      clearTimeout(pending);
      await running;
    },
  };
}
