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

/** A raw uint256 written as a decimal string, as the service API carries amounts; parsed to bigint. */
export const uint256StringSchema = z
  .string()
  .regex(/^\d+$/, { message: 'must be a non-negative whole number in decimal digits' })
  .refine((value) => BigInt(value) <= maxUint256, { message: 'must fit in uint256' })
  .transform((value) => BigInt(value));
