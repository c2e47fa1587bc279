/**
 * What the V3 position benchmarks share: the devnet with Uniswap V3 and its routing service, a node proxy counting
 * the requests of each `routekeeper once` (run as a user runs it), a position's worth at the devnet's reference
 * prices, and a day passing with the oracle reporting.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { type WorldPrices, initialWorldPrices, reportWorldPrices } from '../src/devnet/oracle.ts';
import { amountsForLiquidity } from '../src/pools/uniswap-v3/liquidity.ts';
import { createForkClients } from '../support/fork-clients.ts';
import { cusdCeloPool, oneObservationPool, readPosition } from '../support/positions.ts';
import { startRpcProxy } from '../support/rpc-proxy.ts';
import { runAdopt, runOnce } from './serve-process.ts';

export type PositionBench = Awaited<ReturnType<typeof startPositionBench>>;

/**
 * `pool`: the position's pool, the cUSD/CELO 0.3% pool (its oracle grown) or the busy CELO/WETH 0.3% pool (Uniswap's
 * default one observation); `mover`: whether the daemon's address book names the position mover (a re-range and an
 * exit then move in one transaction) or not (in steps).
 */
export async function startPositionBench(name: string, options: { pool?: 'grown' | 'one-observation'; mover?: boolean } = {}) {
  const devnet = await startDevnet({ uniswapV3: true });
  const { service, addressBook } = await startDevnetRoutingService(devnet.addressBook);
  const fork = { ...createForkClients(addressBook), addressBook };
  const proxy = await startRpcProxy(addressBook.rpcUrl);
  const dir = mkdtempSync(join(tmpdir(), `routekeeper-bench-${name}-`));
  const bookFile = join(dir, 'address-book.json');
  const contracts = options.mover === false ? { ...addressBook.contracts, v3RangeMover: undefined } : addressBook.contracts;
  writeFileSync(bookFile, JSON.stringify({ ...addressBook, contracts, rpcUrl: proxy.url }));
  const dataDir = join(dir, 'data');
  const pool = options.pool === 'one-observation' ? oneObservationPool(fork) : cusdCeloPool(fork);
  let prices: WorldPrices = initialWorldPrices;
  let adopted = false;

  /** One `once` of strategy `lp` keeping `positionId` (`more`: the file's other fields), and the node's HTTP requests and calls meanwhile. */
  async function once(positionId: bigint, more: string) {
    const config = join(dir, `strategies-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      config,
      `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: lp, kind: uniswap-v3-position, wallet: main, every: 1h, position: ${positionId}, valueToken: cUSD, ${more} }
`,
    );
    if (!adopted) {
      // The benchmark opened the positions from the wallet before the ledger knew it: a person adopts it first.
      const nonce = await fork.publicClient.getTransactionCount({ address: addressBook.accounts[0]?.address as `0x${string}`, blockTag: 'pending' });
      const adopt = await runAdopt({ config, bookFile, dataDir, privateKey: addressBook.accounts[0]?.privateKey, nonce });
      if (adopt.code !== 0) throw new Error(`adopt exited ${adopt.code}: ${adopt.stderr.trim().split('\n').at(-1)}`);
      adopted = true;
    }
    const [requestsBefore, logBefore] = [proxy.requests(), proxy.log().length];
    const { code, stderr } = await runOnce({ strategy: 'lp', config, bookFile, dataDir, privateKey: addressBook.accounts[0]?.privateKey });
    if (code !== 0) throw new Error(`once exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
    const log = proxy.log().slice(logBefore);
    return { httpRequests: proxy.requests() - requestsBefore, calls: log.reduce((sum, request) => sum + request.length, 0) };
  }

  /** A position's worth in cUSD at the world's prices (the devnet's reference): what its liquidity holds, and what it owes. */
  async function worth(positionId: bigint): Promise<bigint> {
    const position = await readPosition(fork, positionId);
    const held = amountsForLiquidity(position.sqrtPriceX96, position, position.liquidity, 'down');
    return inCusd(pool.token0, held.amount0 + position.uncollected.amount0) + inCusd(pool.token1, held.amount1 + position.uncollected.amount1);
  }

  /** An amount of a token in cUSD at the world's prices now. */
  function inCusd(symbol: string, amount: bigint): bigint {
    const [usd, cusd] = [prices[symbol] ?? initialWorldPrices[symbol], prices.cUSD ?? initialWorldPrices.cUSD];
    if (usd === undefined || cusd === undefined) throw new Error(`no world price for ${symbol}`);
    return (amount * BigInt(Math.round(usd * 1e9))) / BigInt(Math.round(cusd * 1e9));
  }

  /** A day passes; the oracle reports the world's prices (`next`, once given, from then on). */
  async function dayLater(next?: WorldPrices): Promise<void> {
    if (next) prices = next;
    await fork.testClient.increaseTime({ seconds: 86_400 });
    await fork.testClient.mine({ blocks: 1 });
    await reportWorldPrices(addressBook.rpcUrl, addressBook, prices);
  }

  async function close(): Promise<void> {
    await proxy.close();
    await service.close();
    await devnet.stop();
  }

  return { fork, addressBook, pool, dataDir, once, worth, inCusd, dayLater, close, prices: () => prices };
}
