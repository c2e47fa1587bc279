/**
 * A strategy file's V3 position to open, resolved against the devnet's chain as `once` and `run` resolve it: by pair
 * and fee tier, with a width around the reference or ticks on the pool's spacing; every opening that is not one is
 * refused with one line naming the field, before anything is traded.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { parseStrategyFile } from '../../src/config/strategy-file.ts';
import { ConfigError } from '../../src/errors.ts';
import { resolveConfig } from '../../src/strategy/resolve.ts';
import { cusdCeloPool } from '../../support/positions.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork({ uniswapV3: true });

/** The file's one strategy resolved, with `open` as given (YAML flow syntax). */
async function resolved(open: string) {
  const file = parseStrategyFile({
    wallets: { main: { privateKeyEnv: 'ROUTEKEEPER_PRIVATE_KEY' } },
    strategies: [{ id: 'lp', kind: 'uniswap-v3-position', wallet: 'main', every: '1h', valueToken: 'cUSD', open: JSON.parse(open) }],
  });
  const accounts = new Map([['main', privateKeyToAccount(fork.addressBook.accounts[0]?.privateKey as `0x${string}`)]]);
  const config = await resolveConfig(file, { client: fork.publicClient, chainId: fork.addressBook.chainId, book: fork.addressBook, accounts });
  return config.strategies[0];
}

describe("a V3 position's opening in the strategy file", () => {
  it('finds the pool by pair and fee tier, and keeps a width (symmetric or not) for when it opens', async () => {
    const symmetric = await resolved('{ "pair": ["CELO", "cUSD"], "fee": "0.3%", "width": "5%", "amounts": { "CELO": "10" } }');
    expect(symmetric).toMatchObject({ pool: { address: cusdCeloPool(fork).address, fee: 3000 }, open: { range: { belowBps: 500, aboveBps: 500 } } });
    const lopsided = await resolved('{ "pair": ["cUSD", "CELO"], "fee": "0.3%", "width": { "below": "2%", "above": "8.5%" }, "amounts": { "CELO": "10" } }');
    expect(lopsided).toMatchObject({ open: { range: { belowBps: 200, aboveBps: 850 } } });
    const ticks = await resolved('{ "pair": ["CELO", "cUSD"], "fee": "0.3%", "ticks": { "lower": -600, "upper": 1200 }, "amounts": { "cUSD": "10" } }');
    expect(ticks).toMatchObject({ open: { range: { tickLower: -600, tickUpper: 1200 } } });
  });

  it.each<[string, string, RegExp]>([
    [
      'both a pool and a pair',
      '{ "pool": "0x0000000000000000000000000000000000000001", "pair": ["CELO", "cUSD"], "fee": "0.3%", "width": "5%", "amounts": { "CELO": "1" } }',
      /^strategies\.0\.open: name the pool \(pool: its address\) or its pair and fee tier \(pair: \[A, B\], fee: '0\.3%'\), not both$/,
    ],
    [
      'a pair at a fee tier the factory has no pool of',
      '{ "pair": ["CELO", "cUSD"], "fee": "1%", "width": "5%", "amounts": { "CELO": "1" } }',
      /^strategies\.0\.open\.pair: the position manager's factory has no pool of CELO and cUSD at 1% \(0x[0-9a-fA-F]{40} holds none\)$/,
    ],
    [
      'both a width and ticks',
      '{ "pair": ["CELO", "cUSD"], "fee": "0.3%", "width": "5%", "ticks": { "lower": -600, "upper": 600 }, "amounts": { "CELO": "1" } }',
      /^strategies\.0\.open: give exactly one of range, width or ticks \(width and ticks given\)$/,
    ],
    [
      'ticks off the pool’s spacing',
      '{ "pair": ["CELO", "cUSD"], "fee": "0.3%", "ticks": { "lower": -601, "upper": 600 }, "amounts": { "CELO": "1" } }',
      /^strategies\.0\.open\.ticks: \[-601, 600\) is no range of the pool's ticks \(on a spacing of 60, lower below upper\)$/,
    ],
  ])('refuses an opening with %s, naming it', async (_, open, message) => {
    const error = await resolved(open).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(message);
  });

  it('refuses a width that is no percent below 100', () => {
    for (const width of ['"100%"', '"0%"', '"5"', '{ "below": "2%" }']) {
      expect(() =>
        parseStrategyFile({
          wallets: { main: { privateKeyEnv: 'ROUTEKEEPER_PRIVATE_KEY' } },
          strategies: [
            {
              id: 'lp',
              kind: 'uniswap-v3-position',
              wallet: 'main',
              every: '1h',
              valueToken: 'cUSD',
              open: JSON.parse(`{ "pair": ["CELO", "cUSD"], "fee": "0.3%", "width": ${width}, "amounts": { "CELO": "1" } }`),
            },
          ],
        }),
      ).toThrow(/strategies\.0\.open\.width: must be a percent/);
    }
  });
});
