/**
 * How `status --json` and the status page write amounts, prices and shares: exact raw integers as strings,
 * with the decimal form and the text people read beside them ("12.5 cUSD"), so a script never parses text and
 * a person never reads wei.
 */
import { formatUnits } from 'viem';
import { displayNumber } from '../units.ts';

export type Token = { address: string; symbol: string; decimals: number };

/** An amount of a token: `raw` is exact (may be negative for a loss), `text` is what the screen shows. */
export type AmountJson = { raw: string; amount: string; symbol: string; token: string; text: string };

export function amountJson(raw: bigint, token: Token): AmountJson {
  return {
    raw: raw.toString(),
    amount: formatUnits(raw, token.decimals),
    symbol: token.symbol,
    token: token.address,
    text: `${displayNumber(raw, token.decimals)} ${token.symbol}`,
  };
}

/** A price: how much of the value token one whole asset is worth, to 18 decimals. */
export type PriceJson = { value: string; unit: string; text: string };

const E18 = 10n ** 18n;

/** The price of `asset` in `value` that `valueAmount` for `assetAmount` makes; null when nothing was exchanged. */
export function priceJson(valueAmount: bigint, value: Token, assetAmount: bigint, asset: Token): PriceJson | null {
  if (assetAmount === 0n) return null;
  const scaled = (valueAmount * 10n ** BigInt(asset.decimals) * E18) / (assetAmount * 10n ** BigInt(value.decimals));
  const unit = `${value.symbol} per ${asset.symbol}`;
  return { value: formatUnits(scaled, 18), unit, text: `${displayNumber(scaled, 18)} ${unit}` };
}

/** `part` as a percentage of `whole` with 2 decimals ("-1.25"), rounded toward zero; null for a whole of 0. */
export function percent(part: bigint, whole: bigint): string | null {
  if (whole === 0n) return null;
  const hundredths = (part * 10_000n) / whole;
  const sign = hundredths < 0n ? '-' : '';
  const magnitude = hundredths < 0n ? -hundredths : hundredths;
  return `${sign}${magnitude / 100n}.${(magnitude % 100n).toString().padStart(2, '0')}`;
}
