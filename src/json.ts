/**
 * The one JSON writer for values that may hold amounts: a bigint is written as its decimal string (amounts are
 * never JSON numbers, which lose precision above 2^53). Ledger rows, API answers, logs and notifications all use it.
 */
export const toJson = (value: unknown, space?: number): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), space);
