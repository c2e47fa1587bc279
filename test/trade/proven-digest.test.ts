/**
 * The digest that vouches for rows proven before (src/trade/signed-history.ts) reads one set of rows one way only:
 * rows joined by separators once let a writer merge a signed row into a ghost row of free-text `intent_id` with the
 * same digest, and a fresh process then took the ghost as proven. Each row is now hashed as one JSON array, the rows'
 * count first, and with its trade's call tag: no two sets of rows, and no row without its call tag, read the same.
 */
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/model/attempt.ts';
import { callKeyOf, digestOf } from '../../src/trade/signed-history.ts';

const row = (id: number, intentId: string, nonce: number): Attempt => ({
  id,
  intentId,
  purpose: 'trade',
  wallet: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  chainId: 42220,
  nonce,
  maxFeePerGas: 10n,
  maxPriorityFeePerGas: 1n,
  gasLimit: 21_000n,
  rawTx: `0x02${String(nonce).padStart(4, '0')}`,
  hash: `0x${String(id).padStart(64, '0')}`,
  status: 'mined',
  blockNumber: 1n,
  gasUsed: 21_000n,
  effectiveGasPrice: 10n,
  error: null,
  createdAt: 0,
  updatedAt: 0,
  tag: `0x${'ab'.repeat(32)}`,
});

/** Each trade's call as the proof keys it: its tag and its call (target, spender, data). */
const tags = (ids: string[], tag: Hex = `0x${'cd'.repeat(32)}`) =>
  new Map(
    ids.map(
      (id) =>
        [
          id,
          callKeyOf({
            tags: { call: tag },
            call: { target: '0x0000000000000000000000000000000000000aaa', data: '0x1234', expectedOut: 1n, minOut: 1n, deadline: 1n },
          }),
        ] as const,
    ),
  );

describe('the digest of proven rows', () => {
  it('tells a signed row apart from a ghost row whose free-text trade id carries the signed row’s fields', () => {
    const signed = [row(1, 'dca:a', 0), row(2, 'dca:b', 1)];
    // The second row's fields, as the old digest joined them, hidden in the first row's trade id: one row, not two.
    const ghost = [row(1, `dca:a|0|trade|${signed[0]?.hash}\n2|dca:b`, 0)];
    expect(digestOf(ghost, tags(['dca:a', 'dca:b', ghost[0]?.intentId as string]))).not.toBe(digestOf(signed, tags(['dca:a', 'dca:b'])));
    // Every field of a row counts; so does the order of the rows by id, not as given.
    expect(digestOf([...signed].reverse(), tags(['dca:a', 'dca:b']))).toBe(digestOf(signed, tags(['dca:a', 'dca:b'])));
    for (const changed of [{ intentId: 'dca:c' }, { nonce: 7 }, { purpose: 'cancel' as const }, { tag: `0x${'ef'.repeat(32)}` as Hex }, { tag: undefined }]) {
      const edited = [{ ...(signed[0] as Attempt), ...changed }, signed[1] as Attempt];
      expect(digestOf(edited, tags(['dca:a', 'dca:b', 'dca:c']))).not.toBe(digestOf(signed, tags(['dca:a', 'dca:b'])));
    }
  });

  it("covers each row's trade's call and its tag: either changed, or the call removed, changes it", () => {
    const signed = [row(1, 'dca:a', 0)];
    const before = digestOf(signed, tags(['dca:a']));
    expect(digestOf(signed, tags(['dca:a'], `0x${'ee'.repeat(32)}`))).not.toBe(before);
    const otherCall = callKeyOf({
      tags: { call: `0x${'cd'.repeat(32)}` },
      call: { target: '0x0000000000000000000000000000000000000aaa', data: '0x1235', expectedOut: 1n, minOut: 1n, deadline: 1n },
    });
    expect(digestOf(signed, new Map([['dca:a', otherCall]]))).not.toBe(before);
    expect(digestOf(signed, new Map())).not.toBe(before);
  });
});
