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

export type IndexSnapshot = {
  head: Head;
  pools: readonly { address: Address; token0: Address; token1: Address; factory: Address; index: number }[];
  reserves: ReadonlyMap<string, Reserves>;
  pairsLength: ReadonlyMap<string, number>;
};

const FORMAT = 1;
const integer = z.string().regex(/^\d+$/).transform(BigInt);

const cacheSchema = z.object({
  format: z.literal(FORMAT),
  factories: z.array(addressSchema),
  head: z.object({ number: integer, hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((hash) => hash as Hex), timestamp: integer, baseFeePerGas: integer }),
  pairsLength: z.record(z.string(), z.number().int().min(0)),
  pools: z.array(z.object({ address: addressSchema, token0: addressSchema, token1: addressSchema, factory: addressSchema, index: z.number().int().min(0), reserve0: integer, reserve1: integer })),
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
  const { head, pools, pairsLength } = parsed.data;
  return {
    head,
    pools: pools.map(({ address, token0, token1, factory, index }) => ({ address, token0, token1, factory, index })),
    reserves: new Map(pools.map((pool) => [pool.address.toLowerCase(), { reserve0: pool.reserve0, reserve1: pool.reserve1 }])),
    pairsLength: new Map(Object.entries(pairsLength).map(([factory, length]) => [factory.toLowerCase(), length])),
  };
}

export async function writeIndexCache(file: string, snapshot: IndexSnapshot): Promise<void> {
  const text = JSON.stringify({
    format: FORMAT,
    // Every factory has its pairs' count, none or more.
    factories: [...snapshot.pairsLength.keys()].map((factory) => getAddress(factory)),
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
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}
