/** The quote stage: what the trade's kind proposes (the routing service's answer, or none). A proposal is untrusted until checked. */
import type { Address } from 'viem';
import type { RoutingClient } from '../routing-client/client.ts';
import type { Trade } from '../model/trade.ts';
import { kindOf } from './kinds/registry.ts';
import type { Proposal } from './proposal.ts';

export type { Proposal } from './proposal.ts';

/**
 * Quotes asked identically in one block are asked once: a thousand DCA strategies selling the same amount of the
 * same token in the same block share one answer, each still checked on its own. The block is the node's latest
 * as the client last read it (viem caches it for the client's polling interval). Failures are not shared.
 */
export class SharedQuotes {
  readonly #currentBlock: () => Promise<bigint>;
  #block: bigint | undefined;
  readonly #byRequest = new Map<string, Promise<Proposal>>();

  constructor(currentBlock: () => Promise<bigint>) {
    this.#currentBlock = currentBlock;
  }

  async quote(routing: RoutingClient, trade: Trade, signal?: AbortSignal, avoid: readonly Address[] = []): Promise<Proposal> {
    const block = await this.#currentBlock();
    if (block !== this.#block) {
      this.#block = block;
      this.#byRequest.clear();
    }
    const request = [trade.kind, trade.chainId, trade.tokenIn, trade.tokenOut, trade.amountIn, trade.slippageBps, trade.wallet, ...avoid]
      .join('|')
      .toLowerCase();
    let shared = this.#byRequest.get(request);
    if (!shared) {
      shared = quote(routing, trade, signal, avoid);
      this.#byRequest.set(request, shared);
      shared.catch(() => this.#byRequest.get(request) === shared && this.#byRequest.delete(request));
    }
    return shared;
  }
}

/** `avoid`: pools the route must not use (those this trade's checks refused a route for). */
export const quote = (routing: RoutingClient, trade: Trade, signal?: AbortSignal, avoid: readonly Address[] = []): Promise<Proposal> =>
  kindOf(trade).quote(trade, { routing, signal, avoid });
