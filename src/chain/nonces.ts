/**
 * Nonce allocation for one wallet: gapless, from what this wallet's ledger proves it signed and what the node
 * counts as pending (read in the same batch as everything else before signing, so it costs no round trip).
 */
import type { Address } from 'viem';
import type { TxJournal } from './journal.ts';
import { KeyUsedElsewhereError } from './errors.ts';

/**
 * What the ledger proves the wallet signed (trade/signed-history.ts): the newest nonce of its proven transactions,
 * and the newest one the node took (not `dropped`); undefined: none yet.
 */
export type ProvenNonces = { highestSigned: number | undefined; highestKept: number | undefined };

export class NonceAllocator {
  readonly #journal: TxJournal;
  readonly #wallet: Address;

  constructor(journal: TxJournal, wallet: Address) {
    this.#journal = journal;
    this.#wallet = wallet;
  }

  /**
   * The first of `count` consecutive nonces to sign with, from the chain and the wallet's proven transactions only.
   * The ledger's next nonce wins when the node lags behind it (a node that has not seen our pending transactions), and
   * the node's when a transaction the ledger has as dropped is counted after all. A node counting a transaction above
   * the newest the ledger proves means the key was used elsewhere (or the ledger's newest rows were deleted): recorded
   * on `intentId`, and nothing more is signed (KeyUsedElsewhereError pauses the wallet).
   */
  async next(pendingOnChain: number, intentId: string, proven: ProvenNonces): Promise<number> {
    if (proven.highestSigned === undefined) return pendingOnChain;
    const signed = proven.highestSigned + 1;
    if (pendingOnChain > signed) {
      await this.#journal.noted(intentId, { kind: 'nonce-used-elsewhere', wallet: this.#wallet, expected: signed, onChain: pendingOnChain });
      throw new KeyUsedElsewhereError(
        `the node counts ${pendingOnChain} transactions from ${this.#wallet}, but routekeeper signed ${signed}: the key is used elsewhere, or the ledger's rows of the newest were deleted`,
      );
    }
    const fromLedger = proven.highestKept === undefined ? pendingOnChain : proven.highestKept + 1;
    return fromLedger > pendingOnChain ? fromLedger : pendingOnChain;
  }
}
