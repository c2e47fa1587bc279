/**
 * API keys: each names a partner id. A quote made with a key carries that id and the service signer's
 * signature, so the router pays the partner its fee. Quotes and input volume are counted per key.
 * Keys are compared, never logged.
 */
import { type Address, type Hex, isAddressEqual } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { RoutingRequestError } from './errors.ts';
import type { Partner } from './quotes.ts';

export type ApiKeyConfig = { key: string; partner: number };

type Usage = { quotes: number; volume: Map<Address, bigint> };

export class PartnerRegistry {
  readonly #partners = new Map<string, Partner>();
  readonly #usage = new Map<string, Usage>();

  constructor(keys: readonly ApiKeyConfig[], signer: LocalAccount | undefined) {
    if (keys.length > 0 && !signer) throw new Error('API keys need a service signer to sign partner ids');
    for (const { key, partner } of keys) {
      if (!signer) continue;
      this.#partners.set(key, { id: partner, sign: (digest: Hex) => signer.signMessage({ message: { raw: digest } }) });
    }
  }

  get partnerIds(): number[] {
    return [...new Set([...this.#partners.values()].map((partner) => partner.id))];
  }

  /** The partner behind a request's X-API-KEY; no key is partner 0 (undefined), an unknown key is a 401. */
  resolve(apiKey: string | undefined): Partner | undefined {
    if (apiKey === undefined) return undefined;
    const partner = this.#partners.get(apiKey);
    if (!partner) throw new RoutingRequestError(401, { error: 'Unknown API key (X-API-KEY): quote without a key, or use a key issued by this service' });
    return partner;
  }

  /** Counts one answered quote of `amount` of `token` against the key. */
  record(apiKey: string, token: Address, amount: bigint): void {
    const usage = this.#usage.get(apiKey) ?? { quotes: 0, volume: new Map() };
    usage.quotes += 1;
    const known = [...usage.volume.keys()].find((existing) => isAddressEqual(existing, token)) ?? token;
    usage.volume.set(known, (usage.volume.get(known) ?? 0n) + amount);
    this.#usage.set(apiKey, usage);
  }

  /** The usage of one key: quotes answered and the raw input amount quoted per token. */
  usage(apiKey: string) {
    const partner = this.resolve(apiKey);
    const usage = this.#usage.get(apiKey) ?? { quotes: 0, volume: new Map() };
    return {
      partner: partner?.id ?? 0,
      quotes: usage.quotes,
      volume: Object.fromEntries([...usage.volume].map(([token, amount]) => [token, amount.toString()])),
    };
  }
}
