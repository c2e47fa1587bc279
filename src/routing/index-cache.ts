/**
 * The pool index kept between runs: one JSON file, written whole to a temporary name and renamed over the old one,
 * so a crash leaves the last complete copy. A file that does not parse, or was made for other factories, is not
 * used (the index is then built from the chain, as at a first start).
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { type Address, type Hex, getAddress } from 'viem';
import { z } from 'zod';
import { addressSchema } from '../primitives.ts';
import type { Head, Reserves } from './block-state.ts';
import type { V3PoolState } from './uniswap-v3-math.ts';

/** A V3 pool as cached: its immutables and its state at the cached block. */
export type CachedV3Pool = { address: Address; token0: Address; token1: Address; factory: Address; fee: number; tickSpacing: number; state: V3PoolState };

export type IndexSnapshot = {
  head: Head;
  pools: readonly { address: Address; token0: Address; token1: Address; factory: Address; index: number }[];
  reserves: ReadonlyMap<string, Reserves>;
  pairsLength: ReadonlyMap<string, number>;
  v3Pools: readonly CachedV3Pool[];
  v3ScannedTo: bigint;
};

const FORMAT = 2;
const integer = z.string().regex(/^\d+$/).transform(BigInt);
const signedInteger = z.string().regex(/^-?\d+$/).transform(BigInt);
const v3PoolSchema = z.object({
  address: addressSchema,
  token0: addressSchema,
  token1: addressSchema,
  factory: addressSchema,
  fee: z.number().int().min(0),
  tickSpacing: z.number().int().min(1),
  sqrtPriceX96: integer,
  tick: z.number().int(),
  liquidity: integer,
  words: z.object({ low: z.number().int(), high: z.number().int() }),
  ticks: z.array(z.tuple([z.number().int(), signedInteger, integer])),
});

const cacheSchema = z.object({
  format: z.literal(FORMAT),
  factories: z.array(addressSchema),
  head: z.object({ number: integer, hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((hash) => hash as Hex), timestamp: integer, baseFeePerGas: integer }),
  pairsLength: z.record(z.string(), z.number().int().min(0)),
  pools: z.array(z.object({ address: addressSchema, token0: addressSchema, token1: addressSchema, factory: addressSchema, index: z.number().int().min(0), reserve0: integer, reserve1: integer })),
  v3Pools: z.array(v3PoolSchema),
  v3ScannedTo: integer,
});

const sameFactories = (a: readonly Address[], b: readonly { address: Address }[]) =>
  a.length === b.length && a.every((address) => b.some((factory) => factory.address.toLowerCase() === address.toLowerCase()));

export async function readIndexCache(file: string, factories: readonly { address: Address }[]): Promise<IndexSnapshot | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = cacheSchema.safeParse(raw);
  if (!parsed.success || !sameFactories(parsed.data.factories, factories)) return undefined;
  const { head, pools, pairsLength, v3Pools, v3ScannedTo } = parsed.data;
  return {
    head,
    v3ScannedTo,
    v3Pools: v3Pools.map(({ sqrtPriceX96, tick, liquidity, words, ticks, ...pool }) => ({
      ...pool,
      state: { sqrtPriceX96, tick, liquidity, words, ticks: ticks.map(([index, liquidityNet, liquidityGross]) => ({ tick: index, liquidityNet, liquidityGross })) },
    })),
    pools: pools.map(({ address, token0, token1, factory, index }) => ({ address, token0, token1, factory, index })),
    reserves: new Map(pools.map((pool) => [pool.address.toLowerCase(), { reserve0: pool.reserve0, reserve1: pool.reserve1 }])),
    pairsLength: new Map(Object.entries(pairsLength).map(([factory, length]) => [factory.toLowerCase(), length])),
  };
}

export async function writeIndexCache(file: string, snapshot: IndexSnapshot & { factories: readonly Address[] }): Promise<void> {
  const text = JSON.stringify({
    format: FORMAT,
    factories: snapshot.factories.map((factory) => getAddress(factory)),
    head: {
      number: snapshot.head.number.toString(),
      hash: snapshot.head.hash,
      timestamp: snapshot.head.timestamp.toString(),
      baseFeePerGas: snapshot.head.baseFeePerGas.toString(),
    },
    pairsLength: Object.fromEntries(snapshot.pairsLength),
    pools: snapshot.pools.map(({ address, token0, token1, factory, index }) => {
      const reserves = snapshot.reserves.get(address.toLowerCase()) ?? { reserve0: 0n, reserve1: 0n };
      return { address, token0, token1, factory, index, reserve0: reserves.reserve0.toString(), reserve1: reserves.reserve1.toString() };
    }),
    v3Pools: snapshot.v3Pools.map(({ address, token0, token1, factory, fee, tickSpacing, state }) => ({
      address,
      token0,
      token1,
      factory,
      fee,
      tickSpacing,
      sqrtPriceX96: state.sqrtPriceX96.toString(),
      tick: state.tick,
      liquidity: state.liquidity.toString(),
      words: state.words,
      ticks: state.ticks.map((tick) => [tick.tick, tick.liquidityNet.toString(), tick.liquidityGross.toString()]),
    })),
    v3ScannedTo: snapshot.v3ScannedTo.toString(),
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}
