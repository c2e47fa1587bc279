/**
 * Keeps an automining anvil node from leaving a transaction in its pool for good (the rare anvil fault that
 * devnet/receipt.ts names): a transaction still pending at two looks `intervalMs` apart, automine on at both, gets
 * the block a chain would have made. Whoever waits for it (a daemon following its nonce, a test) then sees it mined.
 * A node with automine off is left alone: somebody holds its transactions back on purpose.
 */
import { createTestClient, http } from 'viem';

type PoolContent = { pending: Record<string, Record<string, { hash: string }>> };

/** Starts watching the node at `rpcUrl`; returns the stop. */
export function mineWhatThePoolKeeps(rpcUrl: string, intervalMs = 1_000): () => void {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl, { retryCount: 0 }) });
  const automine = () => client.request<{ Method: 'anvil_getAutomine'; Parameters: []; ReturnType: boolean }>({ method: 'anvil_getAutomine', params: [] });
  let seen = new Set<string>();
  const look = async () => {
    if (!(await automine())) {
      seen = new Set();
      return;
    }
    const content = await client.request<{ Method: 'txpool_content'; Parameters: []; ReturnType: PoolContent }>({ method: 'txpool_content', params: [] });
    const pending = Object.values(content.pending).flatMap((byNonce) => Object.values(byNonce).map((tx) => tx.hash));
    const kept = pending.some((hash) => seen.has(hash));
    seen = new Set(pending);
    // Asked again just before: a test that turned automine off since holds its transactions itself.
    if (kept && (await automine())) {
      await client.mine({ blocks: 1 });
      seen = new Set();
    }
  };
  let looking: Promise<void> | undefined;
  const timer = setInterval(() => {
    // One look at a time; a node that is gone (stopped) or busy fails a look, and the next one tries again.
    looking ??= look()
      .catch(() => {})
      .finally(() => (looking = undefined));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
