/** The call a trade kind builds, and what every kind's call shares. */
import { maxUint256 } from 'viem';
import type { Address } from 'viem';
import type { SwapPayload } from '../contracts/payload.ts';
import type { CheckedCall } from '../model/trade.ts';

/** Our call, with the pieces the checks compare (the swap payload, the OneClickFarm). */
export type BuiltCall = CheckedCall & { payload?: SwapPayload; oneClickFarm?: Address };

/**
 * The `expectedOutputAmount` we sign. The router pays min(actual output, expectedOutputAmount) and keeps the
 * rest, and the partner signature does not cover it: any number from the service would let the router keep
 * the user's surplus. We sign the largest number, so the cap never binds and the user gets the whole output;
 * the minimum is what protects the user.
 */
export const uncappedOutput = maxUint256;

/** The earliest of a call's deadlines (none when it has none). */
export const earliest = (deadlines: readonly bigint[]) => (deadlines.length === 0 ? undefined : deadlines.reduce((a, b) => (a < b ? a : b)));
