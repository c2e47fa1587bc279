/** zod building blocks shared by every schema: addresses, raw uint256 amounts, hex data. */
import { getAddress, isAddress, maxUint256 } from 'viem';
import { z } from 'zod';

export const addressSchema = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), { message: 'must be a 20-byte hex address' })
  .transform((value) => getAddress(value));

export const hexSchema = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/, { message: 'must be 0x-prefixed hex with whole bytes' })
  .transform((value) => value as `0x${string}`);

/**
 * A raw uint256 written as a decimal string, as the service API carries amounts; parsed to bigint.
 * One transform, so nothing reaches BigInt() unchecked (zod runs a string's later checks even after one failed).
 */
export function uint256String(options: { positive?: boolean } = {}) {
  return z.string().transform((value, ctx) => {
    if (!/^\d+$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a non-negative whole number in decimal digits' });
      return z.NEVER;
    }
    const amount = BigInt(value);
    if (amount > maxUint256) {
      ctx.addIssue({ code: 'custom', message: 'must fit in uint256' });
      return z.NEVER;
    }
    if (options.positive && amount === 0n) {
      ctx.addIssue({ code: 'custom', message: 'must be greater than zero' });
      return z.NEVER;
    }
    return amount;
  });
}

export const uint256StringSchema = uint256String();
