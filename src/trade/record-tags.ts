/**
 * Authentication tags on what authorizes a signature: a trade's request (what was asked, for which strategy and
 * slot) and its checked call (the exact call that passed the checks). The database holds them beside the rows but
 * never the key: it is derived from the wallet's own key (an HMAC key from a signature over a fixed text, which no
 * chain accepts as a transaction), so whoever can write the database can delete or stop a trade, but cannot make
 * one, edit one, or move a tag from one trade to another (each tag covers its trade's id).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { CheckedCall, Trade } from './types.ts';

/** The text whose signature the tag key is derived from: plain words, so no wallet could mistake it for a transaction. */
export const tagKeyMessage = 'routekeeper: the key of the ledger authentication tags of this wallet (v1). Not a transaction, not a login.';

const lower = (value: string | undefined) => value?.toLowerCase() ?? null;
const decimal = (value: bigint | undefined) => value?.toString() ?? null;

/** The fields of a trade's request, in a fixed order: what the tag covers. */
function requestFields(trade: Trade): unknown[] {
  return [
    'routekeeper trade request v1',
    trade.id,
    trade.strategyId,
    trade.slot,
    lower(trade.wallet),
    trade.chainId,
    trade.kind,
    lower(trade.tokenIn),
    lower(trade.tokenOut),
    decimal(trade.amountIn),
    trade.slippageBps,
    decimal(trade.kind === 'swap' ? trade.minAmountOut : undefined),
  ];
}

/** The fields of a checked call, and the trade it belongs to, in a fixed order. */
function callFields(tradeId: string, call: CheckedCall): unknown[] {
  return [
    'routekeeper checked call v1',
    tradeId,
    lower(call.target),
    lower(call.spender),
    lower(call.data),
    decimal(call.expectedOut),
    decimal(call.minOut),
    decimal(call.referenceOut),
    decimal(call.deadline),
    lower(call.router),
    lower(call.farm),
  ];
}

export class RecordTags {
  readonly #key: Promise<Buffer>;

  /** The tags of `account`'s trades; its key is derived on first use (one signature of `tagKeyMessage`, kept in memory). */
  constructor(account: Pick<LocalAccount, 'signMessage'>) {
    this.#key = account.signMessage({ message: tagKeyMessage }).then((signature) => createHash('sha256').update(Buffer.from(signature.slice(2), 'hex')).digest());
    this.#key.catch(() => {});
  }

  async #tag(fields: unknown[]): Promise<Hex> {
    return `0x${createHmac('sha256', await this.#key).update(JSON.stringify(fields)).digest('hex')}`;
  }

  /** The tag of a trade's request. */
  request(trade: Trade): Promise<Hex> {
    return this.#tag(requestFields(trade));
  }

  /** The tag of a trade's checked call. */
  call(tradeId: string, call: CheckedCall): Promise<Hex> {
    return this.#tag(callFields(tradeId, call));
  }

  /** Whether `tag` is this wallet's tag of the trade's request (compared in constant time). */
  async requestIsTagged(trade: Trade, tag: Hex | undefined): Promise<boolean> {
    return tag !== undefined && same(await this.request(trade), tag);
  }

  /** Whether `tag` is this wallet's tag of the trade's checked call. */
  async callIsTagged(tradeId: string, call: CheckedCall, tag: Hex | undefined): Promise<boolean> {
    return tag !== undefined && same(await this.call(tradeId, call), tag);
  }
}

function same(expected: Hex, given: Hex): boolean {
  const a = Buffer.from(expected.slice(2), 'hex');
  const b = Buffer.from(given.slice(2), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
