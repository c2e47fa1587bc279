/**
 * A pool's immutables and state as the index file keeps them when they are plain objects of bigints (a Mento
 * exchange's, a fixed-price pool's): JSON-safe, every bigint a decimal string tagged so that it reads back as one.
 */

export const toCacheJson = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? { n: item.toString() } : item)));

export const fromCacheJson = <T>(value: unknown): T =>
  JSON.parse(JSON.stringify(value), (_key, item) =>
    item && typeof item === 'object' && Object.keys(item).length === 1 && typeof item.n === 'string' ? BigInt(item.n) : item,
  ) as T;
