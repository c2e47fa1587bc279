/**
 * The devnet's oracle reporter: writes the world's prices (world-spec's `usdPrice`, or prices a test sets)
 * into the devnet's price feeds, from the reporter account, as an oracle network reports off-chain market
 * prices. It never looks at the devnet's pools: a feed that followed them would be no check on them.
 */
import { type Address, createPublicClient, createWalletClient, http, parseUnits } from 'viem';
import { chainFor } from '../chain/chains.ts';
import type { AddressBook } from '../config/address-book.ts';
import { devnetAccount } from './accounts.ts';
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

/** Reports `prices` (USD per whole token, by symbol; default the world-spec's) into the feeds of those tokens. */
export async function reportWorldPrices(rpcUrl: string, book: Pick<AddressBook, 'chainId' | 'priceSources'>, prices: WorldPrices = initialWorldPrices): Promise<void> {
  const reporter = devnetAccount(roles.oracleReporter);
  const client = createWalletClient({ chain: chainFor(book.chainId, rpcUrl), transport: http(rpcUrl), account: reporter.account });
  const reader = createPublicClient({ transport: http(rpcUrl) });
  const feeds = feedsOf(book);
  for (const [symbol, usd] of Object.entries(prices)) {
    const feed = feeds.get(symbol);
    if (!feed) continue;
    const hash = await client.writeContract({ address: feed, abi: artifacts.DevnetPriceFeed.abi, functionName: 'report', args: [parseUnits(usd.toString(), feedDecimals)] });
    await reader.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  }
}

/** Reports the L2 sequencer up (0) or down (1) into the deployment's sequencer uptime feed, as of now. */
export async function reportSequencer(rpcUrl: string, book: Pick<AddressBook, 'chainId' | 'sequencerUptimeFeed'>, status: 'up' | 'down'): Promise<void> {
  const feed = book.sequencerUptimeFeed?.address;
  if (!feed) throw new Error('this deployment has no sequencer uptime feed');
  const client = createWalletClient({ chain: chainFor(book.chainId, rpcUrl), transport: http(rpcUrl), account: devnetAccount(roles.oracleReporter).account });
  const hash = await client.writeContract({ address: feed, abi: artifacts.DevnetSequencerUptimeFeed.abi, functionName: 'report', args: [status === 'up' ? 0n : 1n] });
  await createPublicClient({ transport: http(rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 10 });
}

/** Re-reports the world prices every `intervalMs`, so the feeds stay fresh as real ones do. Returns a stop function. */
export function reportEvery(rpcUrl: string, book: Pick<AddressBook, 'chainId' | 'priceSources'>, intervalMs: number, prices: () => WorldPrices = () => initialWorldPrices): () => void {
  const timer = setInterval(() => {
    reportWorldPrices(rpcUrl, book, prices()).catch(() => {});
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
