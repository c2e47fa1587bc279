/** The check stage: the trade's kind runs its declared list of checks (src/trade/kinds/, check-runner.ts). */
import type { Trade } from '../model/trade.ts';
import type { CheckContext, Checked } from './check-types.ts';
import { kindOf } from './kinds/registry.ts';
import type { Proposal } from './proposal.ts';

export const checkTrade = (ctx: CheckContext, trade: Trade, proposal: Proposal): Promise<Checked> => kindOf(trade).check(ctx, trade, proposal);
