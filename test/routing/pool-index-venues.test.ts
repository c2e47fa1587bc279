/**
 * The routing service's pool index (src/routing/pool-index.ts) over the devnet's Mento while a venue breaks: an
 * exchange whose views revert is unroutable with the reason, every other pool keeps its state in the same block; the
 * index file, written without it, does not lose it: a start from the file reads the Broker's exchanges again, and the
 * exchange is back once its views answer.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mentoExchangeKey } from '../../src/pools/mento/kind.ts';
import { PoolIndex } from '../../src/routing/pool-index.ts';
import { routingSetupFor } from '../../src/routing/setup.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { addRateFeed, exchangeIdOf, removeRateFeed } from '../helpers/mento-governance.ts';

const fork = useDevnetFork({ mento: true });

function indexWith(cacheFile: string) {
  const setup = routingSetupFor(fork.addressBook.chainId, fork.addressBook.rpcUrl, fork.addressBook);
  return new PoolIndex(fork.publicClient, { factories: setup.factories, router: setup.router, cacheFile });
}

describe('the pool index while a Mento venue breaks', () => {
  it('leaves the exchange out with the reason, keeps every other pool, and finds it again after a start from its file', async () => {
    const cacheFile = join(mkdtempSync(join(tmpdir(), 'routekeeper-index-')), 'index.json');
    const provider = fork.addressBook.mento?.biPoolManager as `0x${string}`;
    const celoExchange = mentoExchangeKey(provider, exchangeIdOf(fork, 'cUSD/CELO')).toLowerCase();
    const first = indexWith(cacheFile);
    const before = await first.current();
    expect(before.states.has(celoExchange)).toBe(true);
    const pools = before.states.size;

    await removeRateFeed(fork, fork.token('cUSD'));
    const broken = await first.current();
    expect(broken.states.has(celoExchange)).toBe(false);
    expect(broken.unroutable.get(celoExchange)).toMatch(/^getRateFeedTradingMode on 0x[0-9a-fA-F]{40} reverted/);
    expect(broken.states.size).toBe(pools - 1);
    expect(broken.head.number).toBe(before.head.number + 1n);
    await first.close();

    await addRateFeed(fork, fork.token('cUSD'));
    const second = indexWith(cacheFile);
    // The file's block is still the chain's parent: the start follows one block from it.
    const after = await second.current();
    expect(after.head.number).toBe(broken.head.number + 1n);
    expect(after.states.has(celoExchange)).toBe(true);
    expect(after.unroutable.size).toBe(0);
    expect(after.states.size).toBe(pools);
    await second.close();
  });
});
