/**
 * Fee policy: EIP-1559 fees from the block they were read with, the user's cap, and replacement bumps.
 * Fees come in the same batched read as the block (see preflight.ts), so there is nothing to cache per block.
 */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** Most nodes ask a replacement for 10% more; 12.5% clears every one of them. */
const REPLACEMENT_BUMP_PER_MILLE = 1125n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export class FeePolicy {
  /** Highest max fee per gas ever signed; undefined: no cap. */
  readonly cap: bigint | undefined;

  constructor(cap?: bigint) {
    this.cap = cap;
  }

  /** Fees for the next block: the base fee with room for 20% growth (viem's default) plus the tip. */
  fromBlock(baseFeePerGas: bigint, maxPriorityFeePerGas: bigint): Fees {
    return { maxFeePerGas: (baseFeePerGas * 12n) / 10n + maxPriorityFeePerGas, maxPriorityFeePerGas };
  }

  /** Whether a fee is above the cap. */
  overCap(maxFeePerGas: bigint): boolean {
    return this.cap !== undefined && maxFeePerGas > this.cap;
  }

  /** Fees lowered to the cap (the tip never above the max fee). */
  capped(fees: Fees): Fees {
    const maxFeePerGas = this.overCap(fees.maxFeePerGas) ? (this.cap as bigint) : fees.maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : fees.maxPriorityFeePerGas };
  }

  /** A replacement's fees: at least 12.5% above the previous ones, and at least what the chain asks now (not capped). */
  bumped(previous: Fees, current: Fees): Fees {
    const maxFeePerGas = max(ceilDiv(previous.maxFeePerGas * REPLACEMENT_BUMP_PER_MILLE, 1000n), current.maxFeePerGas);
    const tip = max(ceilDiv(previous.maxPriorityFeePerGas * REPLACEMENT_BUMP_PER_MILLE, 1000n), current.maxPriorityFeePerGas);
    return { maxFeePerGas, maxPriorityFeePerGas: tip > maxFeePerGas ? maxFeePerGas : tip };
  }
}

/** Gas headroom: a bare estimate misses storage a later block can touch (Uniswap V2's price accumulators, ~22k gas each). */
export const gasWithHeadroom = (estimate: bigint) => (estimate * 5n) / 4n + 100_000n;
