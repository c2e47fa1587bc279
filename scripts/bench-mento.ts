/**
 * Prints, as JSON, what Mento's exchanges add to `routekeeper serve`, measured from outside its process on a devnet
 * running Mento's published build beside Uniswap V2 and V3 pools:
 *  - gained: for the dollar stable to CELO, the dollar stable to USDC, USDC to the dollar stable (past v2's trading
 *    limit, Mento v3's fixed-price pool) and the euro stable to USDC (the devnet's stand-in for BRLm → USDm → USDC: the
 *    same two Mento hops through the dollar stable) at several sizes, the best route with Mento against the best
 *    without it (`exclude=mento`, on the same block), in basis points, and which venues the best route went through;
 *    on a Wednesday's clock (the FX market open);
 *  - exactness: every route with Mento executed through the router on a snapshot of the chain (reverted after): how
 *    many paid exactly `expectedOut`;
 *  - nodeRequestsPerBlock: JSON-RPC calls and HTTP requests the node saw per block while a block came every second,
 *    each carrying a Mento swap and an oracle report, under quote load (a proxy in front of the node counts them);
 *  - venueChanges: while two clients keep asking, the cUSD/CELO exchange destroyed and a cUSD/USDC exchange created
 *    by Mento's owner on the devnet: answers other than 200 after the destruction, quotes of the destruction's block
 *    or later that still went through it, and the block and time of the first route through the new exchange.
 * Usage: tsx scripts/bench-mento.ts [--seconds N] [--concurrency N]
 */
import { parseArgs } from 'node:util';
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, erc20Abi, http, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../src/chains.ts';
import { mentoBrokerAbi, routerAbi } from '../src/contracts/abi.ts';
import { swapPayloadFrom } from '../src/contracts/payload.ts';
import { devnetAccount } from '../src/devnet/accounts.ts';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import * as mento from '../src/devnet/artifacts/mento-published.ts';
import { toNextWeekday, wednesday } from '../src/devnet/fx-clock.ts';
import { reportWorldPrices } from '../src/devnet/oracle.ts';
import { roles } from '../src/devnet/world-spec.ts';
import { swapRouteSchema } from '../src/routing-api/schemas.ts';
import { nodeRequestsDuring, percentiles, quoteLoad, serveOverDevnet } from './serve-process.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '4' } } });
const loadSeconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const { book, proxy, service, stop } = await serveOverDevnet({ uniswapV3: true, mento: true }, 'mento');
try {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const client = createPublicClient({ chain, transport: http(book.rpcUrl), cacheTime: 0 });
  const testClient = createTestClient({ chain, mode: 'anvil', transport: http(book.rpcUrl) });
  const account = privateKeyToAccount(book.accounts[0]?.privateKey as Hex);
  const wallet = createWalletClient({ chain, transport: http(book.rpcUrl), account });
  const token = (symbol: string) => book.tokens[symbol]?.address as Address;
  const decimals = (symbol: string) => book.tokens[symbol]?.decimals ?? 18;
  const venueOf = (pair: string) => {
    const named = Object.entries(book.contracts.adapters).find(([, address]) => address.toLowerCase() === pair.toLowerCase())?.[0];
    return named === 'mentoV2' ? 'mento-v2' : named === 'mentoFpmm' ? 'mento-v3' : 'pool';
  };
  const confirm = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const quote = async (tokenIn: string, tokenOut: string, amountIn: bigint, exclude?: string) => {
    const started = performance.now();
    const query = new URLSearchParams({ tokenIn: token(tokenIn), tokenOut: token(tokenOut), amountIn: amountIn.toString(), ...(exclude && { exclude }) });
    const response = await fetch(`${service.url}/routes?${query}`);
    const body = await response.json();
    return { status: response.status, ms: performance.now() - started, route: response.ok ? swapRouteSchema.parse(body) : undefined };
  };
  // The service reads heads at most once a second (--block-time 1): it has the new clock once its deadlines follow it.
  const weekday = await toNextWeekday(book, wednesday);
  while (((await quote('cUSD', 'USDC', parseUnits('1', 18))).route?.details.deadline ?? 0) <= weekday) await new Promise((resolve) => setTimeout(resolve, 200));
  // Enough of every input token for the largest size.
  for (const symbol of ['cUSD', 'cEUR', 'USDC']) {
    await confirm(
      await wallet.writeContract({
        address: token(symbol),
        abi: artifacts.TestToken.abi,
        functionName: 'mint',
        args: [account.address, parseUnits('2000000', decimals(symbol))],
      }),
    );
  }

  const sizes = [100, 1_000, 10_000, 100_000, 1_000_000];
  // USDC into the Reserve past v2's 250,000 a 5 minutes, within the v3 pool's 300,000; past both.
  const pairs: [string, string, number[]][] = [
    ['cUSD', 'CELO', sizes],
    ['cUSD', 'USDC', sizes],
    ['USDC', 'cUSD', [1_000, 100_000, 260_000, 290_000, 1_000_000]],
    ['cEUR', 'USDC', sizes],
  ];
  const gained: Record<string, { size: number; bps: number; venues: string[] }[]> = {};
  let executed = 0;
  let exact = 0;
  const misses: string[] = [];
  for (const [tokenIn, tokenOut, pairSizes] of pairs) {
    const rows: (typeof gained)[string] = [];
    for (const size of pairSizes) {
      const amountIn = parseUnits(String(size), decimals(tokenIn));
      const [withMento, without] = await Promise.all([quote(tokenIn, tokenOut, amountIn), quote(tokenIn, tokenOut, amountIn, 'mento')]);
      const route = withMento.route;
      if (!route) throw new Error(`no route ${tokenIn} → ${tokenOut} for ${size}: ${withMento.status}`);
      const withoutOut = without.route?.expectedOut ?? 0n;
      const bps = withoutOut === 0n ? Number.POSITIVE_INFINITY : Number(((route.expectedOut - withoutOut) * 1_000_000n) / withoutOut) / 100;
      rows.push({ size, bps, venues: route.details.pairs.map(venueOf) });
      // Executed on a snapshot: the router pays exactly what the service quoted.
      const snapshot = await testClient.snapshot();
      try {
        await confirm(
          await wallet.writeContract({
            address: route.details.path[0] as Address,
            abi: erc20Abi,
            functionName: 'approve',
            args: [route.routerAddress, amountIn],
          }),
        );
        const before = await client.readContract({ address: token(tokenOut), abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
        await confirm(
          await wallet.writeContract({
            address: route.routerAddress,
            abi: routerAbi,
            functionName: 'swapExactInputForOutput',
            args: [swapPayloadFrom(route.details, { minOutputAmount: 0n, to: account.address })],
          }),
        );
        const paid = (await client.readContract({ address: token(tokenOut), abi: erc20Abi, functionName: 'balanceOf', args: [account.address] })) - before;
        executed++;
        if (paid === route.expectedOut) exact++;
        else misses.push(`${tokenIn} → ${tokenOut} ${size}: quoted ${route.expectedOut}, paid ${paid}`);
      } finally {
        await testClient.revert({ id: snapshot });
      }
    }
    gained[`${tokenIn} → ${tokenOut}`] = rows;
  }

  // The node's requests per block while a block with a Mento swap and an oracle report comes every second, under
  // quote load of pairs routed through Mento.
  const broker = book.mento?.broker as Address;
  const exchange = book.mento?.exchanges.find((entry) => entry.name === 'cUSD/USDC');
  if (!exchange) throw new Error('no cUSD/USDC exchange');
  await confirm(await wallet.writeContract({ address: token('cUSD'), abi: erc20Abi, functionName: 'approve', args: [broker, parseUnits('1000000', 18)] }));
  let reported = 0;
  const mover = setInterval(() => {
    void wallet
      .writeContract({
        address: broker,
        abi: mentoBrokerAbi,
        functionName: 'swapIn',
        args: [book.mento?.biPoolManager as Address, exchange.id, token('cUSD'), token('USDC'), parseUnits('100', 18), 0n],
      })
      .catch(() => {});
    if (reported++ % 5 === 0) void reportWorldPrices(book.rpcUrl, book).catch(() => {});
  }, 1_000);
  await testClient.setAutomine(false);
  await testClient.setIntervalMining({ interval: 1 });
  const questions: [string, string, bigint][] = [
    ['cUSD', 'USDC', parseUnits('5000', 18)],
    ['USDC', 'cUSD', parseUnits('5000', 6)],
    ['cEUR', 'CELO', parseUnits('3000', 18)],
    ['cUSD', 'CELO', parseUnits('800', 18)],
  ];
  const { result: load, requests } = await nodeRequestsDuring(
    proxy,
    () => client.getBlockNumber(),
    () => quoteLoad(questions, ([tokenIn, tokenOut, amountIn]) => quote(tokenIn, tokenOut, amountIn), concurrency, loadSeconds),
  );
  clearInterval(mover);
  await testClient.setIntervalMining({ interval: 0 });
  await testClient.setAutomine(true);

  // Governance while quotes come: the cUSD/CELO exchange destroyed (as MGP-14 did), then a cUSD/USDC exchange created,
  // each by the account that owns Mento's contracts on the devnet; what the service answered meanwhile.
  const governor = createWalletClient({ chain, transport: http(book.rpcUrl), account: devnetAccount(roles.deployer).account });
  const celoExchange = book.mento?.exchanges.find((entry) => entry.name === 'cUSD/CELO');
  if (!celoExchange) throw new Error('no cUSD/CELO exchange');
  const exchangeIdsOf = (route: Awaited<ReturnType<typeof quote>>['route']) => {
    if (!route) return [];
    const { pairs, extras } = route.details;
    return pairs.flatMap((pair, i) => (venueOf(pair) === 'mento-v2' ? [`0x${(extras[i] ?? '').slice(-64)}`.toLowerCase()] : []));
  };
  const answers: { at: number; status: number; through: string[]; blockNumber?: bigint }[] = [];
  let quoting = true;
  const asking = Promise.all(
    [
      ['cUSD', 'CELO', parseUnits('1000', 18)],
      ['cUSD', 'USDC', parseUnits('100', 18)],
    ].map(async ([tokenIn, tokenOut, amountIn]) => {
      while (quoting) {
        const answer = await quote(tokenIn as string, tokenOut as string, amountIn as bigint);
        answers.push({
          at: performance.now(),
          status: answer.status,
          through: exchangeIdsOf(answer.route),
          blockNumber: answer.route ? BigInt(answer.route.blockNumber ?? 0) : undefined,
        });
      }
    }),
  );
  const ids = await client.readContract({ address: book.mento?.biPoolManager as Address, abi: mento.BiPoolManager.abi, functionName: 'getExchangeIds' });
  const destroyed = await confirm(
    await governor.writeContract({
      address: book.mento?.biPoolManager as Address,
      abi: mento.BiPoolManager.abi,
      functionName: 'destroyExchange',
      args: [celoExchange.id, BigInt(ids.findIndex((id) => id.toLowerCase() === celoExchange.id.toLowerCase()))],
    }),
  );
  const destroyedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const rateFeed = book.mento?.rateFeeds.find((feed) => feed.name === 'USDCUSD')?.id as Address;
  const created = await confirm(
    await governor.writeContract({
      address: book.mento?.biPoolManager as Address,
      abi: mento.BiPoolManager.abi,
      functionName: 'createExchange',
      args: [
        {
          asset0: token('cUSD'),
          asset1: token('USDC'),
          pricingModule: book.mento?.pricingModules.constantProduct as Address,
          bucket0: 0n,
          bucket1: 0n,
          lastBucketUpdate: 0n,
          config: {
            spread: { value: 0n },
            referenceRateFeedID: rateFeed,
            referenceRateResetFrequency: 300n,
            minimumReports: 1n,
            stablePoolResetSize: parseUnits('50000000', 18),
          },
        },
      ],
    }),
  );
  const createdAt = performance.now();
  const provider = (book.mento?.biPoolManager ?? '').toLowerCase();
  const newId = (created.logs.find((log) => log.address.toLowerCase() === provider)?.topics[1] ?? '').toLowerCase();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  quoting = false;
  await asking;
  const afterDestroy = answers.filter((answer) => answer.at > destroyedAt);
  const firstThroughNew = answers.find((answer) => answer.at > createdAt && answer.through.includes(newId));
  const venueChanges = {
    quotesAfterDestroy: afterDestroy.length,
    non200AfterDestroy: afterDestroy.filter((answer) => answer.status !== 200).length,
    // Quotes of blocks from the destruction on that still routed through the destroyed exchange.
    throughDestroyedAfterItsBlock: afterDestroy.filter(
      (answer) => (answer.blockNumber ?? 0n) >= destroyed.blockNumber && answer.through.includes(celoExchange.id.toLowerCase()),
    ).length,
    createdInBlock: created.blockNumber.toString(),
    firstRouteThroughNew: firstThroughNew
      ? {
          blockNumber: firstThroughNew.blockNumber?.toString(),
          blocksAfterCreation: Number((firstThroughNew.blockNumber ?? 0n) - created.blockNumber),
          msAfterReceipt: Math.round(firstThroughNew.at - createdAt),
        }
      : 'never',
  };

  console.log(
    JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        exchanges: book.mento?.exchanges.map((entry) => `${entry.name} (${entry.pricing})`),
        fixedPricePools: book.mento?.fixedPricePools.map((entry) => entry.name),
        gained,
        exactness: { executed, exact, misses: misses.slice(0, 5) },
        routes: {
          requests: load.samples.length,
          concurrency,
          statuses: load.statuses,
          ...percentiles(load.samples),
          quotesPerSecond: Math.round(load.samples.length / load.tookSeconds),
        },
        nodeRequestsPerBlock: requests,
        venueChanges,
      },
      null,
      2,
    ),
  );
} finally {
  await stop();
}
