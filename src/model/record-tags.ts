/**
 * Authentication tags on what authorizes a signature: a trade's request (what was asked, for which strategy and
 * slot) and its checked call (the exact call that passed the checks). The database holds them beside the rows but
 * never the key: it is derived from the wallet's own key (an HMAC key from a signature over a fixed text, which no
 * chain accepts as a transaction), so whoever can write the database can delete or stop a trade, but cannot make
 * one, edit one, or move a tag from one trade to another (each tag covers its trade's id).
 *
 * Every tag also covers its scope: the ledger's own id and whether it is a paper-trading one. The devnet, every
 * fork and Celo share chain id 42220 and a key may trade on all of them: a row copied from one ledger into another
 * (another database, another schema) is no row of the ledger it lands in. A request's tag covers the time it was
 * claimed too, which decides whether it may still be resumed: a writer cannot make an old request look fresh.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { NewAttempt } from './attempt.ts';
import type { CheckedCall, Trade } from './trade.ts';
import { termsOf } from './kinds/registry.ts';

/** The text whose signature the tag key is derived from: plain words, so no wallet could mistake it for a transaction. */
export const tagKeyMessage = 'routekeeper: the key of the ledger authentication tags of this wallet (v1). Not a transaction, not a login.';

/** Which ledger a tag is valid in. */
export type TagScope = { ledgerId: string; paper: boolean };

const lower = (value: string | undefined) => value?.toLowerCase() ?? null;
const decimal = (value: bigint | undefined) => value?.toString() ?? null;

/** The fields of a trade's request, in a fixed order: what the tag covers. */
function requestFields(scope: TagScope, trade: Trade, claimedAt: number): unknown[] {
  return [
    'routekeeper trade request v2',
    scope.ledgerId,
    scope.paper,
    trade.id,
    claimedAt,
    trade.strategyId,
    trade.slot,
    lower(trade.wallet),
    trade.chainId,
    trade.kind,
    lower(trade.tokenIn),
    lower(trade.tokenOut),
    decimal(trade.amountIn),
    trade.slippageBps,
    // The kind's own terms (model/kinds/): a swap's floor's place first, then a position step's position and amounts.
    ...termsOf(trade.kind).tagged(trade),
  ];
}

/** A request's fields as tags before version 2 covered the ledger and the claim time: only ever read back. */
function requestFieldsV1(trade: Trade): unknown[] {
  return ['routekeeper trade request v1', trade.id, ...requestFields({ ledgerId: '', paper: false }, trade, 0).slice(5)];
}

/** The fields of a checked call, and the trade it belongs to, in a fixed order. */
function callFields(scope: TagScope, tradeId: string, call: CheckedCall): unknown[] {
  return [
    'routekeeper checked call v2',
    scope.ledgerId,
    scope.paper,
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
    // An add's least token1; a call without one ends above, as tags were always made.
    ...(call.minOut1 === undefined ? [] : [decimal(call.minOut1)]),
  ];
}

/** Where a ledger's record of a wallet's signatures starts (trade/signed-history.ts). */
function signedFromFields(scope: TagScope, wallet: string, chainId: number, nonce: number): unknown[] {
  return ['routekeeper signed from v1', scope.ledgerId, scope.paper, wallet.toLowerCase(), chainId, nonce];
}

/** One signed transaction of a trade, made as it is signed: which trade, and which of its transactions (trade/signed-history.ts). */
function attemptFields(scope: TagScope, attempt: AttemptIdentity): unknown[] {
  return [
    'routekeeper attempt v1',
    scope.ledgerId,
    scope.paper,
    attempt.intentId,
    attempt.wallet.toLowerCase(),
    attempt.chainId,
    attempt.nonce,
    attempt.hash.toLowerCase(),
    attempt.purpose,
  ];
}

/** What an attempt's tag covers. */
export type AttemptIdentity = Pick<NewAttempt, 'intentId' | 'wallet' | 'chainId' | 'nonce' | 'hash' | 'purpose'>;

/** A wallet's rows proven through an attempt id, by their digest (trade/signed-history.ts). */
function provenThroughFields(scope: TagScope, wallet: string, chainId: number, throughId: number, digest: string): unknown[] {
  return ['routekeeper proven through v1', scope.ledgerId, scope.paper, wallet.toLowerCase(), chainId, throughId, digest];
}

export class RecordTags {
  readonly #key: Promise<Buffer>;
  readonly #scope: Promise<TagScope>;

  /**
   * The tags of `account`'s trades in the ledger `scope` names; the key is derived on first use (one signature of
   * `tagKeyMessage`, kept in memory).
   */
  constructor(account: Pick<LocalAccount, 'signMessage'>, scope: Promise<TagScope>) {
    this.#key = account.signMessage({ message: tagKeyMessage }).then((signature) =>
      createHash('sha256')
        .update(Buffer.from(signature.slice(2), 'hex'))
        .digest(),
    );
    this.#scope = scope;
    this.#key.catch(() => {});
    this.#scope.catch(() => {});
  }

  async #tag(fields: (scope: TagScope) => unknown[]): Promise<Hex> {
    return this.#hmac(fields(await this.#scope));
  }

  async #hmac(fields: unknown[]): Promise<Hex> {
    return `0x${createHmac('sha256', await this.#key)
      .update(JSON.stringify(fields))
      .digest('hex')}`;
  }

  /** The tag of a trade's request, claimed at `claimedAt` (ms). */
  request(trade: Trade, claimedAt: number): Promise<Hex> {
    return this.#tag((scope) => requestFields(scope, trade, claimedAt));
  }

  /** The tag of a trade's checked call. */
  call(tradeId: string, call: CheckedCall): Promise<Hex> {
    return this.#tag((scope) => callFields(scope, tradeId, call));
  }

  /** The tag of the nonce from which this ledger holds every transaction the wallet signed on the chain. */
  signedFrom(wallet: string, chainId: number, nonce: number): Promise<Hex> {
    return this.#tag((scope) => signedFromFields(scope, wallet, chainId, nonce));
  }

  /** The tag of the wallet's rows proven through an attempt id, with their digest. */
  provenThrough(wallet: string, chainId: number, throughId: number, digest: Hex): Promise<Hex> {
    return this.#tag((scope) => provenThroughFields(scope, wallet, chainId, throughId, digest));
  }

  /** The tag of one signed transaction of a trade. */
  attempt(attempt: AttemptIdentity): Promise<Hex> {
    return this.#tag((scope) => attemptFields(scope, attempt));
  }

  /** Whether the attempt carries this wallet's tag of it. */
  async attemptIsTagged(attempt: AttemptIdentity & { tag?: Hex }): Promise<boolean> {
    return attempt.tag !== undefined && same(await this.attempt(attempt), attempt.tag);
  }

  /** Whether `tag` is this wallet's tag of those proven rows. */
  async provenThroughIsTagged(wallet: string, chainId: number, throughId: number, digest: Hex, tag: Hex): Promise<boolean> {
    return same(await this.provenThrough(wallet, chainId, throughId, digest), tag);
  }

  /** Whether `tag` is this wallet's tag of that nonce. */
  async signedFromIsTagged(wallet: string, chainId: number, nonce: number, tag: Hex): Promise<boolean> {
    return same(await this.signedFrom(wallet, chainId, nonce), tag);
  }

  /** Whether `tag` is this wallet's tag of the trade's request, claimed when its record says (compared in constant time). */
  async requestIsTagged(record: Trade & { createdAt: number }, tag: Hex | undefined): Promise<boolean> {
    return tag !== undefined && same(await this.request(record, record.createdAt), tag);
  }

  /**
   * Whether the request was tagged by the wallet, now or by a version before tags covered the ledger and the claim time:
   * what was traded is then the wallet's word (amounts counted against budgets), though not necessarily when.
   */
  async requestWasTagged(record: Trade & { createdAt: number; tags?: { request?: Hex } }): Promise<boolean> {
    const tag = record.tags?.request;
    if (tag === undefined) return false;
    if (await this.requestIsTagged(record, tag)) return true;
    return same(await this.#hmac(requestFieldsV1(record)), tag);
  }

  /** Whether the trade's record holds a checked call and the wallet's tag of it (compared in constant time). */
  async hasTaggedCall(record: { id: string; call?: CheckedCall; tags?: { call?: Hex } }): Promise<boolean> {
    const tag = record.tags?.call;
    return record.call !== undefined && tag !== undefined && same(await this.call(record.id, record.call), tag);
  }
}

function same(expected: Hex, given: Hex): boolean {
  const a = Buffer.from(expected.slice(2), 'hex');
  const b = Buffer.from(given.slice(2), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
