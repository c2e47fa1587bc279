/**
 * API keys: each names a partner id. A quote made with a key carries that id and the service signer's signature,
 * so the router pays the partner its fee. Keys are compared by their SHA-256 (the store keeps nothing else),
 * never logged; what each partner's keys quoted, and what the router executed for it, is kept in the store.
 */
import type { Address, Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { RoutingRequestError } from './errors.ts';
import type { KeyRecord, PartnerStore } from './partner-store.ts';
import type { Partner } from './quotes.ts';

export type ApiKeyConfig = { key: string; partner: number; feeRecipient?: Address; label?: string };

export class PartnerRegistry {
  readonly #store: PartnerStore;
  readonly #signer: LocalAccount | undefined;

  constructor(store: PartnerStore, signer: LocalAccount | undefined) {
    this.#store = store;
    this.#signer = signer;
  }

  get partnerIds(): number[] {
    return this.#store.partners();
  }

  /** The partner behind a request's X-API-KEY; no key is partner 0 (undefined), an unknown key is a 401. */
  resolve(apiKey: string | undefined): Partner | undefined {
    if (apiKey === undefined) return undefined;
    const known = this.#issued(apiKey);
    const signer = this.#signer;
    // Keys kept from an earlier run, and no signer given this time: no partner quote, rather than one unsigned.
    if (!signer)
      throw new RoutingRequestError('no-signer', { error: 'Partner quotes unavailable: this service was started without a signer (ROUTING_SIGNER_KEY)' });
    return { id: known.partner, sign: (digest: Hex) => signer.signMessage({ message: { raw: digest } }) };
  }

  /** Records one answered quote of `amount` of `token` against the key's partner. */
  record(apiKey: string, token: Address, amount: bigint): void {
    const known = this.#store.keyOf(apiKey);
    if (known) this.#store.recordQuote(apiKey, known.partner, token, amount);
  }

  /**
   * The key's partner: its fee (over 1e10, as `feeOf` gives the router's reading), fee recipient, quotes and
   * executed swaps. An unknown key is a 401, as for a quote.
   */
  usage(apiKey: string, feeOf: (partner: number) => bigint | undefined) {
    const known = this.#issued(apiKey);
    const feeNumerator = feeOf(known.partner);
    return {
      partner: known.partner,
      ...(feeNumerator === undefined ? {} : { feeNumerator: feeNumerator.toString() }),
      ...(known.feeRecipient ? { feeRecipient: known.feeRecipient } : {}),
      ...this.#store.totals(known.partner),
    };
  }

  /** The stored record of a key this service issued; any other key is a 401. */
  #issued(apiKey: string): KeyRecord {
    const known = this.#store.keyOf(apiKey);
    if (!known)
      throw new RoutingRequestError('unknown-api-key', { error: 'Unknown API key (X-API-KEY): quote without a key, or use a key issued by this service' });
    return known;
  }
}
