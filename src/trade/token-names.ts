/** Symbols and decimals of tokens, for amounts in words ("19.94 CELO"). */
import type { Address } from 'viem';
import { displayNumber } from '../units.ts';
import type { TokenName } from '../ledger/ledger.ts';

/** Symbols and decimals by address: what the ledger or the resolved strategies know. */
export class TokenNames {
  readonly #byAddress = new Map<string, TokenName>();

  constructor(tokens: readonly TokenName[] = []) {
    for (const token of tokens) this.#byAddress.set(token.address.toLowerCase(), token);
  }

  get(address: Address): TokenName | undefined {
    return this.#byAddress.get(address.toLowerCase());
  }

  symbol(address: Address): string {
    return this.get(address)?.symbol ?? `${address.slice(0, 8)}…`;
  }

  /** "19.94 CELO", or "123 raw of 0x1234ab…" for a token whose decimals are not known. */
  amount(raw: bigint, address: Address): string {
    const token = this.get(address);
    return token ? `${displayNumber(raw, token.decimals)} ${token.symbol}` : `${raw} raw of ${address.slice(0, 8)}…`;
  }
}
