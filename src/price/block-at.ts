/**
 * The last block at or before an instant (whose state held then), found in a few round trips: each round asks the
 * times of several blocks at once (one batch), and keeps the closest one too old and the closest one too new.
 * The first round probes around a guess from the chain's usual block time (on a chain that keeps its pace, the
 * answer is among them); while no probe is old enough the next round looks back in growing steps; once the
 * instant is bracketed, each round splits what is left into `probes + 1` parts.
 */

/** A block's number and time. */
export type BlockTime = { number: bigint; timestamp: bigint };

/** The times of the given blocks, asked together (one round trip). */
export type ReadBlockTimes = (numbers: readonly bigint[]) => Promise<readonly bigint[]>;

export type BlockAtOptions = {
  /** The chain's usual block time, for the first guess. */
  blockTimeSeconds: number;
  /** Blocks asked per round. */
  probes?: number;
  /** Rounds before giving up. */
  maxRounds?: number;
};

/** No block at or before the instant: the chain is younger. */
export class ChainTooYoungError extends Error {
  override name = 'ChainTooYoungError';
}

/** The number of the last block at or before `time`, `head` being the latest block (newer than `time`). */
export async function blockAt(readTimes: ReadBlockTimes, time: bigint, head: BlockTime, options: BlockAtOptions): Promise<bigint> {
  const probes = BigInt(options.probes ?? 8);
  const maxRounds = options.maxRounds ?? 12;
  if (head.timestamp <= time) return head.number;
  let newer: BlockTime = head;
  let older: BlockTime | undefined;
  const guess = head.number - BigInt(Math.ceil(Number(head.timestamp - time) / options.blockTimeSeconds));
  let candidates = around(guess, probes);
  for (let round = 0; round < maxRounds; round++) {
    const numbers = [...new Set(candidates.map((n) => (n < 0n ? 0n : n)).filter((n) => n < newer.number && (older === undefined || n > older.number)))].sort(
      (a, b) => (a < b ? -1 : 1),
    );
    if (numbers.length > 0) {
      const times = await readTimes(numbers);
      numbers.forEach((number, i) => {
        const timestamp = times[i] as bigint;
        if (timestamp > time) {
          if (number < newer.number) newer = { number, timestamp };
        } else if (!older || number > older.number) {
          older = { number, timestamp };
        }
      });
    }
    if (older && newer.number - older.number <= 1n) return older.number;
    if (!older) {
      if (newer.number === 0n || numbers.includes(0n)) throw new ChainTooYoungError(`no block is as old as ${time}`);
      // Nothing old enough yet: look back in growing steps from the oldest block seen too new.
      const span = head.number - newer.number + 1n;
      candidates = Array.from({ length: Number(probes) }, (_, i) => newer.number - span * 2n ** BigInt(i + 1));
      continue;
    }
    // Bracketed: split what is left evenly.
    const gap = newer.number - older.number;
    const low = older.number;
    candidates = Array.from({ length: Number(probes) }, (_, i) => low + (gap * BigInt(i + 1)) / (probes + 1n));
  }
  throw new ChainTooYoungError(`no block of ${time} was found in ${maxRounds} rounds`);
}

/** Blocks around a guess, closest first: the guess, its neighbours, then further out. */
function around(guess: bigint, probes: bigint): bigint[] {
  const offsets = [0n, -1n, 1n, -2n, 2n, -4n, 4n, -8n, 8n, -16n, 16n, -32n, 32n];
  return offsets.slice(0, Number(probes)).map((offset) => guess + offset);
}
