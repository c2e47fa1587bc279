/** The quote stage: what the routing service proposes for a trade. A proposal is untrusted until checked. */
import type { RoutingClient } from '../service/client.ts';
import type { EarnRoute, SwapRoute } from '../service/schemas.ts';
import type { Trade } from './types.ts';

export type Proposal =
  | { kind: 'swap'; route: SwapRoute }
  | { kind: 'deposit' | 'withdraw'; route: EarnRoute }
  /** A claim needs no quote: the gauge pays what has accrued. */
  | { kind: 'claim' };

export async function quote(routing: RoutingClient, trade: Trade, signal?: AbortSignal): Promise<Proposal> {
  const common = { tokenIn: trade.tokenIn, tokenOut: trade.tokenOut, chainId: trade.chainId, signal };
  switch (trade.kind) {
    case 'swap':
      return { kind: 'swap', route: await routing.getSwapRoute({ ...common, amountIn: trade.amountIn, slippageBps: trade.slippageBps, from: trade.wallet }) };
    case 'deposit':
      return { kind: 'deposit', route: await routing.getDepositRoute({ ...common, inputAmount: trade.amountIn }) };
    case 'withdraw':
      return { kind: 'withdraw', route: await routing.getWithdrawRoute({ ...common, inputAmount: trade.amountIn }) };
    case 'claim':
      return { kind: 'claim' };
  }
}
