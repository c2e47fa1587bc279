/**
 * Prints, as JSON, what `routekeeper serve` does with Uniswap V3 pools in its graph, measured from outside its
 * process, on a devnet with the real V3 bytecode (two tiers of CELO/WETH, cUSD/CELO) beside its Uniswap V2 pools:
 *  - exactness: quotes over sizes from dust to more than a pool holds, each executed through the router on a
 *    snapshot of the chain (reverted after): how many paid exactly `expectedOut`, how many went through V3 pools,
 *    and the most initialized ticks one swap crossed; and the daemon's hop quotes (contracts/hop-quoter.ts, by state
 *    override, as ordinary calls) of the same route, and of it with its V3 hops through Swappa's PairUniswapV3
 *    (QuoterV2), each against what the executed route delivered;
 *  - routes: p50/p99 of GET /routes at `--concurrency` clients for pairs whose best route runs through V3 pools;
 *  - nodeRequestsPerBlock: JSON-RPC calls the node saw per block while a block came every second, each carrying a
 *    swap in a V3 pool, under that load (a proxy in front of the node counts them).
 * Usage: tsx scripts/bench-uniswap-v3.ts [--sizes N] [--seconds N] [--concurrency N]
 */
import { parseArgs } from 'node:util';
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, erc20Abi, http, parseEventLogs, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../src/chains.ts';
import { routerAbi, uniswapV3PoolAbi } from '../src/contracts/abi.ts';
import { decodeHopQuotes, hopQuoteRead } from '../src/contracts/hop-quoter.ts';
import { swapPayloadFrom } from '../src/contracts/payload.ts';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import { readV3PoolState } from '../src/pools/uniswap-v3/state.ts';
import { swapRouteSchema } from '../src/routing-api/schemas.ts';
import { nodeRequestsDuring, percentiles, quoteLoad, serveOverDevnet } from './serve-process.ts';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '24' }, seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '8' } },
});
const sizeCount = Number(values.sizes);
const loadSeconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const { book, proxy, service, stop } = await serveOverDevnet({ uniswapV3: true }, 'v3');
try {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const client = createPublicClient({ chain, transport: http(book.rpcUrl), cacheTime: 0 });
  const testClient = createTestClient({ chain, mode: 'anvil', transport: http(book.rpcUrl) });
  const account = privateKeyToAccount(book.accounts[0]?.privateKey as Hex);
  const wallet = createWalletClient({ chain, transport: http(book.rpcUrl), account });
  const token = (symbol: string) => book.tokens[symbol]?.address as Address;
  const v3Adapter = (book.contracts.adapters.uniswapV3 as Address).toLowerCase();
  const v3Pools = book.uniswapV3?.pools ?? [];
  const confirm = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const quote = async (tokenIn: string, tokenOut: string, amountIn: bigint) => {
    const started = performance.now();
    const response = await fetch(
      `${service.url}/routes?${new URLSearchParams({ tokenIn: token(tokenIn), tokenOut: token(tokenOut), amountIn: amountIn.toString() })}`,
    );
    const body = await response.json();
    return { status: response.status, ms: performance.now() - started, route: response.ok ? swapRouteSchema.parse(body) : undefined };
  };

  // Exactness: every quote executed through the router on a snapshot, reverted after.
  const pairs: [string, string, number][] = [
    ['CELO', 'WETH', 3_000_000],
    ['WETH', 'CELO', 500],
    ['cUSD', 'CELO', 3_000_000],
    ['CELO', 'cUSD', 6_000_000],
    ['cEUR', 'WETH', 600_000],
  ];
  let executed = 0;
  let exact = 0;
  let throughV3 = 0;
  let maxTicksCrossed = 0;
  const misses: string[] = [];
  const hopQuotes = { ours: { exact: 0, misses: [] as string[] }, swappa: { exact: 0, misses: [] as string[] }, hops: 0 };
  const swappaAdapter = book.contracts.adapters.swappaUniswapV3 as Address;
  /** The daemon's hop quotes of a route on the current state: what its last hop pays. */
  const hopQuote = async (details: { path: readonly Address[]; pairs: readonly Address[]; extras: readonly Hex[] }, amountIn: bigint) => {
    const read = hopQuoteRead(details, amountIn);
    const { data } = await client.call({ to: read.to, data: read.data, stateOverride: [{ address: read.to, code: read.code }] });
    return decodeHopQuotes(data ?? '0x').at(-1);
  };
  for (const [tokenIn, tokenOut, largest] of pairs) {
    for (let i = 0; i < sizeCount; i++) {
      // Log-spaced from a millionth of a unit to `largest` units.
      const amountIn =
        (parseUnits(String(largest), 18) * BigInt(Math.round(10 ** ((i / (sizeCount - 1)) * (6 + Math.log10(largest))) * 1000))) /
        (BigInt(largest) * 10n ** 9n);
      const { route } = await quote(tokenIn, tokenOut, amountIn);
      if (!route) continue;
      const snapshot = await testClient.snapshot();
      try {
        const swappaDetails = {
          ...route.details,
          pairs: route.details.pairs.map((adapter) => (adapter.toLowerCase() === v3Adapter ? swappaAdapter : adapter)),
        };
        const [oursQuoted, swappaQuoted] = await Promise.all([hopQuote(route.details, amountIn), hopQuote(swappaDetails, amountIn)]);
        hopQuotes.hops += route.details.pairs.length;
        const states = new Map(
          await Promise.all(
            v3Pools.map(
              async (pool) =>
                [pool.address.toLowerCase(), await readV3PoolState(client, pool.address, pool.tickSpacing, await client.getBlockNumber())] as const,
            ),
          ),
        );
        await confirm(
          await wallet.writeContract({ address: token(tokenIn), abi: artifacts.TestToken.abi, functionName: 'mint', args: [account.address, amountIn] }),
        );
        await confirm(await wallet.writeContract({ address: token(tokenIn), abi: erc20Abi, functionName: 'approve', args: [route.routerAddress, amountIn] }));
        const before = await client.readContract({ address: token(tokenOut), abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
        const receipt = await confirm(
          await wallet.writeContract({
            address: route.routerAddress,
            abi: routerAbi,
            functionName: 'swapExactInputForOutput',
            args: [swapPayloadFrom(route.details, { minOutputAmount: route.expectedOut, to: account.address })],
            gas: 3_000_000n,
          }),
        );
        const received = (await client.readContract({ address: token(tokenOut), abi: erc20Abi, functionName: 'balanceOf', args: [account.address] })) - before;
        executed++;
        if (received === route.expectedOut) exact++;
        else misses.push(`${tokenIn}→${tokenOut} ${amountIn}: quoted ${route.expectedOut}, paid ${received}`);
        if (route.details.pairs.some((adapter) => adapter.toLowerCase() === v3Adapter)) throughV3++;
        for (const [which, quoted] of [
          ['ours', oursQuoted],
          ['swappa', swappaQuoted],
        ] as const) {
          if (quoted === received) hopQuotes[which].exact++;
          else hopQuotes[which].misses.push(`${tokenIn}→${tokenOut} ${amountIn}: hop quotes ${quoted}, delivered ${received}`);
        }
        for (const swap of parseEventLogs({ abi: uniswapV3PoolAbi, eventName: 'Swap', logs: receipt.logs })) {
          const state = states.get(swap.address.toLowerCase());
          if (!state) continue;
          const [low, high] = [Math.min(state.tick, swap.args.tick), Math.max(state.tick, swap.args.tick)];
          maxTicksCrossed = Math.max(maxTicksCrossed, state.ticks.filter((tick) => tick.tick > low && tick.tick <= high).length);
        }
      } finally {
        await testClient.revert({ id: snapshot });
      }
    }
  }

  // Time per quote at `concurrency` clients, pairs routed through V3 pools, while a block with a V3 swap comes every
  // second; the node's requests per block counted at the proxy.
  const mover = setInterval(() => {
    const pool = v3Pools[0];
    if (!pool) return;
    void (async () => {
      await wallet.writeContract({
        address: token('WETH'),
        abi: artifacts.TestToken.abi,
        functionName: 'mint',
        args: [book.contracts.adapters.uniswapV3 as Address, 10n ** 15n],
      });
      await wallet.writeContract({
        address: book.contracts.adapters.uniswapV3 as Address,
        abi: artifacts.UniswapV3Adapter.abi,
        functionName: 'swap',
        args: [token('WETH'), token('CELO'), account.address, pool.address],
      });
    })().catch(() => {});
  }, 1_000);
  await testClient.setAutomine(false);
  await testClient.setIntervalMining({ interval: 1 });
  const questions: [string, string, bigint][] = [
    ['CELO', 'WETH', parseUnits('20000', 18)],
    ['WETH', 'CELO', parseUnits('3', 18)],
    ['cUSD', 'CELO', parseUnits('5000', 18)],
    ['cEUR', 'WETH', parseUnits('3000', 18)],
    ['USDC', 'CELO', parseUnits('2000', 6)],
  ];
  const { result: load, requests } = await nodeRequestsDuring(
    proxy,
    () => client.getBlockNumber(),
    () => quoteLoad(questions, ([tokenIn, tokenOut, amountIn]) => quote(tokenIn, tokenOut, amountIn), concurrency, loadSeconds),
  );
  clearInterval(mover);
  await testClient.setIntervalMining({ interval: 0 });
  await testClient.setAutomine(true);

  console.log(
    JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        v3Pools: v3Pools.map((pool) => pool.name),
        exactness: { executed, exact, throughV3, maxTicksCrossed, misses: misses.slice(0, 5) },
        hopQuotesAgainstDelivered: {
          routes: executed,
          hops: hopQuotes.hops,
          viewAdapterExact: hopQuotes.ours.exact,
          swappaQuoterV2AdapterExact: hopQuotes.swappa.exact,
          misses: [...hopQuotes.ours.misses, ...hopQuotes.swappa.misses].slice(0, 5),
        },
        routes: {
          requests: load.samples.length,
          concurrency,
          statuses: load.statuses,
          ...percentiles(load.samples),
          quotesPerSecond: Math.round(load.samples.length / load.tookSeconds),
        },
        nodeRequestsPerBlock: requests,
      },
      null,
      2,
    ),
  );
} finally {
  await stop();
}
