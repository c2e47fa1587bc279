/**
 * The routing service's request validation, without a service: each bad query is refused by name before anything is
 * read from the chain. (test/routing/errors.test.ts sends one of them over HTTP, and the ones that need the chain.)
 */
import { maxUint256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { RoutingRequestError } from '../../src/routing/errors.ts';
import { parseQuery } from '../../src/routing/query.ts';
import { swapRouteQuerySchema } from '../../src/routing-api/schemas.ts';

const celo = '0x471EcE3750Da237f93B8E339c536989b8978a438';
const cUSD = '0x765DE816845861e75A25fCA122bb6898B8B1282a';
const valid = { tokenIn: celo, tokenOut: cUSD, amountIn: '1000000000000000000' };

/** The refusal of `/routes?<params>` on a service of chain 42220: the field it names and its message. */
function refusal(params: Record<string, string> | URLSearchParams): { field: string; message: string } {
  const url = new URL(`http://localhost/routes?${new URLSearchParams(params)}`);
  try {
    parseQuery(swapRouteQuerySchema, url, 42220);
  } catch (error) {
    if (!(error instanceof RoutingRequestError)) throw error;
    return { field: error.body.field as string, message: error.body.error };
  }
  throw new Error(`accepted: ${url.search}`);
}

describe('a swap route request', () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['a malformed address', { ...valid, tokenIn: '0x1234' }, 'tokenIn', /20-byte hex address/],
    ['a missing token', { tokenOut: cUSD, amountIn: '1' }, 'tokenIn', /^Invalid tokenIn: is required$/],
    ['a missing amount', { tokenIn: celo, tokenOut: cUSD }, 'amountIn', /^Invalid amountIn: is required$/],
    ['a fractional amount', { ...valid, amountIn: '1.5' }, 'amountIn', /whole number/],
    ['a negative amount', { ...valid, amountIn: '-5' }, 'amountIn', /whole number/],
    ['a zero amount', { ...valid, amountIn: '0' }, 'amountIn', /greater than zero/],
    ['an amount over uint256', { ...valid, amountIn: (maxUint256 + 1n).toString() }, 'amountIn', /uint256/],
    ['an unknown chain id', { ...valid, chainId: '44787' }, 'chainId', /^Invalid chainId: 44787 is not supported; this service quotes chain 42220$/],
    ['a non-numeric chain id', { ...valid, chainId: 'celo' }, 'chainId', /whole number/],
    ['the same token in and out', { ...valid, tokenOut: celo }, 'tokenOut', /must differ from tokenIn/],
    ['slippage over 100%', { ...valid, slippage: '10001' }, 'slippage', /from 0 to 10000/],
    ['maxHops of zero', { ...valid, maxHops: '0' }, 'maxHops', /from 1 to 4/],
    ['a non-boolean flag', { ...valid, priceImpact: 'yes' }, 'priceImpact', /./],
    ['a bad `from`', { ...valid, from: 'me' }, 'from', /20-byte hex address/],
  ];
  for (const [what, params, field, message] of cases) {
    it(`with ${what} is refused, naming ${field}`, () => {
      const { field: named, message: said } = refusal(params);
      expect(named).toBe(field);
      expect(said).toMatch(message);
    });
  }

  it('with a parameter given twice is refused, naming it', () => {
    const params = new URLSearchParams(valid);
    params.append('amountIn', '2');
    expect(refusal(params)).toEqual({ field: 'amountIn', message: 'Invalid amountIn: is given more than once' });
  });

  it('that is valid gives its typed values, with the defaults filled in', () => {
    const query = parseQuery(swapRouteQuerySchema, new URL(`http://localhost/routes?${new URLSearchParams(valid)}`), 42220);
    expect(query).toMatchObject({ tokenIn: celo, tokenOut: cUSD, amountIn: 10n ** 18n });
  });
});
