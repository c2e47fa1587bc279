/**
 * The pool index kept between runs: one JSON file, written whole to a temporary name and renamed over the old one,
 * so a crash leaves the last complete copy. A file that does not parse, or was made for other factories, is not
 * used (the index is then built from the chain, as at a first start).
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { type Address, type Hex, getAddress } from 'viem';
import { z } from 'zod';
import type { CachedPool, Head, PoolKindId } from '../pools/kind.ts';
import { poolKinds } from '../pools/registry.ts';
import { addressSchema } from '../primitives.ts';

/** PoolsAtBlock as the cache file keeps it: each pool as its kind stores it (kind.ts `toCache`), and how far each factory's discovery got. */
export type CachedPoolsAtBlock = {
  head: Head;
  pools: readonly CachedPool[];
  progress: ReadonlyMap<string, bigint>;
};

// Format 5: every pool in one list, each with its kind and its kind's own fields; a Mento v3 pool with its oracle
// adapter and market-hours breaker, a Uniswap V3 pool with its own oracle's ring and last write (a file of an older
// format lacks them: it is not used, and the index is read afresh).
const FORMAT = 5;
const integer = z.string().regex(/^\d+$/).transform(BigInt);
const kindIds = Object.keys(poolKinds) as [PoolKindId, ...PoolKindId[]];

const cacheSchema = z.object({
  format: z.literal(FORMAT),
  factories: z.array(addressSchema),
  head: z.object({
    number: integer,
    hash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .transform((hash) => hash as Hex),
    timestamp: integer,
    baseFeePerGas: integer,
  }),
  progress: z.record(z.string(), integer),
  pools: z.array(
    z.looseObject({
      kind: z.enum(kindIds),
      address: addressSchema,
      token0: addressSchema,
      token1: addressSchema,
      factory: addressSchema,
      index: z.number().int().min(-1),
    }),
  ),
});

const sameFactories = (a: readonly Address[], b: readonly { address: Address }[]) =>
  a.length === b.length && a.every((address) => b.some((factory) => factory.address.toLowerCase() === address.toLowerCase()));

export async function readIndexCache(file: string, factories: readonly { address: Address }[]): Promise<CachedPoolsAtBlock | undefined> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = cacheSchema.safeParse(raw);
  if (!parsed.success || !sameFactories(parsed.data.factories, factories)) return undefined;
  const { head, pools, progress } = parsed.data;
  return { head, pools, progress: new Map(Object.entries(progress).map(([factory, value]) => [factory.toLowerCase(), value])) };
}

export async function writeIndexCache(file: string, snapshot: CachedPoolsAtBlock & { factories: readonly Address[] }): Promise<void> {
  const text = JSON.stringify({
    format: FORMAT,
    factories: snapshot.factories.map((factory) => getAddress(factory)),
    head: {
      number: snapshot.head.number.toString(),
      hash: snapshot.head.hash,
      timestamp: snapshot.head.timestamp.toString(),
      baseFeePerGas: snapshot.head.baseFeePerGas.toString(),
    },
    progress: Object.fromEntries([...snapshot.progress].map(([factory, value]) => [factory, value.toString()])),
    pools: snapshot.pools,
  });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}
