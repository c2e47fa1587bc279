/**
 * What `routekeeper doctor` checks of routing: the service in use answers; the hosted service the API was written
 * for answers at all (it was taken offline in 2023); each pair adapter the self-hosted service routes through has
 * code and prices real pools of each factory exactly as the pool's own arithmetic does; and the router's fee
 * settings, read through its public interface.
 */
import { type Address, erc20Abi, parseAbi } from 'viem';
import { getCode, readContract } from 'viem/actions';
import type { ChainClient } from '../chain/chains.ts';
import { type Finding, firstLine } from '../chain/doctor.ts';
import { reasonOf } from '../chain/revert.ts';
import { routerFeeAbi, uniswapV2IndexAbi, uniswapV3FactoryAbi } from '../contracts/abi.ts';
import { redactUrl } from '../ops/secrets.ts';
import type { RoutingClient } from '../service/client.ts';
import { adapterExtras, adapterKindName } from './adapters.ts';
import { swapOutput } from './amm.ts';
import type { FactorySource } from './pool-index.ts';
import type { RoutingSetup } from './setup.ts';
import { swapExactIn } from './uniswap-v3-math.ts';
import { readV3PoolState } from './uniswap-v3-state.ts';

const adapterAbi = parseAbi(['function getOutputAmount(address input, address output, uint256 amountIn, bytes data) returns (uint256)']);
/** The deployed router's published ABI has this getter (its public source does not). */
const defaultAdminFeeAbi = parseAbi(['function defaultAdminFee() view returns (uint256)']);

/** The service in use answers `GET /`; `kind` says whose it is. */
export async function serviceFindings(routing: RoutingClient, url: string, kind: string): Promise<Finding[]> {
  try {
    const health = await routing.health();
    return [{ level: health.state === 'ready' ? 'ok' : 'warn', message: `routing service ${redactUrl(url)} (${kind}): ${health.state}` }];
  } catch (error) {
    return [{ level: 'fail', message: `routing service ${redactUrl(url)} (${kind}) does not answer: ${firstLine(error)}` }];
  }
}

/** Whether the hosted service answers at all; when it does not, routekeeper's own is what quotes. */
export async function hostedServiceFindings(hostedUrl: string, inUse: boolean, timeoutMs = 5_000): Promise<Finding[]> {
  try {
    const response = await fetch(new URL('/', hostedUrl), { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    const body = (await response.json().catch(() => undefined)) as { state?: unknown } | undefined;
    if (response.ok && typeof body?.state === 'string') return [{ level: 'ok', message: `hosted routing service ${hostedUrl} answers: ${body.state}` }];
    return [{ level: inUse ? 'fail' : 'warn', message: `hosted routing service ${hostedUrl} answers HTTP ${response.status}, not the service's health` }];
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${firstLine(error.cause)}` : '';
    const why = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `${firstLine(error)}${cause}`;
    return [
      {
        level: inUse ? 'fail' : 'warn',
        message: inUse
          ? `hosted routing service ${hostedUrl} does not answer (${why}), and it is the one in use: unset ROUTING_SERVICE_URL to run routekeeper's own`
          : `hosted routing service ${hostedUrl} does not answer (${why}); routekeeper quotes with its own`,
      },
    ];
  }
}

/**
 * Each factory's adapter has code and prices the factory's first pool as the pool's reserves and fee say, to the
 * wei, for a thousandth of its reserve (a V3 factory's: several pools, sizes and both ways, see v3AdapterFinding);
 * then the router's fee denominator, partner 0's fee and the default admin fee.
 */
export async function adapterFindings(client: ChainClient, setup: Pick<RoutingSetup, 'factories' | 'router' | 'tokens'>): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const factory of setup.factories) {
    const { adapter } = factory;
    const name = `adapter ${adapter.address} (${adapterKindName(adapter)}) for ${factory.protocol}`;
    try {
      const code = await getCode(client, { address: adapter.address });
      if (!code || code === '0x') {
        findings.push({ level: 'fail', message: `${name}: no code at its address` });
        continue;
      }
      if (factory.kind === 'uniswap-v3') {
        findings.push(await v3AdapterFinding(client, factory, setup, name), ...(await v3StartBlockFindings(client, factory)));
        continue;
      }
      const count = await readContract(client, { address: factory.address, abi: uniswapV2IndexAbi, functionName: 'allPairsLength' });
      if (count === 0n) {
        findings.push({ level: 'warn', message: `${name}: factory ${factory.address} has no pool to check it against` });
        continue;
      }
      const pool = await readContract(client, { address: factory.address, abi: uniswapV2IndexAbi, functionName: 'allPairs', args: [0n] });
      const [token0, token1, [reserve0, reserve1]] = await Promise.all([
        readContract(client, { address: pool, abi: uniswapV2IndexAbi, functionName: 'token0' }),
        readContract(client, { address: pool, abi: uniswapV2IndexAbi, functionName: 'token1' }),
        readContract(client, { address: pool, abi: uniswapV2IndexAbi, functionName: 'getReserves' }),
      ]);
      const amountIn = reserve0 / 1000n > 0n ? reserve0 / 1000n : 1n;
      const expected = swapOutput(amountIn, reserve0, reserve1, factory.feeBps);
      const { result } = await client.simulateContract({
        address: adapter.address,
        abi: adapterAbi,
        functionName: 'getOutputAmount',
        args: [token0, token1, amountIn, adapterExtras(adapter, { address: pool, feeBps: factory.feeBps })],
      });
      findings.push(
        result === expected
          ? { level: 'ok', message: `${name}: prices pool ${pool} as its reserves and ${factory.feeBps} bps fee say (${amountIn} in, ${expected} out)` }
          : { level: 'fail', message: `${name}: prices pool ${pool} at ${result} for ${amountIn}, its reserves and ${factory.feeBps} bps fee say ${expected}` },
      );
    } catch (error) {
      findings.push({ level: 'fail', message: `${name}: cannot be checked (${firstLine(error)})` });
    }
  }
  findings.push(...(await routerFeeFindings(client, setup.router)));
  return findings;
}

/** The pools a V3 adapter is checked against, at most, and the shares of a pool's input-token balance it is asked to sell. */
const V3_POOLS_CHECKED = 4;
const V3_CHECK_DIVISORS = [100_000n, 1_000n, 100n, 20n];

/**
 * A V3 adapter asked for its quote at the top level (an eth_call of its own getOutputAmount, as the daemon's hop
 * quotes ask it: not a static call, so one that quotes through Uniswap's QuoterV2 answers), on up to four of the
 * factory's pools of the chain's tokens (every fee tier), each way and at several sizes from a hundred-thousandth
 * to a twentieth of the pool's balance, against the pool's state and our V3 arithmetic, all on one block. A size our
 * arithmetic cannot quote (past the ticks it reads) is left out; any other difference fails the adapter.
 */
async function v3AdapterFinding(client: ChainClient, factory: Extract<FactorySource, { kind: 'uniswap-v3' }>, setup: Pick<RoutingSetup, 'tokens'>, name: string): Promise<Finding> {
  const tokens = [...new Set(Object.values(setup.tokens ?? {}).map((token) => token.address))];
  const blockNumber = await client.getBlockNumber();
  const pools: { pool: Address; fee: number; token0: Address; token1: Address }[] = [];
  for (const [i, tokenA] of tokens.entries()) {
    for (const tokenB of tokens.slice(i + 1)) {
      for (const fee of [100, 500, 3000, 10_000]) {
        if (pools.length >= V3_POOLS_CHECKED) break;
        const pool = await readContract(client, { address: factory.address, abi: uniswapV3FactoryAbi, functionName: 'getPool', args: [tokenA, tokenB, fee], blockNumber });
        if (/^0x0{40}$/.test(pool)) continue;
        const [token0, token1] = BigInt(tokenA) < BigInt(tokenB) ? [tokenA, tokenB] : [tokenB, tokenA];
        pools.push({ pool, fee, token0, token1 });
      }
    }
  }
  if (pools.length === 0) return { level: 'warn', message: `${name}: factory ${factory.address} has no pool of the chain's tokens at 0.01%, 0.05%, 0.3% or 1% to check it against` };
  let quotes = 0;
  for (const { pool, fee, token0, token1 } of pools) {
    const tickSpacing = await readContract(client, { address: pool, abi: parseAbi(['function tickSpacing() view returns (int24)']), functionName: 'tickSpacing', blockNumber });
    const state = await readV3PoolState(client, pool, tickSpacing, blockNumber);
    for (const [tokenIn, tokenOut] of [[token0, token1], [token1, token0]] as const) {
      const balance = await readContract(client, { address: tokenIn, abi: erc20Abi, functionName: 'balanceOf', args: [pool], blockNumber });
      for (const divisor of V3_CHECK_DIVISORS) {
        const amountIn = balance / divisor;
        const expected = amountIn > 0n ? swapExactIn(state, { fee, tickSpacing }, tokenIn === token0, amountIn)?.amountOut : undefined;
        if (expected === undefined) continue;
        const quoted = await client
          .simulateContract({ address: factory.adapter.address, abi: adapterAbi, functionName: 'getOutputAmount', args: [tokenIn, tokenOut, amountIn, pool], blockNumber })
          .then(({ result }) => ({ value: result }), (error: unknown) => ({ error: reasonOf(error) }));
        if ('error' in quoted) return { level: 'fail', message: `${name}: its getOutputAmount reverts for pool ${pool} (${quoted.error}): the daemon cannot read what a route through it pays` };
        if (quoted.value !== expected) {
          return { level: 'fail', message: `${name}: quotes ${quoted.value} for ${amountIn} of ${tokenIn} in pool ${pool} (${fee / 10_000}%); its ticks say ${expected}` };
        }
        quotes++;
      }
    }
  }
  const tiers = [...new Set(pools.map((entry) => entry.fee))].sort((a, b) => a - b).map((fee) => `${fee / 10_000}%`).join(', ');
  if (quotes === 0) return { level: 'warn', message: `${name}: no size of ${pools.length} pools could be quoted by our arithmetic to check it against` };
  return { level: 'ok', message: `${name}: quotes ${pools.length} pools (${tiers}) as their ticks say, both ways at ${quotes} sizes (from 1/100000 to 1/20 of a pool's balance)` };
}

/**
 * A V3 factory's pools are found from its PoolCreated logs from its start block on: with no code at the block before
 * it, no pool can have been made earlier. A node that keeps no state that old cannot tell (a warning).
 */
async function v3StartBlockFindings(client: ChainClient, factory: Extract<FactorySource, { kind: 'uniswap-v3' }>): Promise<Finding[]> {
  if (factory.fromBlock === 0n) return [];
  const before = factory.fromBlock - 1n;
  const name = `factory ${factory.address} (${factory.protocol})`;
  try {
    const code = await getCode(client, { address: factory.address, blockNumber: before });
    return code && code !== '0x'
      ? [{ level: 'fail', message: `${name}: has code at block ${before}, before the block its pools are looked for from (${factory.fromBlock}): pools made in between are missed` }]
      : [{ level: 'ok', message: `${name}: no code before block ${factory.fromBlock}, where its pools are looked for from: none is missed` }];
  } catch (error) {
    return [{ level: 'warn', message: `${name}: whether it had code before block ${factory.fromBlock} cannot be read from this node (${firstLine(error)})` }];
  }
}

async function routerFeeFindings(client: ChainClient, router: Address): Promise<Finding[]> {
  const read = <T>(work: Promise<T>) => work.then((value) => ({ value }), (error: unknown) => ({ error: firstLine(error) }));
  const [denominator, partnerZero, adminFee] = await Promise.all([
    read(readContract(client, { address: router, abi: routerFeeAbi, functionName: 'FEE_DENOMINATOR' })),
    read(readContract(client, { address: router, abi: routerFeeAbi, functionName: 'getPartnerFee', args: [0n] })),
    read(readContract(client, { address: router, abi: defaultAdminFeeAbi, functionName: 'defaultAdminFee' })),
  ]);
  const findings: Finding[] = [];
  if ('value' in denominator && denominator.value === 10n ** 10n) findings.push({ level: 'ok', message: `router ${router}: fee denominator 1e10` });
  else findings.push({ level: 'fail', message: `router ${router}: fee denominator ${'value' in denominator ? denominator.value : `unreadable (${denominator.error})`}, not 1e10: its fees cannot be accounted for` });
  if ('value' in partnerZero) {
    findings.push({ level: partnerZero.value === 0n ? 'ok' : 'warn', message: `router ${router}: getPartnerFee(0) = ${partnerZero.value} (a quote without a key pays ${Number(partnerZero.value) / 1e8}%)` });
  } else {
    findings.push({ level: 'warn', message: `router ${router}: no getPartnerFee(uint256) (${partnerZero.error}): the service cannot read partner fees, so quotes with an API key are refused` });
  }
  if ('value' in adminFee && adminFee.value > 0n) findings.push({ level: 'warn', message: `router ${router}: defaultAdminFee() = ${adminFee.value} over 1e10, taken from swaps whose signature it cannot verify` });
  return findings;
}
