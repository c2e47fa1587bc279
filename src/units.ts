/** Tokens as the engine and the strategies see them, and raw amounts in human units for people. */
import { type Address, formatUnits } from 'viem';

export type TokenInfo = { address: Address; symbol: string; decimals: number };

/** Raw to a grouped human number, e.g. 1234500000000000000000n with 18 decimals → "1,234.5". */
export function formatTokenAmount(raw: bigint, decimals: number): string {
  const [whole = '0', fraction] = formatUnits(raw, decimals).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

const shownDecimals = 6;

/** Raw to a short human number: formatTokenAmount's, cut to 6 decimals (6 significant ones below 1), trailing zeros cut. */
export function displayNumber(raw: bigint, decimals: number): string {
  const [grouped, fraction = ''] = formatTokenAmount(raw, decimals).split('.');
  const belowOne = grouped === '0' || grouped === '-0';
  const leadingZeros = belowOne ? fraction.length - fraction.replace(/^0+/, '').length : 0;
  const kept = fraction.slice(0, leadingZeros + shownDecimals).replace(/0+$/, '');
  return kept ? `${grouped}.${kept}` : (grouped as string);
}
