/** The tokens a trade's call can move, and what a balance check concludes about them. */
import { type Address, type Hex, decodeFunctionData, isAddressEqual } from 'viem';
import { oneClickFarmAbi, oneClickWithdrawAbi, routerAbi } from '../contracts/abi.ts';
import type { TradeRecord, WalletBalances } from './types.ts';

export type BalanceCheck = ({ ok: true } | { ok: false; anomaly: string } | { ok: 'skipped'; why: string }) & { after?: WalletBalances };

/** The tokens a call can move: the trade's own, and every token on its routes. */
export function tokensOf(record: Pick<TradeRecord, 'kind' | 'tokenIn' | 'tokenOut'>, data: Hex | undefined): Address[] {
  const tokens: Address[] = [record.tokenIn, record.tokenOut];
  const add = (token: Address) => {
    if (!tokens.some((known) => isAddressEqual(known, token))) tokens.push(token);
  };
  if (data) {
    try {
      if (record.kind === 'swap') {
        const decoded = decodeFunctionData({ abi: routerAbi, data });
        if (decoded.functionName === 'swapExactInputForOutput') for (const token of decoded.args[0].path) add(token);
      } else if (record.kind === 'deposit') {
        const { args } = decodeFunctionData({ abi: oneClickFarmAbi, data });
        for (const leg of args[0]) for (const token of leg.path) add(token);
      } else if (record.kind === 'withdraw') {
        const { args } = decodeFunctionData({ abi: oneClickWithdrawAbi, data });
        for (const leg of args[4]) for (const token of leg.path) add(token);
      }
    } catch {
      // A call we cannot decode is our own encoding gone wrong; the trade's own tokens are still checked.
    }
  }
  return tokens;
}

