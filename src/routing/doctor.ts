/**
 * What `routekeeper doctor` checks of routing: the service in use answers; the hosted service the API was written
 * for answers at all (it was taken offline in 2023); each pair adapter the self-hosted service routes through has
 * code and prices a real pool of each factory exactly as the pool's own arithmetic does; and the router's fee
 * settings, read through its public interface.
 */
import { type Address, parseAbi } from 'viem';
import { getCode, readContract } from 'viem/actions';
import type { ChainClient } from '../chain/chains.ts';
import { type Finding, firstLine } from '../chain/doctor.ts';
import { reasonOf } from '../chain/revert.ts';
import { routerAbi, routerFeeAbi, uniswapV2IndexAbi, uniswapV3FactoryAbi } from '../contracts/abi.ts';
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
 * wei, for a thousandth of its reserve (a V3 factory's: a pool of two of the chain's tokens, through the router's own
 * getOutputAmount, as the daemon reads it); then the router's fee denominator, partner 0's fee and the default admin fee.
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
        findings.push(await v3AdapterFinding(client, factory, setup, name));
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

/**
 * A V3 factory's pool of two of the chain's tokens (the first found at the standard fee tiers) priced through the
 * router's view getOutputAmount, against the pool's state and our arithmetic: an adapter whose quote cannot run inside
 * a view (one that calls Uniswap's QuoterV2, which swaps and reverts) fails here as the daemon's reference would.
 */
async function v3AdapterFinding(client: ChainClient, factory: Extract<FactorySource, { kind: 'uniswap-v3' }>, setup: Pick<RoutingSetup, 'router' | 'tokens'>, name: string): Promise<Finding> {
  const tokens = [...new Set(Object.values(setup.tokens ?? {}).map((token) => token.address))];
  for (const [i, tokenA] of tokens.entries()) {
    for (const tokenB of tokens.slice(i + 1)) {
      for (const fee of [500, 3000, 10_000, 100]) {
        const pool = await readContract(client, { address: factory.address, abi: uniswapV3FactoryAbi, functionName: 'getPool', args: [tokenA, tokenB, fee] });
        if (/^0x0{40}$/.test(pool)) continue;
        const blockNumber = await client.getBlockNumber();
        const tickSpacing = await readContract(client, { address: pool, abi: parseAbi(['function tickSpacing() view returns (int24)']), functionName: 'tickSpacing' });
        const state = await readV3PoolState(client, pool, tickSpacing, blockNumber);
        const [token0, token1] = BigInt(tokenA) < BigInt(tokenB) ? [tokenA, tokenB] : [tokenB, tokenA];
        const amountIn = state.liquidity / 1_000_000n > 0n ? state.liquidity / 1_000_000n : 1n;
        const expected = swapExactIn(state, { fee, tickSpacing }, true, amountIn)?.amountOut;
        const viaRouter = await readContract(client, { address: setup.router, abi: routerAbi, functionName: 'getOutputAmount', args: [[token0, token1], [factory.adapter.address], [pool], amountIn], blockNumber }).then(
          (value) => ({ value }),
          (error: unknown) => ({ error: reasonOf(error) }),
        );
        if ('error' in viaRouter) return { level: 'fail', message: `${name}: the router's getOutputAmount through it reverts for pool ${pool} (${viaRouter.error}): the daemon cannot check a route through it` };
        return viaRouter.value === expected
          ? { level: 'ok', message: `${name}: prices pool ${pool} (${fee / 10_000}%) through the router as its ticks say (${amountIn} in, ${expected} out)` }
          : { level: 'fail', message: `${name}: prices pool ${pool} at ${viaRouter.value} for ${amountIn} through the router; its ticks say ${expected ?? 'no quote'}` };
      }
    }
  }
  return { level: 'warn', message: `${name}: factory ${factory.address} has no pool of the chain's tokens at 0.01%, 0.05%, 0.3% or 1% to check it against` };
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
