import type { Address } from 'viem';
import { ManipulatedPoolError, NoPriceError, SequencerDownError } from '../price/reference.ts';
import { NoAverageError } from '../price/pool-average.ts';
import { GuardRefusal } from '../model/guard-refusal.ts';

/**
 * Price failures as the refusals they are: no price, a pool moved within the window, the sequencer down. `hop`: the
 * route's field and pool they are about, when they are about one pool.
 */
export async function withPriceRefusals<T>(work: () => Promise<T>, hop?: { field?: string; venue: Address }): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SequencerDownError) throw new GuardRefusal('sequencer', error.shortMessage);
    if (error instanceof NoPriceError || error instanceof NoAverageError)
      throw new GuardRefusal('no-price', error.shortMessage, undefined, hop?.field, hop?.venue);
    if (error instanceof ManipulatedPoolError) throw new GuardRefusal('manipulated', error.shortMessage, undefined, hop?.field, hop?.venue);
    throw error;
  }
}
