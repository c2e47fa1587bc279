/**
 * Generated graphs of Uniswap V2 pools (and, on request, Uniswap V3 pools) with hub tokens, deployed from the real
 * bytecode on a devnet: for the routing service's tests and its benchmark (scripts/bench-routing.ts).
 */
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, encodeFunctionData, http, keccak256, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { isqrt } from '../src/bigint-math.ts';
import { pairAddress, v3PoolAddress } from '../src/contracts/encoding.ts';
import * as artifacts from '../src/devnet/artifacts/contracts.ts';
import { devnetReceipt } from '../src/devnet/receipt.ts';
import { seeded } from './chaos.ts';

/** A pool of the graph; a V3 one (`v3`) holds liquidity worth its two reserves around their price, in three positions. */
export type GraphPool = { a: number; b: number; reserveA: bigint; reserveB: bigint; v3?: boolean };
export type PoolGraph = { tokens: number; hubs: number; pools: GraphPool[] };

/** `pools` pools over `tokens` tokens (default pools / 8), 60% of them on one of `hubs` hub tokens; depths over four orders of magnitude. */
export function generateGraph(pools: number, options: { seed?: number; tokens?: number; hubs?: number; uniswapV3Share?: number } = {}): PoolGraph {
  const next = seeded(options.seed ?? 42);
  const tokens = options.tokens ?? Math.max(20, Math.floor(pools / 8));
  const hubs = options.hubs ?? 6;
  const seen = new Set<string>();
  const list: GraphPool[] = [];
  while (list.length < pools) {
    const a = next() < 0.6 ? Math.floor(next() * hubs) : Math.floor(next() * tokens);
    const b = Math.floor(next() * tokens);
    const id = `${Math.min(a, b)}-${Math.max(a, b)}`;
    if (a === b || seen.has(id)) continue;
    seen.add(id);
    const depth = () => parseUnits(String(Math.floor(1_000 + next() * 10_000_000)), 18);
    list.push({ a, b, reserveA: depth(), reserveB: depth(), ...(next() < (options.uniswapV3Share ?? 0) && { v3: true }) });
  }
  return { tokens, hubs, pools: list };
}

/**
 * Deploys the graph's tokens, a Uniswap V2 factory and its pools (each minted at its reserves) on a devnet: every
 * pool's transactions sent at once and mined in blocks of a few hundred. Leaves the node mining each transaction.
 */
export async function deployGraph(
  rpcUrl: string,
  privateKey: Hex,
  graph: PoolGraph,
): Promise<{ factory: Address; tokens: Address[]; uniswapV3?: { factory: Address; adapter: Address; poolInitCodeHash: Hex } }> {
  const account = privateKeyToAccount(privateKey);
  const transport = http(rpcUrl);
  const client = createPublicClient({ transport });
  const wallet = createWalletClient({ account, transport });
  const testClient = createTestClient({ mode: 'anvil', transport });
  let nonce = await client.getTransactionCount({ address: account.address });
  const deploy = async (artifact: { abi: readonly unknown[]; bytecode: Hex }, args: readonly unknown[]) => {
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, chain: null, nonce: nonce++ } as never);
    const receipt = await devnetReceipt(client, hash);
    return receipt.contractAddress as Address;
  };
  const factory = await deploy(artifacts.UniswapV2Factory, [account.address]);
  const tokens: Address[] = [];
  for (let i = 0; i < graph.tokens; i++) tokens.push(await deploy(artifacts.TestToken, [`Graph ${i}`, `G${i}`, 18]));
  // The pair's init code hash gives each pool's address before it exists (as the devnet deployer proves it does).
  const initCodeHash = keccak256(artifacts.UniswapV2Pair.bytecode);
  const uniswapV3 = graph.pools.some((pool) => pool.v3) ? await deployUniswapV3Parts(deploy) : undefined;
  await testClient.setAutomine(false);
  await testClient.setBlockGasLimit({ gasLimit: 3_000_000_000n });
  const send = (to: Address, data: Hex) => wallet.sendTransaction({ account, to, data, chain: null, nonce: nonce++, gas: 5_000_000n });
  const hashes: Hex[] = [];
  // A block takes what its gas limit allows (5M a transaction): mined every 400 transactions or so.
  let minedAt = 0;
  for (const pool of graph.pools) {
    const [tokenA, tokenB] = [tokens[pool.a] as Address, tokens[pool.b] as Address];
    if (hashes.length - minedAt >= 400) {
      await testClient.mine({ blocks: 1 });
      minedAt = hashes.length;
    }
    if (pool.v3 && uniswapV3) {
      hashes.push(...(await v3PoolTransactions(send, uniswapV3, [tokenA, pool.reserveA], [tokenB, pool.reserveB])));
      continue;
    }
    hashes.push(await send(factory, encodeFunctionData({ abi: artifacts.UniswapV2Factory.abi, functionName: 'createPair', args: [tokenA, tokenB] })));
    const pair = pairAddress(factory, initCodeHash, [tokenA, tokenB]);
    hashes.push(await send(tokenA, encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [pair, pool.reserveA] })));
    hashes.push(await send(tokenB, encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [pair, pool.reserveB] })));
    hashes.push(await send(pair, encodeFunctionData({ abi: artifacts.UniswapV2Pair.abi, functionName: 'mint', args: [account.address] })));
  }
  await testClient.mine({ blocks: 1 });
  await testClient.setAutomine(true);
  const last = await devnetReceipt(client, hashes.at(-1) as Hex);
  if (last.status !== 'success') throw new Error('the last pool of the generated graph did not mint');
  return {
    factory,
    tokens,
    ...(uniswapV3 && { uniswapV3: { factory: uniswapV3.factory, adapter: uniswapV3.adapter, poolInitCodeHash: uniswapV3.poolInitCodeHash } }),
  };
}

type V3Parts = { factory: Address; adapter: Address; provider: Address; poolInitCodeHash: Hex };

async function deployUniswapV3Parts(
  deploy: (artifact: { abi: readonly unknown[]; bytecode: Hex }, args: readonly unknown[]) => Promise<Address>,
): Promise<V3Parts> {
  return {
    factory: await deploy(artifacts.UniswapV3Factory, []),
    adapter: await deploy(artifacts.UniswapV3Adapter, []),
    provider: await deploy(artifacts.V3LiquidityProvider, []),
    poolInitCodeHash: keccak256(artifacts.UniswapV3Pool.bytecode),
  };
}

/**
 * A 0.3% V3 pool of two tokens at the price of their reserves, holding about their worth in three positions around
 * it (±50%, ±10%, ±2%, in shares 1:2:1), so that quotes cross ticks.
 */
async function v3PoolTransactions(
  send: (to: Address, data: Hex) => Promise<Hex>,
  parts: V3Parts,
  [tokenA, reserveA]: [Address, bigint],
  [tokenB, reserveB]: [Address, bigint],
): Promise<Hex[]> {
  const aIs0 = BigInt(tokenA) < BigInt(tokenB);
  const [token0, token1, reserve0, reserve1] = aIs0 ? [tokenA, tokenB, reserveA, reserveB] : [tokenB, tokenA, reserveB, reserveA];
  const pool = v3PoolAddress(parts.factory, parts.poolInitCodeHash, [token0, token1], 3000);
  const sqrtPriceX96 = isqrt((reserve1 << 192n) / reserve0);
  const tick = Math.floor(Math.log(Number(reserve1) / Number(reserve0)) / Math.log(1.0001));
  // L ≈ √(x·y) for liquidity worth both reserves, spread over the three positions.
  const liquidity = isqrt(reserve0 * reserve1);
  const positions: [number, bigint][] = [
    [0.5, liquidity / 8n],
    [0.1, liquidity / 4n],
    [0.02, liquidity / 8n],
  ];
  const hashes = [
    await send(parts.factory, encodeFunctionData({ abi: artifacts.UniswapV3Factory.abi, functionName: 'createPool', args: [token0, token1, 3000] })),
    await send(pool, encodeFunctionData({ abi: artifacts.UniswapV3Pool.abi, functionName: 'initialize', args: [sqrtPriceX96] })),
    await send(token0, encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [parts.provider, reserve0 * 2n] })),
    await send(token1, encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [parts.provider, reserve1 * 2n] })),
  ];
  for (const [width, amount] of positions) {
    const ticks = Math.max(60, Math.floor(Math.log(1 + width) / Math.log(1.0001) / 60) * 60);
    const centre = Math.floor(tick / 60) * 60;
    hashes.push(
      await send(
        parts.provider,
        encodeFunctionData({ abi: artifacts.V3LiquidityProvider.abi, functionName: 'mint', args: [pool, centre - ticks, centre + ticks, amount] }),
      ),
    );
  }
  return hashes;
}
