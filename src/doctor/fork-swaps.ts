/**
 * What `routekeeper doctor --fork` adds: on an anvil fork of the operator's node (nothing reaches the real chain), one
 * small swap through each venue the routing service finds pools from (each factory, through the adapter it routes
 * that factory's pools with), made as the daemon makes it: through the router, from a wallet of the strategy file,
 * with the wallet's own tokens. What the wallet received is held to what the pool's kind module (src/pools/) says
 * the pool pays, on the state read at the block before the swap, less the router's fee: to the wei, one line a venue.
 * A quote can agree with the model while the swap does not (an adapter that skims, a token that charges on transfer,
 * a venue whose rules the model lacks): this is where it shows.
 *
 * The fork's blocks keep the head's time (anvil's timestamp interval 0), so the state read is the state the swap
 * meets, clock included (Mento's bucket resets, the FX market's hours, a median's expiry).
 */
import { type Address, type Hex, encodeFunctionData, erc20Abi, isAddressEqual } from 'viem';
import { getBlock, readContract } from 'viem/actions';
import type { ChainClient } from '../chains.ts';
import { routerAbi, routerFeeAbi } from '../contracts/abi.ts';
import { reasonOf } from '../contracts/revert.ts';
import { devnetReceipt } from '../devnet/receipt.ts';
import type { FactorySource, IndexedPool, PoolKind } from '../pools/kind.ts';
import { poolKinds } from '../pools/registry.ts';
import type { RoutingSetup } from '../routing/setup.ts';
import { type Finding, firstLine } from './chain.ts';

/** The pools of a factory looked at for one to swap through, and the share of a pool's depth swapped. */
const POOLS_LOOKED_AT = 8;
const DEPTH_SHARE = 10_000n;
const FEE_DENOMINATOR = 10_000_000_000n;

/** One swap to make: a pool, its direction and size, from a wallet that holds the input. */
type Candidate = { pool: IndexedPool; tokenIn: Address; tokenOut: Address; amountIn: bigint; wallet: Address };

/** One line per venue of `setup`: its swap on the fork paid what the model says, or by how much it did not. */
export async function forkSwapFindings(
  client: ChainClient,
  setup: Pick<RoutingSetup, 'factories' | 'router' | 'tokens'>,
  wallets: readonly Address[],
): Promise<Finding[]> {
  await client.request({ method: 'anvil_setBlockTimestampInterval' as never, params: [0] as never });
  const partnerZeroFee = await readContract(client, { address: setup.router, abi: routerFeeAbi, functionName: 'getPartnerFee', args: [0n] });
  const tokens = [...new Set(Object.values(setup.tokens ?? {}).map((token) => token.address))];
  const findings: Finding[] = [];
  for (const factory of setup.factories) {
    const kind = poolKinds[factory.kind];
    const venue = `fork: ${kind.name} (factory ${factory.address}, adapter ${factory.adapter.address})`;
    try {
      const candidate = await candidateOf(client, kind, factory, tokens, wallets);
      if (!candidate) {
        findings.push({
          level: 'warn',
          message: `${venue}: no pool of it that the model prices and whose input token a wallet of the strategy file holds: not tried`,
        });
        continue;
      }
      findings.push(await swapFinding(client, setup.router, kind, factory, candidate, partnerZeroFee, venue));
    } catch (error) {
      findings.push({ level: 'fail', message: `${venue}: cannot be tried (${firstLine(error)})` });
    }
  }
  return findings;
}

/** The first of a factory's pools, either way, that the model prices at a ten-thousandth of its depth and a wallet can pay. */
async function candidateOf(client: ChainClient, kind: PoolKind, factory: FactorySource, tokens: readonly Address[], wallets: readonly Address[]) {
  const head = await getBlock(client, { blockTag: 'latest' });
  const pools = await kind.samplePools(client, factory, tokens, head.number, POOLS_LOOKED_AT);
  for (const pool of pools) {
    const state = await kind.readState(client, pool, head.number).catch(() => undefined);
    if (state === undefined) continue;
    for (const inIs0 of [true, false]) {
      const [tokenIn, tokenOut] = inIs0 ? [pool.token0, pool.token1] : [pool.token1, pool.token0];
      const depth = kind.depthOf
        ? kind.depthOf(state, inIs0)
        : await readContract(client, { address: tokenIn, abi: erc20Abi, functionName: 'balanceOf', args: [pool.address] });
      const amountIn = depth / DEPTH_SHARE;
      if (amountIn === 0n || kind.quote(state, pool, inIs0, amountIn) === 0n) continue;
      for (const wallet of wallets) {
        const held = await readContract(client, { address: tokenIn, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] });
        if (held >= amountIn) return { pool, tokenIn, tokenOut, amountIn, wallet } satisfies Candidate;
      }
    }
  }
  return undefined;
}

/** A transaction from `from` (impersonated on the fork), mined and successful, or why not. */
async function send(client: ChainClient, from: Address, to: Address, data: Hex): Promise<void> {
  const hash = (await client.request({ method: 'eth_sendTransaction', params: [{ from, to, data }] } as never)) as Hex;
  const receipt = await devnetReceipt(client, hash, { timeoutMs: 30_000 });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} to ${to} reverted`);
}

async function swapFinding(
  client: ChainClient,
  router: Address,
  kind: PoolKind,
  factory: FactorySource,
  candidate: Candidate,
  partnerZeroFee: bigint,
  venue: string,
): Promise<Finding> {
  const { pool, tokenIn, tokenOut, amountIn, wallet } = candidate;
  await client.request({ method: 'anvil_impersonateAccount' as never, params: [wallet] as never });
  await send(client, wallet, tokenIn, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, amountIn] }));
  // The state the swap meets: read at the block it follows, whose time it keeps.
  const head = await getBlock(client, { blockTag: 'latest' });
  const state = await kind.readState(client, pool, head.number);
  const inIs0 = isAddressEqual(tokenIn, pool.token0);
  const gross = state === undefined ? 0n : kind.quote(state, pool, inIs0, amountIn);
  const modelled = gross - (gross * partnerZeroFee) / FEE_DENOMINATOR;
  const before = await readContract(client, { address: tokenOut, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] });
  const swap = encodeFunctionData({
    abi: routerAbi,
    functionName: 'swapExactInputForOutput',
    args: [
      {
        path: [tokenIn, tokenOut],
        pairs: [factory.adapter.address],
        extras: [kind.extras(factory.adapter, pool)],
        inputAmount: amountIn,
        // What it pays is what is looked at: any output is taken, and held to the model below.
        minOutputAmount: 1n,
        expectedOutputAmount: modelled,
        to: wallet,
        deadline: head.timestamp + 600n,
        partner: 0n,
        sig: '0x',
      },
    ],
  });
  const what = `${amountIn} of ${tokenIn} for ${tokenOut} through pool ${pool.address}`;
  try {
    await send(client, wallet, router, swap);
  } catch (error) {
    return { level: 'fail', message: `${venue}: swapping ${what} reverts on the fork (${reasonOf(error)}), where the model pays ${modelled}` };
  }
  const paid = (await readContract(client, { address: tokenOut, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })) - before;
  if (paid === modelled) return { level: 'ok', message: `${venue}: swapped ${what} on the fork: paid ${paid}, exactly what the model says` };
  const by = paid > modelled ? `${paid - modelled} more` : `${modelled - paid} less`;
  return {
    level: 'fail',
    message: `${venue}: swapped ${what} on the fork: paid ${paid}, ${by} than the model's ${modelled}: routes through this venue would not pay what they are checked against (its adapter, a token or the model is wrong)`,
  };
}
