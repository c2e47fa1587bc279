import type { Address } from 'viem';
import type { RouteDetail } from '../routing-api/schemas.ts';

/** The router's SwapPayload, as viem encodes it. */
export type SwapPayload = {
  path: Address[];
  pairs: Address[];
  extras: `0x${string}`[];
  inputAmount: bigint;
  minOutputAmount: bigint;
  expectedOutputAmount: bigint;
  to: Address;
  deadline: bigint;
  partner: bigint;
  sig: `0x${string}`;
};

/**
 * A route detail from the service is a SwapPayload without `minOutputAmount` and `to`: the caller adds
 * both (its own slippage floor and its own recipient) and passes every other field through unchanged.
 */
export function swapPayloadFrom(detail: RouteDetail, own: { minOutputAmount: bigint; to: Address; expectedOutputAmount?: bigint }): SwapPayload {
  return {
    path: detail.path,
    pairs: detail.pairs,
    extras: detail.extras,
    inputAmount: detail.inputAmount,
    minOutputAmount: own.minOutputAmount,
    expectedOutputAmount: own.expectedOutputAmount ?? detail.expectedOutputAmount,
    to: own.to,
    deadline: BigInt(detail.deadline),
    partner: BigInt(detail.partner),
    sig: detail.sig,
  };
}
