/** Tokens by symbol or address, with what the chain says about them, and amounts between human and raw units. */
import { type Address, BaseError, HttpRequestError, type PublicClient, TimeoutError, erc20Abi, getAddress, isAddress } from 'viem';
import type { AddressBook } from '../config/address-book.ts';
import { ConfigError } from '../errors.ts';
import type { TokenInfo } from '../units.ts';

/** A token given as an address, or as a symbol of the address book (exact case first, then any case). */
export function resolveTokenAddress(value: string, book: Pick<AddressBook, 'tokens'> | undefined, what: string): Address {
  if (isAddress(value, { strict: false })) return getAddress(value);
  const tokens = book?.tokens ?? {};
  const symbol = tokens[value] ? value : Object.keys(tokens).find((known) => known.toLowerCase() === value.toLowerCase());
  const token = symbol ? tokens[symbol] : undefined;
  if (!token) {
    const known = Object.keys(tokens);
    throw new ConfigError(
      `${what}: unknown token '${value}'; give an address${known.length ? ` or one of ${known.join(', ')}` : ', or an address book (--address-book) that names it'}`,
    );
  }
  return token.address;
}

/** Symbol and decimals as the token contract reports them. */
export async function readTokenInfo(client: PublicClient, address: Address): Promise<TokenInfo> {
  const [symbol, decimals] = await Promise.all([
    client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
    client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
  ]);
  return { address, symbol, decimals };
}

/**
 * A token the user named: the chain must answer for it as an ERC20 token, else a ConfigError names `what`.
 * A node that cannot be reached is not the user's mistake: that error goes on as it is.
 */
export async function readNamedToken(client: PublicClient, address: Address, what: string, chainId: number): Promise<TokenInfo> {
  try {
    return await readTokenInfo(client, address);
  } catch (error) {
    const unreachable = error instanceof BaseError && error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null;
    if (unreachable) throw error;
    throw new ConfigError(`${what}: ${address} does not answer as an ERC20 token on chain ${chainId}`);
  }
}

/**
 * "12.5" in a token's units to raw: digits with at most `decimals` after the point, and more than zero.
 * viem's parseUnits rounds extra digits away; a trading amount must never be silently rounded.
 */
export function parseTokenAmount(value: string, token: TokenInfo, what: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new ConfigError(`${what}: '${value}' is not an amount (use digits and an optional decimal point, e.g. 12.5)`);
  const fraction = match[2] ?? '';
  if (fraction.length > token.decimals) {
    throw new ConfigError(`${what}: '${value}' has ${fraction.length} decimals but ${token.symbol} has only ${token.decimals}`);
  }
  const raw = BigInt(match[1] + fraction.padEnd(token.decimals, '0'));
  if (raw === 0n) throw new ConfigError(`${what}: the amount must be more than zero`);
  return raw;
}
