/**
 * Uniswap V2 constant-product pools (Ubeswap, SushiSwap, Uniswap V2 on Celo) as a pool kind (kind.ts): a factory
 * numbers its pairs (`allPairs`), `PairCreated` announces a new one, `Sync` carries a pair's reserves after every
 * change; a quote is the pair's own x·y=k with its fee. Adapters read `extras` as pool (20 bytes) ‖ one fee byte, per
 * mille (Minima's, the devnet's own) or in basis points (Swappa's PairUniswapV2).
 */
import { type Address, type Hex, type PublicClient, getAddress, isAddressEqual, parseAbi, size, sliceHex, zeroAddress } from 'viem';
import { multicall } from 'viem/actions';
import { answers } from '../../contracts/revert.ts';
import { feePpmOfPerMille } from '../../config/chain-data.ts';
import { uniswapV2IndexAbi, uniswapV2PairAbi } from '../../contracts/abi.ts';
import { encodePoolExtras, pairAddress } from '../../contracts/encoding.ts';
import type { CachedPool, FactorySource, FeeUnit, IndexedPool, PairAdapter, PoolKind } from '../kind.ts';
import { swapOutput } from './math.ts';

/** A pair's reserves; its LP supply only where a deposit or withdraw quote needed it. */
export type PoolReserves = { reserve0: bigint; reserve1: bigint; totalSupply?: bigint };

/** The fee byte of a pool charging `feeBps`, or undefined when this adapter cannot express it. */
export function feeByte(feeUnit: FeeUnit, feeBps: number): number | undefined {
  const value = feeUnit === 'bips' ? feeBps : feeBps / 10;
  return Number.isInteger(value) && value >= 0 && value <= 255 ? value : undefined;
}

const integer = (value: unknown) => (typeof value === 'string' && /^\d+$/.test(value) ? BigInt(value) : 0n);

function pairOf(factory: FactorySource, pair: Address, token0: Address, token1: Address, index: number): IndexedPool {
  return {
    address: getAddress(pair),
    token0: getAddress(token0),
    token1: getAddress(token1),
    feeBps: factory.kind === 'uniswap-v2' ? factory.feeBps : 0,
    kind: uniswapV2,
    protocol: factory.protocol,
    adapter: factory.adapter,
    factory: factory.address,
    index,
  };
}

const events = uniswapV2IndexAbi.filter((item) => item.type === 'event');

/** The factory's pair number `index`, with its tokens. */
async function readPair(client: PublicClient, factory: FactorySource, index: number, blockNumber: bigint): Promise<IndexedPool> {
  const pair = await client.readContract({ address: factory.address, abi: uniswapV2IndexAbi, functionName: 'allPairs', args: [BigInt(index)], blockNumber });
  const [token0, token1] = await Promise.all([
    client.readContract({ address: pair, abi: uniswapV2IndexAbi, functionName: 'token0', blockNumber }),
    client.readContract({ address: pair, abi: uniswapV2IndexAbi, functionName: 'token1', blockNumber }),
  ]);
  return pairOf(factory, pair, token0, token1, index);
}

const pairsLength = async (client: PublicClient, factory: FactorySource, blockNumber: bigint) =>
  Number(await client.readContract({ address: factory.address, abi: uniswapV2IndexAbi, functionName: 'allPairsLength', blockNumber }));

const getPairAbi = parseAbi(['function getPair(address, address) view returns (address)']);

export const uniswapV2: PoolKind<PoolReserves> = {
  id: 'uniswap-v2',
  name: 'Uniswap V2',
  lpPositions: true,
  adapterName: (adapter: PairAdapter) => `Uniswap V2, fee byte in ${adapter.feeUnit ?? 'per-mille'}`,
  extras(adapter, pool): Hex {
    const fee = feeByte(adapter.feeUnit ?? 'per-mille', pool.feeBps);
    if (fee === undefined) throw new Error(`adapter ${adapter.address} (${adapter.feeUnit}) cannot express pool ${pool.address}'s fee of ${pool.feeBps} bps`);
    return encodePoolExtras(pool.address, fee);
  },

  events,
  /** Every pair the factory lists at `head`; only those not already known are asked their tokens (they never change). */
  async discover(client, factory, known, head) {
    const length = await pairsLength(client, factory, head.number);
    const byIndex = new Map(known.pools.map((pool) => [pool.index, pool]));
    const pools = await Promise.all(Array.from({ length }, (_, index) => byIndex.get(index) ?? readPair(client, factory, index, head.number)));
    return { pools, progress: BigInt(length) };
  },
  progressAfter: (progress) => progress,
  async readState(client, pool, blockNumber) {
    const [reserve0, reserve1] = await client.readContract({ address: pool.address, abi: uniswapV2IndexAbi, functionName: 'getReserves', blockNumber });
    return { reserve0, reserve1 };
  },
  follow(log, draft) {
    const key = log.address.toLowerCase();
    if (log.eventName === 'PairCreated') {
      const factory = draft.factory(log.address);
      const { pair, token0, token1, index } = log.args as { pair?: Address; token0?: Address; token1?: Address; index?: bigint };
      if (factory?.kind !== 'uniswap-v2' || !pair || !token0 || !token1 || index === undefined) return false;
      const pool = pairOf(factory, pair, token0, token1, Number(index) - 1);
      draft.pools.set(pool.address.toLowerCase(), pool);
      if (!draft.states.has(pool.address.toLowerCase())) draft.states.set(pool.address.toLowerCase(), { reserve0: 0n, reserve1: 0n });
      const counted = draft.progress.get(factory.address.toLowerCase()) ?? 0n;
      draft.progress.set(factory.address.toLowerCase(), index > counted ? index : counted);
      return true;
    }
    if (log.eventName === 'Sync') {
      // Logs come in chain order: the last Sync of a pool in the range is its state at the head.
      const { reserve0, reserve1 } = log.args as { reserve0?: bigint; reserve1?: bigint };
      if (draft.pools.get(key)?.kind !== uniswapV2 || reserve0 === undefined || reserve1 === undefined) return false;
      draft.states.set(key, { reserve0, reserve1 });
      return true;
    }
    return false;
  },
  needsRead: () => false,
  toCache: (pool, state): CachedPool => ({
    kind: 'uniswap-v2',
    address: pool.address,
    token0: pool.token0,
    token1: pool.token1,
    factory: pool.factory,
    index: pool.index,
    reserve0: state.reserve0.toString(),
    reserve1: state.reserve1.toString(),
  }),
  fromCache: (entry, factory) => ({
    pool: pairOf(factory, entry.address, entry.token0, entry.token1, entry.index),
    state: { reserve0: integer(entry.reserve0), reserve1: integer(entry.reserve1) },
  }),

  routable: (state, minReserve) => state.reserve0 >= minReserve && state.reserve1 >= minReserve,
  quote: (state, pool, inIs0, amountIn) => swapOutput(amountIn, inIs0 ? state.reserve0 : state.reserve1, inIs0 ? state.reserve1 : state.reserve0, pool.feeBps),
  swap(state, pool, inIs0, amountIn) {
    const amountOut = uniswapV2.quote(state, pool, inIs0, amountIn);
    const { reserve0, reserve1, totalSupply } = state;
    const moved = inIs0 ? { reserve0: reserve0 + amountIn, reserve1: reserve1 - amountOut } : { reserve0: reserve0 - amountOut, reserve1: reserve1 + amountIn };
    return { amountOut, state: { ...moved, totalSupply } };
  },
  midPrice: (state, inIs0) => (inIs0 ? { numerator: state.reserve1, denominator: state.reserve0 } : { numerator: state.reserve0, denominator: state.reserve1 }),
  async samplePools(client, factory, _tokens, blockNumber, max) {
    const length = await pairsLength(client, factory, blockNumber);
    return Promise.all(Array.from({ length: Math.min(length, max) }, (_, index) => readPair(client, factory, index, blockNumber)));
  },

  provenBy: 'its getPair',
  createdAt: (factory, initCodeHash, pool) => pairAddress(factory, initCodeHash, [pool.token0, pool.token1]),
  /** Pool (20 bytes) ‖ fee per mille (1 byte), as the listed (Minima-style) adapters read it. */
  readExtras(extras) {
    if (size(extras) !== 21) return `is ${size(extras)} bytes, not a Uniswap V2 pool and fee (21)`;
    return { pool: getAddress(sliceHex(extras, 0, 20)), feePpm: feePpmOfPerMille(Number.parseInt(sliceHex(extras, 20, 21).slice(2), 16)) };
  },
  /** The factory's pair of the tokens (CREATE2 of its init code hash: no chain read; else its getPair) is `pool`. */
  async madeBy(facts, factory, pool, [a, b]) {
    if (factory.kind !== 'uniswap-v2') return undefined;
    const made = factory.initCodeHash
      ? pairAddress(factory.address, factory.initCodeHash, [a, b])
      : await facts
          .address(`pair:${factory.address}:${a}:${b}`, () =>
            facts.client.readContract({ address: factory.address, abi: getPairAbi, functionName: 'getPair', args: [a, b] }),
          )
          .catch(() => zeroAddress);
    return isAddressEqual(made, pool) ? factory.feePpm : undefined;
  },
  highestFeePpm: (factory) => (factory.kind === 'uniswap-v2' ? factory.feePpm : 0),
  // A pair stores cumulative prices: the daemon averages them between a block a window back and now.
  steadyPrice: {
    /**
     * One call (a deployless multicall), so all three come from one state: three reads of `latest`, even in one
     * batch, can be answered from both sides of a block being mined, and cumulatives stored by a swap beside the
     * reserves and time from before it would add the seconds since the previous update twice (a false average).
     */
    async cumulativesAt(client, pool, at) {
      const read = { address: pool, abi: uniswapV2PairAbi } as const;
      const [cumulative0, cumulative1, [reserve0, reserve1, updatedAt]] = await multicall(client, {
        contracts: [
          { ...read, functionName: 'price0CumulativeLast' },
          { ...read, functionName: 'price1CumulativeLast' },
          { ...read, functionName: 'getReserves' },
        ],
        deployless: true,
        allowFailure: false,
        ...at,
      });
      return { cumulative0, cumulative1, reserve0, reserve1, updatedAt };
    },
  },
  /** A V3 pool has no getReserves(): only a pair answers it. */
  recognises: (client, pool) => answers(client.readContract({ address: pool, abi: uniswapV2PairAbi, functionName: 'getReserves' })),
};
