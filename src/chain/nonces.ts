/**
 * Nonce allocation for one wallet: gapless, from what this wallet's ledger has signed and what the node
 * counts as pending (read in the same batch as everything else before signing, so it costs no round trip).
 */
import type { Address } from 'viem';
import type { TxJournal } from './journal.ts';
import { KeyUsedElsewhereError } from './errors.ts';

export class NonceAllocator {
  readonly #journal: TxJournal;
  readonly #wallet: Address;
  readonly #chainId: number;

  constructor(journal: TxJournal, wallet: Address, chainId: number) {
    this.#journal = journal;
    this.#wallet = wallet;
    this.#chainId = chainId;
  }

  /**
   * The first of `count` consecutive nonces to sign with. The ledger's next nonce wins when the node lags
   * behind it (a node that has not seen our pending transactions); a node ahead of it means the key was used
   * elsewhere: recorded on `intentId`, and nothing more is signed (KeyUsedElsewhereError pauses the wallet).
   */
  async next(pendingOnChain: number, intentId: string): Promise<number> {
    const highest = await this.#journal.highestNonce(this.#wallet, this.#chainId);
    if (highest === undefined) return pendingOnChain;
    const fromLedger = highest + 1;
    if (pendingOnChain > fromLedger) {
      await this.#journal.noted(intentId, { kind: 'nonce-used-elsewhere', wallet: this.#wallet, expected: fromLedger, onChain: pendingOnChain });
      throw new KeyUsedElsewhereError(
        `the node counts ${pendingOnChain} transactions from ${this.#wallet}, but routekeeper signed ${fromLedger}: the key is used elsewhere`,
      );
    }
    return fromLedger;
  }
}
