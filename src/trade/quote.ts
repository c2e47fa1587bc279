/** The quote stage: what the routing service proposes for a trade. A proposal is untrusted until checked. */
import type { Address } from 'viem';
import type { RoutingClient } from '../routing-client/client.ts';
import type { EarnRoute, SwapRoute } from '../routing-api/schemas.ts';
import type { Trade } from '../model/trade.ts';

export type Proposal =
  | { kind: 'swap'; route: SwapRoute }
  | { kind: 'deposit' | 'withdraw'; route: EarnRoute }
  /** A claim needs no quote: the gauge pays what has accrued. */
  | { kind: 'claim' }
  /** Nor does a trade on a V3 position: the position manager and the pool are read from the chain, never asked. */
  | { kind: 'position' };

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
export async function quote(routing: RoutingClient, trade: Trade, signal?: AbortSignal, avoid: readonly Address[] = []): Promise<Proposal> {
  const common = { tokenIn: trade.tokenIn, tokenOut: trade.tokenOut, chainId: trade.chainId, excludePools: avoid, signal };
  switch (trade.kind) {
    case 'swap':
      return { kind: 'swap', route: await routing.getSwapRoute({ ...common, amountIn: trade.amountIn, slippageBps: trade.slippageBps, from: trade.wallet }) };
    case 'deposit':
      return { kind: 'deposit', route: await routing.getDepositRoute({ ...common, inputAmount: trade.amountIn }) };
    case 'withdraw':
      return { kind: 'withdraw', route: await routing.getWithdrawRoute({ ...common, inputAmount: trade.amountIn }) };
    case 'claim':
      return { kind: 'claim' };
    case 'collect':
    case 'add-liquidity':
    case 'remove-liquidity':
    case 'mint':
      return { kind: 'position' };
  }
}
