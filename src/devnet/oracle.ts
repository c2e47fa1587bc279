/**
 * The devnet's oracle reporter: writes the world's prices (world-spec's `usdPrice`, or prices a test sets)
 * into the devnet's price feeds, from the reporter account, as an oracle network reports off-chain market
 * prices. It never looks at the devnet's pools: a feed that followed them would be no check on them.
 */
import { type Address, type Hex, createPublicClient, createWalletClient, http, parseUnits } from 'viem';
import { chainFor } from '../chains.ts';
import type { AddressBook } from '../config/address-book.ts';
import { devnetAccount } from './accounts.ts';
import { devnetReceipt } from './receipt.ts';
import * as artifacts from './artifacts/contracts.ts';
import { feedDecimals, roles, tokenSpecs } from './world-spec.ts';

export type WorldPrices = Readonly<Record<string, number>>;

/** The world-spec prices, by symbol. */
export const initialWorldPrices: WorldPrices = Object.fromEntries(tokenSpecs.map((spec) => [spec.symbol, spec.usdPrice]));

function feedsOf(book: Pick<AddressBook, 'priceSources'>): Map<string, Address> {
  const feeds = new Map<string, Address>();
  for (const [symbol, sources] of Object.entries(book.priceSources ?? {})) {
    for (const source of sources) if (source.kind === 'feed') feeds.set(symbol, source.address);
  }
  return feeds;
}

/** What the reporter reads of an address book: where the feeds are. */
type ReportedBook = Pick<AddressBook, 'chainId' | 'priceSources' | 'mento'>;

/**
 * Reports `prices` (USD per whole token, by symbol; default the world-spec's) into the feeds of those tokens, and
 * into SortedOracles as the rate of their quote token (its price from `prices`, else the world-spec's); and, in a
 * world with Mento, into Mento's other rate feeds (USD per whole `base`).
 */
export async function reportWorldPrices(rpcUrl: string, book: ReportedBook, prices: WorldPrices = initialWorldPrices): Promise<void> {
  const reporter = devnetAccount(roles.oracleReporter);
  const client = createWalletClient({ chain: chainFor(book.chainId, rpcUrl), transport: http(rpcUrl), account: reporter.account });
  const reader = createPublicClient({ transport: http(rpcUrl) });
  const feeds = feedsOf(book);
  for (const [symbol, usd] of Object.entries(prices)) {
    // One reporter account: each report is mined before the next is signed (its nonce follows), and must have gone in.
    const mined = async (sent: Promise<Hex>) => reported(reader, await sent);
    const feed = feeds.get(symbol);
    if (feed)
      await mined(
        client.writeContract({ address: feed, abi: artifacts.DevnetPriceFeed.abi, functionName: 'report', args: [parseUnits(usd.toString(), feedDecimals)] }),
      );
    for (const source of book.priceSources?.[symbol] ?? []) {
      if (source.kind !== 'sorted-oracles') continue;
      const quoteUsd = source.quote === 'USD' ? 1 : (prices[source.quote] ?? initialWorldPrices[source.quote]);
      if (quoteUsd === undefined) throw new Error(`no world price for ${source.quote}, the quote of ${symbol}'s SortedOracles rate`);
      // Fixidity: 1e24 is one quote token per whole token.
      const rate = parseUnits((usd / quoteUsd).toFixed(12), 24);
      await mined(
        client.writeContract({
          address: source.address,
          abi: artifacts.DevnetSortedOracles.abi,
          functionName: 'report',
          args: [source.rateFeedId, rate],
          gas: sortedOraclesReportGas,
        }),
      );
    }
  }
  const mento = book.mento;
  if (mento) {
    const price = (symbol: string) => prices[symbol] ?? initialWorldPrices[symbol] ?? 0;
    await reportRates(
      rpcUrl,
      book.chainId,
      mento.sortedOracles,
      mento.rateFeeds.map((feed) => ({ id: feed.id, usd: price(feed.base) })),
    );
  }
}

/**
 * A fixed gas limit for a SortedOracles report, not an estimate: each report asks Mento's BreakerBox to check the
 * feed's breakers, whose work (an average updated, a breaker tripped or reset) depends on the block it lands in, so
 * an estimate made a block earlier can fall short, and the report then reverts with the old rate standing.
 */
const sortedOraclesReportGas = 2_000_000n;

/** A report's receipt, once it went in; a report that reverted throws (the rate it meant to set would not stand). */
async function reported(reader: Parameters<typeof devnetReceipt>[0], hash: Hex) {
  const receipt = await devnetReceipt(reader, hash);
  if (receipt.status !== 'success') throw new Error(`the price report ${hash} reverted: the rate it reports does not stand`);
  return receipt;
}

/** Reports each rate (USD per whole token) into SortedOracles' feed `id`, as Fixidity (1e24 = 1), from the reporter. */
export async function reportRates(rpcUrl: string, chainId: number, sortedOracles: Address, rates: readonly { id: Address; usd: number }[]): Promise<void> {
  const client = createWalletClient({ chain: chainFor(chainId, rpcUrl), transport: http(rpcUrl), account: devnetAccount(roles.oracleReporter).account });
  const reader = createPublicClient({ transport: http(rpcUrl) });
  for (const { id, usd } of rates) {
    if (!(usd > 0)) throw new Error(`no world price for Mento rate feed ${id}`);
    const hash = await client.writeContract({
      address: sortedOracles,
      abi: artifacts.DevnetSortedOracles.abi,
      functionName: 'report',
      args: [id, parseUnits(usd.toFixed(12), 24)],
      gas: sortedOraclesReportGas,
    });
    await reported(reader, hash);
  }
}

/** Reports the L2 sequencer up (0) or down (1) into the deployment's sequencer uptime feed, as of now. */
export async function reportSequencer(rpcUrl: string, book: Pick<AddressBook, 'chainId' | 'sequencerUptimeFeed'>, status: 'up' | 'down'): Promise<void> {
  const feed = book.sequencerUptimeFeed?.address;
  if (!feed) throw new Error('this deployment has no sequencer uptime feed');
  const client = createWalletClient({ chain: chainFor(book.chainId, rpcUrl), transport: http(rpcUrl), account: devnetAccount(roles.oracleReporter).account });
  const answer = status === 'up' ? 0n : 1n;
  // A fixed gas limit, not an estimate: reporting the status the feed already has returns early and cheaply, so an
  // estimate made on a state that does not show the last report yet (anvil under load) fell short of a real change.
  const hash = await client.writeContract({
    address: feed,
    abi: artifacts.DevnetSequencerUptimeFeed.abi,
    functionName: 'report',
    args: [answer],
    gas: 150_000n,
  });
  const reader = createPublicClient({ transport: http(rpcUrl) });
  const receipt = await devnetReceipt(reader, hash);
  if (receipt.status !== 'success') throw new Error(`the sequencer report (${status}) reverted in ${hash}`);
  // Done when the latest state says so: a receipt alone has been seen before the feed read back its new status
  // (a test reverting the devnet can meet the same transaction, and its receipt, twice).
  for (let tries = 0; ; tries++) {
    const [, current] = await reader.readContract({ address: feed, abi: artifacts.DevnetSequencerUptimeFeed.abi, functionName: 'latestRoundData' });
    if (current === answer) return;
    if (tries === 100) throw new Error(`the sequencer feed still says ${current} after reporting ${status} in ${hash}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Re-reports the world prices every `intervalMs`, so the feeds stay fresh as real ones do. Returns a stop function. */
export function reportEvery(rpcUrl: string, book: ReportedBook, intervalMs: number, prices: () => WorldPrices = () => initialWorldPrices): () => void {
  const timer = setInterval(() => {
    reportWorldPrices(rpcUrl, book, prices()).catch(() => {});
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
