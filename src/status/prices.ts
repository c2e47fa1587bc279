/**
 * The reference prices the daemon recorded (ledger `prices`), looked up by time: what a token was worth when a
 * trade was made, and what it is worth by the newest mark. Values are converted between tokens exactly as the
 * price reference does (through USD, rounded down).
 */
import type { PriceMark } from '../ledger/ledger.ts';
import type { TokenInfo } from '../units.ts';

export class PriceBook {
  readonly #byToken = new Map<string, PriceMark[]>();

  constructor(marks: readonly PriceMark[] = []) {
    this.add(marks);
  }

  /** Marks recorded since the book was made (a status kept up to date adds what is new). */
  add(marks: readonly PriceMark[]): void {
    const touched = new Set<PriceMark[]>();
    for (const mark of marks) {
      const key = mark.token.toLowerCase();
      const list = this.#byToken.get(key) ?? [];
      if (list.length > 0 && (list.at(-1) as PriceMark).at > mark.at) touched.add(list);
      list.push(mark);
      this.#byToken.set(key, list);
    }
    for (const list of touched) list.sort((a, b) => a.at - b.at);
  }

  /**
   * Forgets marks older than `before`, but the last one before it of each token (still in force then): a book kept
   * up to date values new trades at recent marks, and reads older ones from the ledger when a chart needs them.
   */
  forget(before: number): void {
    for (const [token, list] of this.#byToken) {
      const firstKept = list.findIndex((mark) => mark.at >= before);
      const from = firstKept === -1 ? list.length - 1 : Math.max(0, firstKept - 1);
      if (from > 0) this.#byToken.set(token, list.slice(from));
    }
  }

  /** The mark in force at `time`: the newest at or before it, else (a trade before the first mark) the first after. */
  at(token: string, time: number): PriceMark | undefined {
    const list = this.#byToken.get(token.toLowerCase());
    if (!list || list.length === 0) return undefined;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((list[middle] as PriceMark).at <= time) low = middle + 1;
      else high = middle;
    }
    return list[low === 0 ? 0 : low - 1];
  }

  latest(token: string): PriceMark | undefined {
    return this.#byToken.get(token.toLowerCase())?.at(-1);
  }

  /** The times at which any of these tokens' prices were marked, ascending. */
  times(tokens: readonly string[]): number[] {
    const times = new Set<number>();
    for (const token of tokens) for (const mark of this.#byToken.get(token.toLowerCase()) ?? []) times.add(mark.at);
    return [...times].sort((a, b) => a - b);
  }

  /** `amount` of `from` in `to` at the marks in force at `time` ('latest': the newest marks); undefined without both prices. */
  convert(
    amount: bigint,
    from: TokenInfo | { address: string; decimals: number },
    to: TokenInfo | { address: string; decimals: number },
    time: number | 'latest',
  ): bigint | undefined {
    if (from.address.toLowerCase() === to.address.toLowerCase()) return amount;
    const read = (token: string) => (time === 'latest' ? this.latest(token) : this.at(token, time));
    const [priceFrom, priceTo] = [read(from.address), read(to.address)];
    if (!priceFrom || !priceTo || priceTo.usdE18 === 0n) return undefined;
    return (amount * priceFrom.usdE18 * 10n ** BigInt(to.decimals)) / (priceTo.usdE18 * 10n ** BigInt(from.decimals));
  }

  /** `amount` of a token in USD with 18 decimals at the newest mark. */
  usd(amount: bigint, token: { address: string; decimals: number }): bigint | undefined {
    const price = this.latest(token.address);
    return price && (amount * price.usdE18) / 10n ** BigInt(token.decimals);
  }
}
