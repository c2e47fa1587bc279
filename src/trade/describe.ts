/**
 * Trades in words, for people: amounts in human units with symbols ("sold 10 cUSD for 19.94 CELO"). Logs,
 * `once` and `history` use these; the raw amounts stay in the structured fields and the JSON forms.
 */
import type { Address } from 'viem';
import { displayNumber } from '../units.ts';
import type { TokenName } from '../ledger/ledger.ts';
import type { Trade, TradeState } from '../model/trade.ts';

/** Shown digits after the point; a smaller amount shows its first significant digits instead. */
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

type Described = {
  trade: Pick<Trade, 'kind' | 'tokenIn' | 'tokenOut' | 'amountIn'>;
  status: TradeState | 'skipped';
  reason?: string;
  expectedOut?: bigint;
  minOut?: bigint;
  amountOut?: bigint;
};

/** What was asked, as a verb phrase: "sell 10 cUSD for CELO". */
function asked({ trade }: Described, names: TokenNames): string {
  const amountIn = names.amount(trade.amountIn, trade.tokenIn);
  const out = names.symbol(trade.tokenOut);
  switch (trade.kind) {
    case 'swap':
      return `sell ${amountIn} for ${out}`;
    case 'deposit':
      return `deposit ${amountIn} into ${out}`;
    case 'withdraw':
      return `withdraw ${amountIn} for ${out}`;
    case 'claim':
      return `claim ${out} rewards`;
    case 'collect':
      return `collect a position's ${names.symbol(trade.tokenIn)} and ${out}`;
    case 'add-liquidity':
      return `add ${amountIn} and ${out} to a position`;
    case 'remove-liquidity':
      return `remove a position's ${names.symbol(trade.tokenIn)} and ${out}`;
    case 'mint':
      return `open a position with ${amountIn} and ${out}`;
  }
}

/** What was done, in the past tense, with what it paid. */
function done({ trade, amountOut }: Described, names: TokenNames): string {
  const amountIn = names.amount(trade.amountIn, trade.tokenIn);
  const out = amountOut === undefined ? names.symbol(trade.tokenOut) : names.amount(amountOut, trade.tokenOut);
  switch (trade.kind) {
    case 'swap':
      return `sold ${amountIn} for ${out}`;
    case 'deposit':
      return `deposited ${amountIn} for ${out}`;
    case 'withdraw':
      return `withdrew ${amountIn} for ${out}`;
    case 'claim':
      return `claimed ${out}`;
    case 'collect':
      return `collected ${names.symbol(trade.tokenIn)} and ${out} from a position`;
    case 'add-liquidity':
      return `added ${amountIn} and ${names.symbol(trade.tokenOut)} to a position`;
    case 'remove-liquidity':
      return `removed ${names.symbol(trade.tokenIn)} and ${out} from a position`;
    case 'mint':
      return `opened a position with ${amountIn} and ${names.symbol(trade.tokenOut)}`;
  }
}

/** One headline per trade: what it did, or what it would have done and why it did not. */
export function describeTrade(report: Described, names: TokenNames): string {
  const { trade } = report;
  const minimum = report.minOut === undefined ? '' : ` (at least ${names.amount(report.minOut, trade.tokenOut)})`;
  switch (report.status) {
    case 'confirmed':
      return `filled: ${done(report, names)}${minimum}`;
    case 'dry-run':
      return `dry run: would ${asked(report, names)}${report.expectedOut === undefined ? '' : `, about ${names.amount(report.expectedOut, trade.tokenOut)}`}${minimum}`;
    case 'refused':
      return `refused: ${asked(report, names)}: ${report.reason ?? 'a guard said no'}`;
    case 'anomaly':
      return `anomaly: ${done(report, names)}, but ${report.reason ?? 'the outcome cannot be trusted'}`;
    case 'skipped':
      return `skipped: ${report.reason ?? 'the slot already ran'}`;
    default:
      return `${report.status}: ${asked(report, names)}${report.reason ? `: ${report.reason}` : ''}`;
  }
}
