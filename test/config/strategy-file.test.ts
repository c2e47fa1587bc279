import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { schemaPath, strategyFileSchemaDocument } from '../../src/cli/schema.ts';
import { ConfigError } from '../../src/errors.ts';
import { parseStrategyFile } from '../../src/config/strategy-file.ts';

const dca = (fields: Record<string, unknown> = {}) => ({
  id: 'd',
  kind: 'dca',
  wallet: 'main',
  every: '1m',
  sell: { token: 'cUSD', amount: '10' },
  buy: 'CELO',
  ...fields,
});
const file = (strategy: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  wallets: { main: { privateKeyEnv: 'KEY' } },
  strategies: [strategy],
  ...extra,
});

function problemOf(raw: unknown): string {
  try {
    parseStrategyFile(raw, 'f.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('the strategy file is strict', () => {
  it.each([
    ['a misspelt price floor', file(dca({ minPirce: '1.9' })), "f.yaml: strategies.0.minPirce: unknown field; did you mean 'minPrice'?"],
    [
      'a V3 position by no NFT id',
      file({ id: 'lp', kind: 'uniswap-v3-position', wallet: 'main', every: '1h', position: -3, valueToken: 'cUSD' }),
      "f.yaml: strategies.0.position: must be the position NFT's id, a positive whole number",
    ],
    [
      'a V3 position keeping its range with a field it does not know',
      file({
        id: 'lp',
        kind: 'uniswap-v3-position',
        wallet: 'main',
        every: '1h',
        position: 7,
        valueToken: 'cUSD',
        keepInRange: { outsideFor: '1h', outsideMinutes: 60 },
      }),
      'f.yaml: strategies.0.keepInRange.outsideMinutes: unknown field; expected one of outsideFor, oldPosition',
    ],
    [
      'a V3 position doing something else with its old NFT',
      file({
        id: 'lp',
        kind: 'uniswap-v3-position',
        wallet: 'main',
        every: '1h',
        position: 7,
        valueToken: 'cUSD',
        keepInRange: { outsideFor: '1h', oldPosition: 'sell' },
      }),
      'f.yaml: strategies.0.keepInRange.oldPosition: must be keep or burn',
    ],
    ['a misspelt slippage', file(dca({ slipageBps: 10 })), "f.yaml: strategies.0.slipageBps: unknown field; did you mean 'slippageBps'?"],
    ['a key in the wrong case', file(dca({ MinPrice: '1.9' })), "f.yaml: strategies.0.MinPrice: unknown field; did you mean 'minPrice'?"],
    [
      'a typo in a nested object',
      file(dca({ sell: { token: 'cUSD', amout: '10' } })),
      "f.yaml is invalid:\n  strategies.0.sell.amount: is required\n  strategies.0.sell.amout: unknown field; did you mean 'amount'?",
    ],
    ['a typo in a budget', file(dca({ budget: { perDya: '5' } })), "f.yaml: strategies.0.budget.perDya: unknown field; did you mean 'perDay'?"],
    ['a typo in defaults', file(dca(), { defaults: { maxConcurency: 8 } }), "f.yaml: defaults.maxConcurency: unknown field; did you mean 'maxConcurrency'?"],
    [
      'a typo in health',
      file(dca(), { defaults: { health: { staleSecond: 5 } } }),
      "f.yaml: defaults.health.staleSecond: unknown field; did you mean 'staleSeconds'?",
    ],
    [
      'a typo in a wallet',
      file(dca(), { wallets: { main: { privateKeyEnv: 'KEY', budget: {} } } }),
      "f.yaml: wallets.main.budget: unknown field; did you mean 'budgets'?",
    ],
    [
      'a typo in a wallet budget',
      file(dca(), { wallets: { main: { privateKeyEnv: 'KEY', budgets: { cUSD: { totl: '1' } } } } }),
      "f.yaml: wallets.main.budgets.cUSD.totl: unknown field; did you mean 'total'?",
    ],
    [
      'a typo in a webhook',
      file(dca(), { notifications: { webhooks: [{ url: 'https://example.org/h', event: ['filled'] }] } }),
      "f.yaml: notifications.webhooks.0.event: unknown field; did you mean 'events'?",
    ],
    ['a typo at the top', file(dca(), { strategy: [] }), "f.yaml: strategy: unknown field; did you mean 'strategies'?"],
    [
      'a field of another kind',
      file(dca({ takeProfit: '2' })),
      'f.yaml: strategies.0.takeProfit: unknown field; expected one of id, wallet, every, cron, cronSeconds, jitter, lateness, catchUp, firstRun, start, end, slippageBps, maxPriceDeviationBps, acceptHighTolerance, kind, sell, buy, minPrice, budget, split',
    ],
    [
      'a 6-field cron',
      file(dca({ every: undefined, cron: '*/5 * * * * *' })),
      'f.yaml: strategies.0.cron: has 6 fields; a cron expression here has 5 (minute hour day month weekday, UTC), or add cronSeconds: true to give seconds first',
    ],
    [
      'a 4-field cron',
      file(dca({ every: undefined, cron: '0 9 * *' })),
      'f.yaml: strategies.0.cron: has 4 fields; a cron expression here has 5 (minute hour day month weekday, UTC)',
    ],
    [
      'a 5-field cron with cronSeconds',
      file(dca({ every: undefined, cron: '0 9 * * *', cronSeconds: true })),
      'f.yaml: strategies.0.cron: has 5 fields; with cronSeconds: true it needs 6 (second minute hour day month weekday)',
    ],
    ['cronSeconds without cron', file(dca({ cronSeconds: true })), 'f.yaml: strategies.0.cronSeconds: only applies to `cron`'],
    [
      'start after end',
      file(dca({ start: '2027-01-01T00:00:00Z', end: '2026-12-01T00:00:00Z' })),
      'f.yaml: strategies.0.end: 2026-12-01T00:00:00Z is not after start 2027-01-01T00:00:00Z',
    ],
    [
      'a jitter as long as the interval',
      file(dca({ jitter: '1m' })),
      'f.yaml: strategies.0.jitter: 1m is not shorter than the interval (1m): runs would pile into the next slot',
    ],
    [
      'a jitter longer than a cron interval',
      file(dca({ every: undefined, cron: '*/5 * * * *', jitter: '10m' })),
      'f.yaml: strategies.0.jitter: 10m is not shorter than the interval (5m): runs would pile into the next slot',
    ],
    [
      'a huge slippage',
      file(dca({ slippageBps: 5000 })),
      'f.yaml: strategies.0.slippageBps: 5000 (50%) is above 300 (3%); if you mean it, add acceptHighTolerance: true beside it',
    ],
    [
      'a huge deviation',
      file(dca({ maxPriceDeviationBps: 2500 })),
      'f.yaml: strategies.0.maxPriceDeviationBps: 2500 (25%) is above 1000 (10%); if you mean it, add acceptHighTolerance: true beside it',
    ],
    ['a slippage beyond any flag', file(dca({ slippageBps: 6000, acceptHighTolerance: true })), 'f.yaml: strategies.0.slippageBps: must be at most 5000 (50%)'],
    [
      'a daily budget above the total',
      file(dca({ budget: { perDay: '100.5', total: '100' } })),
      'f.yaml: strategies.0.budget.perDay: 100.5 is more than the total 100',
    ],
    [
      'a stop-loss above the take-profit',
      file({ ...dca(), kind: 'limit', takeProfit: '0.4', stopLoss: '0.45' }),
      'f.yaml: strategies.0.stopLoss: 0.45 is not below takeProfit 0.4: every price would trigger a sale',
    ],
    ['a bad firstRun', file(dca({ firstRun: 'later' })), 'f.yaml: strategies.0.firstRun: Invalid option: expected one of "now"|"slot"'],
    [
      'slices allowed the whole price tolerance',
      file(dca({ every: '1d', maxPriceDeviationBps: 80, split: { maxImpactBps: 80 } })),
      'f.yaml: strategies.0.split.maxImpactBps: 80 is not below the price tolerance of 80 bps: every slice at that impact would be refused',
    ],
    [
      'an order that may take longer than the interval',
      file(dca({ every: '30m', split: { within: '1h' } })),
      "f.yaml: strategies.0.split.within: 1h is not shorter than the interval (30m): an order would run into the next slot's",
    ],
    [
      'slices no shorter apart than the order may take',
      file(dca({ every: '1d', split: { within: '10m', every: '10m' } })),
      'f.yaml: strategies.0.split.every: 10m is not shorter than within (10m): there would be one slice',
    ],
  ])('refuses %s, naming the path', (_name, raw, message) => {
    expect(problemOf(raw)).toBe(message);
  });

  it('lists several problems, one per line under the file', () => {
    expect(problemOf(file(dca({ slipageBps: 10, colour: 'red' })))).toBe(
      "f.yaml is invalid:\n  strategies.0.slipageBps: unknown field; did you mean 'slippageBps'?\n  strategies.0.colour: unknown field; expected one of id, wallet, every, cron, cronSeconds, jitter, lateness, catchUp, firstRun, start, end, slippageBps, maxPriceDeviationBps, acceptHighTolerance, kind, sell, buy, minPrice, budget, split",
    );
  });

  it('accepts high tolerances when confirmed beside them or in defaults, and 6-field cron with cronSeconds', () => {
    expect(parseStrategyFile(file(dca({ slippageBps: 800, acceptHighTolerance: true }))).strategies[0]?.slippageBps).toBe(800);
    expect(parseStrategyFile(file(dca({ maxPriceDeviationBps: 2000 }), { defaults: { acceptHighTolerance: true } })).strategies[0]?.maxPriceDeviationBps).toBe(
      2000,
    );
    expect(parseStrategyFile(file(dca({ every: undefined, cron: '30 */5 * * * *', cronSeconds: true }))).strategies[0]?.cron).toBe('30 */5 * * * *');
    expect(parseStrategyFile(file(dca({ every: undefined, cron: '@daily', jitter: '1h' }))).strategies[0]?.cron).toBe('@daily');
  });

  it('reads the example file', () => {
    const parsed = parseStrategyFile(parseYaml(readFileSync('config/strategies.yaml', 'utf8')));
    expect(parsed.strategies.map((s) => s.kind)).toEqual(['dca', 'rebalance', 'limit', 'compound']);
  });
});

describe('the JSON Schema', () => {
  const schema = JSON.parse(strategyFileSchemaDocument());

  it(`is committed at ${schemaPath}, current, and referenced by the example file`, () => {
    expect(readFileSync(schemaPath, 'utf8'), 'run `npm run schema` after changing the strategy file').toBe(strategyFileSchemaDocument());
    expect(readFileSync('config/strategies.yaml', 'utf8').split('\n')[0]).toBe(`# yaml-language-server: $schema=../${schemaPath}`);
  });

  it('closes every object and describes every field', () => {
    const open: string[] = [];
    const undescribed: string[] = [];
    let objects = 0;
    const walk = (node: Record<string, unknown>, path: string) => {
      if (node.type === 'object' && node.properties) {
        objects++;
        if (node.additionalProperties !== false) open.push(path);
        for (const [key, child] of Object.entries(node.properties as Record<string, Record<string, unknown>>)) {
          if (typeof child.description !== 'string' || child.description.length < 10) undescribed.push(`${path}.${key}`);
          walk(child, `${path}.${key}`);
        }
      }
      for (const key of ['items', 'additionalProperties'] as const)
        if (node[key] && typeof node[key] === 'object') walk(node[key] as Record<string, unknown>, `${path}[]`);
      for (const key of ['anyOf', 'oneOf'] as const) (node[key] as Record<string, unknown>[] | undefined)?.forEach((child, i) => walk(child, `${path}|${i}`));
    };
    walk(schema, '');
    expect(objects).toBeGreaterThanOrEqual(14);
    expect(open).toEqual([]);
    expect(undescribed).toEqual([]);
  });
});
