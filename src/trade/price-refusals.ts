import { ManipulatedPoolError, NoPriceError, SequencerDownError } from '../price/reference.ts';
import { NoAverageError } from '../price/pool-average.ts';
import { GuardRefusal } from '../guard/refusal.ts';

/** Price failures as the refusals they are: no price, a pool moved within the window, the sequencer down. */
export async function withPriceRefusals<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SequencerDownError) throw new GuardRefusal('sequencer', error.shortMessage);
    if (error instanceof NoPriceError || error instanceof NoAverageError) throw new GuardRefusal('no-price', error.shortMessage);
    if (error instanceof ManipulatedPoolError) throw new GuardRefusal('manipulated', error.shortMessage);
    throw error;
  }
}
