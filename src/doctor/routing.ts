/**
 * What `routekeeper doctor` checks of routing: the service in use answers; the hosted service the API was written
 * for answers at all (it was taken offline in 2023); each pair adapter the self-hosted service routes through has
 * code and prices real pools of each factory exactly as the pool's own arithmetic does; and the router's fee
 * settings, read through its public interface.
 */
import { type Address, erc20Abi, parseAbi } from 'viem';
import { getCode, readContract } from 'viem/actions';
import type { ChainClient } from '../chains.ts';
import { type Finding, firstLine } from './chain.ts';
import { reasonOf } from '../contracts/revert.ts';
import { routerFeeAbi } from '../contracts/abi.ts';
import { redactUrl } from '../ops/secrets.ts';
import type { RoutingClient } from '../routing-client/client.ts';
import type { FactorySource } from '../pools/kind.ts';
import { poolKinds } from '../pools/registry.ts';
import type { RoutingSetup } from '../routing/setup.ts';

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

/** The pools an adapter is checked against, at most, and the shares of a pool's input-token balance it is asked to sell. */
const POOLS_CHECKED = 4;
const CHECK_DIVISORS = [100_000n, 1_000n, 100n, 20n];

/**
 * Each factory's adapter has code and quotes the factory's pools exactly as their kind's module does (src/pools/),
 * and a factory found from a start block had no code before it; then the router's fee denominator, partner 0's fee
 * and the default admin fee.
 */
export async function adapterFindings(client: ChainClient, setup: Pick<RoutingSetup, 'factories' | 'router' | 'tokens'>): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const factory of setup.factories) {
    const kind = poolKinds[factory.kind];
    const name = `adapter ${factory.adapter.address} (${kind.adapterName(factory.adapter)}) for ${factory.protocol}`;
    try {
      const code = await getCode(client, { address: factory.adapter.address });
      if (!code || code === '0x') findings.push({ level: 'fail', message: `${name}: no code at its address` });
      else if (kind.ownAdapterCode && code.toLowerCase() !== kind.ownAdapterCode.toLowerCase()) {
        // No one publishes this adapter: only routekeeper's own build is trusted to route through.
        findings.push({
          level: 'fail',
          message: `${name}: its code is not routekeeper's own adapter build; deploy that one with 'routekeeper deploy-adapter ${factory.kind}'`,
        });
      } else findings.push(await quoteFinding(client, factory, setup, name));
    } catch (error) {
      findings.push({ level: 'fail', message: `${name}: cannot be checked (${firstLine(error)})` });
    }
    findings.push(...(await startBlockFindings(client, factory)));
  }
  findings.push(...(await routerFeeFindings(client, setup.router)));
  return findings;
}

/**
 * An adapter asked for its quote at the top level (an eth_call of its own getOutputAmount, as the daemon's hop quotes
 * ask it: not a static call, so one that quotes through Uniswap's QuoterV2 answers), on up to four of the factory's
 * pools (for a factory that does not number them, pools of two of the chain's tokens at any fee), each way and at
 * several sizes from a hundred-thousandth to a twentieth of the pool's balance, against the pool's state and its kind's
 * arithmetic, all on one block. A size the arithmetic cannot quote (a V3 swap past the ticks it reads) is left out;
 * any other difference fails the adapter.
 */
async function quoteFinding(client: ChainClient, factory: FactorySource, setup: Pick<RoutingSetup, 'tokens'>, name: string): Promise<Finding> {
  const kind = poolKinds[factory.kind];
  const tokens = [...new Set(Object.values(setup.tokens ?? {}).map((token) => token.address))];
  const blockNumber = await client.getBlockNumber();
  const pools = await kind.samplePools(client, factory, tokens, blockNumber, POOLS_CHECKED);
  if (pools.length === 0) return { level: 'warn', message: `${name}: factory ${factory.address} has no pool to check it against` };
  let quotes = 0;
  /** Sizes the model quotes 0 (a pool it holds closed, halted or past a limit) that the chain's adapter quotes more. */
  const unmodelled: string[] = [];
  for (const pool of pools) {
    const state = await kind.readState(client, pool, blockNumber);
    if (state === undefined) continue;
    for (const [tokenIn, tokenOut] of [
      [pool.token0, pool.token1],
      [pool.token1, pool.token0],
    ] as const) {
      const inIs0 = tokenIn === pool.token0;
      const balance = kind.depthOf
        ? kind.depthOf(state, inIs0)
        : await readContract(client, { address: tokenIn, abi: erc20Abi, functionName: 'balanceOf', args: [pool.address], blockNumber });
      for (const divisor of CHECK_DIVISORS) {
        const amountIn = balance / divisor;
        if (amountIn === 0n) continue;
        const expected = kind.quote(state, pool, inIs0, amountIn);
        const args = [tokenIn, tokenOut, amountIn, kind.extras(factory.adapter, pool)] as const;
        const quoted = await client
          .simulateContract({ address: factory.adapter.address, abi: adapterAbi, functionName: 'getOutputAmount', args, blockNumber })
          .then(
            ({ result }) => ({ value: result }),
            (error: unknown) => ({ error: reasonOf(error) }),
          );
        // What the model will not quote is not routed. At the smallest size that can only be the whole pool (held
        // closed, halted, without a price): the chain answering more there is a finding, not a size to skip. Larger
        // sizes may pass a trading limit, which the venues' quotes do not check and their swaps do.
        if (expected === 0n) {
          if (divisor === CHECK_DIVISORS[0] && 'value' in quoted && quoted.value > 0n)
            unmodelled.push(`${quoted.value} for ${amountIn} of ${tokenIn} in pool ${pool.address}`);
          continue;
        }
        if ('error' in quoted)
          return {
            level: 'fail',
            message: `${name}: its getOutputAmount reverts for pool ${pool.address} (${quoted.error}): the daemon cannot read what a route through it pays`,
          };
        if (quoted.value !== expected) {
          return {
            level: 'fail',
            message: `${name}: quotes ${quoted.value} for ${amountIn} of ${tokenIn} in pool ${pool.address} (${pool.feeBps / 100}%); its state says ${expected}`,
          };
        }
        quotes++;
      }
    }
  }
  const tiers = [...new Set(pools.map((pool) => pool.feeBps))]
    .sort((a, b) => a - b)
    .map((bps) => `${bps / 100}%`)
    .join(', ');
  if (unmodelled.length > 0) {
    return {
      level: 'warn',
      message: `${name}: the model quotes nothing where the chain's adapter quotes ${unmodelled.join('; ')}: the pool is not routed (the model holds it closed, halted or without a price, and the chain does not)`,
    };
  }
  if (quotes === 0) return { level: 'warn', message: `${name}: no size of ${pools.length} pools could be quoted to check it against` };
  return {
    level: 'ok',
    message: `${name}: quotes ${pools.length} pools (${tiers}) as their state says, both ways at ${quotes} sizes (from 1/100000 to 1/20 of a pool's balance)`,
  };
}

/**
 * A factory whose pools are found from its logs from a start block: with no code at the block before it, no pool can
 * have been made earlier. A node that keeps no state that old cannot tell (a warning).
 */
async function startBlockFindings(client: ChainClient, factory: FactorySource): Promise<Finding[]> {
  if (!('fromBlock' in factory) || factory.fromBlock === 0n) return [];
  const before = factory.fromBlock - 1n;
  const name = `factory ${factory.address} (${factory.protocol})`;
  try {
    const code = await getCode(client, { address: factory.address, blockNumber: before });
    return code && code !== '0x'
      ? [
          {
            level: 'fail',
            message: `${name}: has code at block ${before}, before the block its pools are looked for from (${factory.fromBlock}): pools made in between are missed`,
          },
        ]
      : [{ level: 'ok', message: `${name}: no code before block ${factory.fromBlock}, where its pools are looked for from: none is missed` }];
  } catch (error) {
    return [{ level: 'warn', message: `${name}: whether it had code before block ${factory.fromBlock} cannot be read from this node (${firstLine(error)})` }];
  }
}

async function routerFeeFindings(client: ChainClient, router: Address): Promise<Finding[]> {
  const read = <T>(work: Promise<T>) =>
    work.then(
      (value) => ({ value }),
      (error: unknown) => ({ error: firstLine(error) }),
    );
  const [denominator, partnerZero, adminFee] = await Promise.all([
    read(readContract(client, { address: router, abi: routerFeeAbi, functionName: 'FEE_DENOMINATOR' })),
    read(readContract(client, { address: router, abi: routerFeeAbi, functionName: 'getPartnerFee', args: [0n] })),
    read(readContract(client, { address: router, abi: defaultAdminFeeAbi, functionName: 'defaultAdminFee' })),
  ]);
  const findings: Finding[] = [];
  if ('value' in denominator && denominator.value === 10n ** 10n) findings.push({ level: 'ok', message: `router ${router}: fee denominator 1e10` });
  else
    findings.push({
      level: 'fail',
      message: `router ${router}: fee denominator ${'value' in denominator ? denominator.value : `unreadable (${denominator.error})`}, not 1e10: its fees cannot be accounted for`,
    });
  if ('value' in partnerZero) {
    findings.push({
      level: partnerZero.value === 0n ? 'ok' : 'warn',
      message: `router ${router}: getPartnerFee(0) = ${partnerZero.value} (a quote without a key pays ${Number(partnerZero.value) / 1e8}%)`,
    });
  } else {
    findings.push({
      level: 'warn',
      message: `router ${router}: no getPartnerFee(uint256) (${partnerZero.error}): the service cannot read partner fees, so quotes with an API key are refused`,
    });
  }
  if ('value' in adminFee && adminFee.value > 0n)
    findings.push({
      level: 'warn',
      message: `router ${router}: defaultAdminFee() = ${adminFee.value} over 1e10, taken from swaps whose signature it cannot verify`,
    });
  return findings;
}
