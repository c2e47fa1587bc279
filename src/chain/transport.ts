/**
 * How the daemon reaches its node: one URL, or several with viem's `fallback` ranking them by latency and
 * stability (a failing node is passed over until it answers again). Every URL must be the same chain: checked
 * once at start-up by `chainIdentityOf` on each, since a fallback to another chain would settle trades with
 * the wrong chain's evidence.
 */
import { type Hex, type Transport, createPublicClient, fallback, http } from 'viem';
import { ConfigError } from '../errors.ts';
import { ChainUnreachableError } from './errors.ts';
import type { ChainIdentity } from '../model/attempt.ts';
import { redactUrl, scrub } from '../ops/secrets.ts';

/** `timeoutMs`: how long one request may go unanswered (viem's 10 s by default). */
export type NodeTransportOptions = { batch?: boolean; signal?: AbortSignal; timeoutMs?: number };

/**
 * viem retries a failed request (HTTP 429 after its Retry-After, 5xx and timeouts with exponential backoff).
 * With one URL, that URL is retried; with several, a failing URL is passed over at once for the next in rank
 * order, and the whole list is retried.
 */
export function nodeTransport(urls: readonly string[], options: NodeTransportOptions = {}): Transport {
  const retries = { retryCount: 3, retryDelay: 200 };
  const one = (url: string, retryCount: number) =>
    http(url, { batch: options.batch ?? false, retryCount, retryDelay: retries.retryDelay, timeout: options.timeoutMs, fetchFn: stoppedBy(options.signal) });
  if (urls.length === 1) return one(urls[0] as string, retries.retryCount);
  return fallback(
    urls.map((url) => one(url, 0)),
    { rank: { interval: 15_000, sampleCount: 5 }, ...retries },
  );
}

/**
 * A fetch that also stops when `signal` (the daemon's shutdown) does. Given as viem's `fetchOptions.signal` instead,
 * the shutdown signal would replace the one viem times each request out with: a request the node never answers
 * would then hang until the daemon stops (a run stuck for minutes, seen with a node that swallows sends).
 */
function stoppedBy(signal: AbortSignal | undefined): typeof fetch | undefined {
  if (!signal) return undefined;
  return async (input, init) => {
    try {
      return await fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    } catch (error) {
      // An AbortError is what viem passes on at once, neither retried nor wrapped: the run sees its stop.
      if (signal.aborted) throw new DOMException(signal.reason instanceof Error ? signal.reason.message : 'stopped', 'AbortError');
      throw error;
    }
  };
}

/** The chain a node serves: its id and its block 0. A ConfigError names the URL (redacted) it could not reach. */
export async function chainIdentityOf(url: string): Promise<ChainIdentity> {
  const probe = createPublicClient({ transport: http(url, { retryCount: 1 }) });
  try {
    const [chainId, genesis] = await Promise.all([probe.getChainId(), probe.getBlock({ blockNumber: 0n })]);
    return { chainId, genesisHash: genesis.hash as Hex };
  } catch (error) {
    throw new ChainUnreachableError(`cannot reach the chain at ${redactUrl(url)}: ${scrub((error as Error).message.split('\n')[0] ?? '')}`, { cause: error });
  }
}

/** The one chain all the URLs serve; a ConfigError when two disagree. */
export async function commonChainOf(urls: readonly string[]): Promise<ChainIdentity> {
  const identities = await Promise.all(urls.map(chainIdentityOf));
  const [first] = identities;
  if (!first) throw new ConfigError('no RPC URL given');
  identities.forEach((identity, i) => {
    if (identity.chainId !== first.chainId || identity.genesisHash !== first.genesisHash) {
      throw new ConfigError(
        `RPC_URL names nodes of different chains: ${redactUrl(urls[0] as string)} serves chain ${first.chainId} (genesis ${first.genesisHash}), ${redactUrl(urls[i] as string)} chain ${identity.chainId} (genesis ${identity.genesisHash})`,
      );
    }
  });
  return first;
}
