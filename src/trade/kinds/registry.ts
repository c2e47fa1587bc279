/** Every kind of trade (kind.ts), by name: a new kind is a module of its own, a line here, its terms and a migration. */
import type { Trade, TradeKind } from '../../model/trade.ts';
import { addLiquidity } from './add-liquidity.ts';
import { claim } from './claim.ts';
import { collect } from './collect.ts';
import { deposit } from './deposit.ts';
import type { TradeKindModule } from './kind.ts';
import { mint } from './mint.ts';
import { movePosition } from './move-position.ts';
import { removeLiquidity } from './remove-liquidity.ts';
import { swap } from './swap.ts';
import { withdraw } from './withdraw.ts';

export const tradeKinds: { readonly [K in TradeKind]: TradeKindModule<Extract<Trade, { kind: K }>> } = {
  swap,
  deposit,
  withdraw,
  claim,
  collect,
  'add-liquidity': addLiquidity,
  'remove-liquidity': removeLiquidity,
  mint,
  'move-position': movePosition,
};

/** The module of a trade's kind. */
export const kindOf = <T extends Pick<Trade, 'kind'>>(trade: T): TradeKindModule => tradeKinds[trade.kind] as TradeKindModule;
