/**
 * Generated graphs of Uniswap V2 pools with hub tokens, deployed from the real bytecode on a devnet: for the routing
 * service's tests and its benchmark (scripts/bench-routing.ts).
 */
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, encodeFunctionData, http, keccak256, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { pairAddress } from '../../src/contracts/encoding.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { seeded } from './chaos.ts';

export type GraphPool = { a: number; b: number; reserveA: bigint; reserveB: bigint };
export type PoolGraph = { tokens: number; hubs: number; pools: GraphPool[] };

/** `pools` pools over `tokens` tokens (default pools / 8), 60% of them on one of `hubs` hub tokens; depths over four orders of magnitude. */
export function generateGraph(pools: number, options: { seed?: number; tokens?: number; hubs?: number } = {}): PoolGraph {
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
    list.push({ a, b, reserveA: depth(), reserveB: depth() });
  }
  return { tokens, hubs, pools: list };
}

/**
 * Deploys the graph's tokens, a Uniswap V2 factory and its pools (each minted at its reserves) on a devnet: every
 * pool's transactions sent at once and mined in blocks of a few hundred. Leaves the node mining each transaction.
 */
export async function deployGraph(rpcUrl: string, privateKey: Hex, graph: PoolGraph): Promise<{ factory: Address; tokens: Address[] }> {
  const account = privateKeyToAccount(privateKey);
  const transport = http(rpcUrl);
  const client = createPublicClient({ transport });
  const wallet = createWalletClient({ account, transport });
  const testClient = createTestClient({ mode: 'anvil', transport });
  let nonce = await client.getTransactionCount({ address: account.address });
  const deploy = async (artifact: { abi: readonly unknown[]; bytecode: Hex }, args: readonly unknown[]) => {
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, chain: null, nonce: nonce++ } as never);
    const receipt = await client.waitForTransactionReceipt({ hash });
    return receipt.contractAddress as Address;
  };
  const factory = await deploy(artifacts.UniswapV2Factory, [account.address]);
  const tokens: Address[] = [];
  for (let i = 0; i < graph.tokens; i++) tokens.push(await deploy(artifacts.TestToken, [`Graph ${i}`, `G${i}`, 18]));
  // The pair's init code hash gives each pool's address before it exists (as the devnet deployer proves it does).
  const initCodeHash = keccak256(artifacts.UniswapV2Pair.bytecode);
  await testClient.setAutomine(false);
  await testClient.setBlockGasLimit({ gasLimit: 3_000_000_000n });
  const send = (to: Address, data: Hex) => wallet.sendTransaction({ account, to, data, chain: null, nonce: nonce++, gas: 5_000_000n });
  const hashes: Hex[] = [];
  for (const pool of graph.pools) {
    const [tokenA, tokenB] = [tokens[pool.a] as Address, tokens[pool.b] as Address];
    hashes.push(await send(factory, encodeFunctionData({ abi: artifacts.UniswapV2Factory.abi, functionName: 'createPair', args: [tokenA, tokenB] })));
    const pair = pairAddress(factory, initCodeHash, [tokenA, tokenB]);
    hashes.push(await send(tokenA, encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [pair, pool.reserveA] })));
    hashes.push(await send(tokenB, encodeFunctionData({ abi: artifacts.TestToken.abi, functionName: 'mint', args: [pair, pool.reserveB] })));
    hashes.push(await send(pair, encodeFunctionData({ abi: artifacts.UniswapV2Pair.abi, functionName: 'mint', args: [account.address] })));
    if (hashes.length % 400 === 0) await testClient.mine({ blocks: 1 });
  }
  await testClient.mine({ blocks: 1 });
  await testClient.setAutomine(true);
  const last = await client.waitForTransactionReceipt({ hash: hashes.at(-1) as Hex });
  if (last.status !== 'success') throw new Error('the last pool of the generated graph did not mint');
  return { factory, tokens };
}
