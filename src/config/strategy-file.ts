/**
 * The strategy file (YAML or JSON): wallets, defaults, notifications and strategies. This schema checks its
 * shape; token symbols and amounts are resolved against the chain later (`src/strategy/resolve.ts`). Every error names
 * the field path, e.g. `strategies.0.sell.amount`.
 */
import { readFileSync } from 'node:fs';
import { Cron } from 'croner';
import { parse as parseYaml } from 'yaml';
import { closest, distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

const durationPattern = /^(\d+)(ms|s|m|h|d)$/;
const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30s", "5m", "1h", "250ms", "2d" to milliseconds. */
export function parseDuration(value: string): number {
  const match = durationPattern.exec(value);
  if (!match) throw new RangeError(`not a duration: ${value}`);
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}

/**
 * Tolerances beyond these are accepted only with `acceptHighTolerance: true` beside them (or in `defaults`):
 * a slipped zero is the commonest way to hand a trade's value to whoever sandwiches it.
 */
export const saneLimits = { slippageBps: 300, maxPriceDeviationBps: 1_000 } as const;

/**
 * An object whose unknown keys are errors, so a typo (`minPirce`) never silently drops a protection. The
 * message holds one line per unknown key, in the order of the issue's `keys`, each with the closest known
 * key when one is near enough to be a typo (see `unknownKeyLines`).
 */
function closed<const Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? issue.keys.map((key) => unknownKeyMessage(key, known)).join('\n') : undefined),
  });
}

export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const suggestion = closestKey(key, known);
  return suggestion ? `unknown field; did you mean '${suggestion}'?` : `unknown field; expected one of ${known.join(', ')}`;
}

/**
 * The known key a typo most likely meant: the same letters in another case, a singular or plural of it
 * (`strategy`, `budget`), or at most a third of its letters wrong.
 */
function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const exactButCase = known.find((candidate) => candidate.toLowerCase() === lower);
  if (exactButCase) return exactButCase;
  const stem = (word: string) => word.toLowerCase().replace(/(ies|y|s)$/, '');
  const sameStem = known.find((candidate) => stem(candidate) === stem(key));
  if (sameStem) return sameStem;
  const best = closest(key, [...known]);
  return best !== undefined && distance(key, best) <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

// One refine: zod runs a string's later checks even after an earlier one failed.
const duration = z
  .string()
  .refine((value) => durationPattern.test(value) && parseDuration(value) > 0, { message: 'must be a duration such as "30s", "5m", "1h" or "250ms"' });

const amountMessage = 'must be a decimal amount in quotes, such as "10" or "0.5"';
const priceMessage = 'must be a decimal price in quotes, such as "0.45"';
/** A non-negative decimal written out: "10", "0.5" (amounts and prices are strings, never floats). */
export const decimalPattern = /^\d+(\.\d+)?$/;
const humanAmount = z.string({ error: amountMessage }).regex(decimalPattern, { message: amountMessage });
const price = z.string({ error: priceMessage }).regex(decimalPattern, { message: priceMessage });
const tokenRef = z.string().min(1, { message: 'must name a token by symbol or address' });
const percentMessage = 'must be a percent above 0 and below 100, such as "5%" or "0.5%"';
/** A percent above 0 and below 100 ("5%"), as basis points. */
const percent = z
  .string({ error: percentMessage })
  .regex(/^\d+(\.\d{1,2})?%$/, { message: percentMessage })
  .transform((value) => Math.round(Number(value.slice(0, -1)) * 100))
  .refine((bps) => bps > 0 && bps < 10_000, { message: percentMessage });
const isoTime = z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be a date and time such as "2026-12-01T00:00:00Z"' });
const bps = (what: string) => z.number().int().min(0).max(5_000, { message: 'must be at most 5000 (50%)' }).describe(what);

/** Croner's nicknames, which stand for 5-field expressions. */
const cronNicknames = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** Checks a cron expression's shape: 5 fields (minute hour day month weekday), 6 only with `cronSeconds`. */
export function cronProblem(expression: string, withSeconds: boolean): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (!cronNicknames.includes(expression.trim())) {
    const expected = withSeconds ? 6 : 5;
    if (fields.length !== expected) {
      return withSeconds
        ? `has ${fields.length} fields; with cronSeconds: true it needs 6 (second minute hour day month weekday)`
        : `has ${fields.length} fields; a cron expression here has 5 (minute hour day month weekday, UTC)${fields.length === 6 ? ', or add cronSeconds: true to give seconds first' : ''}`;
    }
  }
  try {
    new Cron(expression, { paused: true, timezone: 'UTC' });
    return undefined;
  } catch {
    return 'must be a cron expression such as "*/5 * * * *" (minute hour day month weekday, UTC)';
  }
}

const firstRun = z
  .enum(['now', 'slot'])
  .describe(
    'On a fresh ledger: `now` runs the current slot at start, `slot` waits for the next slot. Default: `now` on the embedded devnet, `slot` on forks and networks.',
  );
const acceptHighTolerance = z
  .boolean()
  .describe(
    `Confirms a slippageBps above ${saneLimits.slippageBps} or a maxPriceDeviationBps above ${saneLimits.maxPriceDeviationBps} at this level (in defaults: everywhere).`,
  );

const scheduleFields = {
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: 'must be letters, digits, ".", "_" or "-"' })
    .describe('Unique name of the strategy; part of every intent id and metric label.'),
  wallet: z.string().describe('The name of a wallet under `wallets`.'),
  every: duration.optional().describe('Run every this long ("250ms", "30s", "5m", "1h", "1d"); slots are aligned to the clock. Exactly one of every or cron.'),
  cron: z
    .string()
    .optional()
    .describe('A cron expression in UTC with 5 fields (minute hour day month weekday), e.g. "0 9 * * 1-5". Exactly one of every or cron.'),
  cronSeconds: z.boolean().optional().describe('The cron expression starts with a seconds field (6 fields).'),
  jitter: duration.optional().describe('A random delay up to this long before each run; shorter than the interval.'),
  lateness: duration
    .optional()
    .describe(
      'A run that cannot start this long after its planned start is not run late but recorded as missed, with the reason. Shorter than the interval; default a quarter of it.',
    ),
  catchUp: z
    .enum(['once', 'skip'])
    .default('once')
    .describe('After downtime: `once` runs the latest missed slot once at start, `skip` waits for the next slot. Never a burst.'),
  firstRun: firstRun.optional(),
  start: isoTime.optional().describe('No run before this time (ISO 8601).'),
  end: isoTime.optional().describe('No run after this time (ISO 8601); after start.'),
  slippageBps: bps('Least output accepted below the quote and the reference, in basis points (default: defaults.slippageBps).').optional(),
  maxPriceDeviationBps: bps(
    'How far below the independent price reference a quote may pay before it is refused, in basis points (default: defaults.maxPriceDeviationBps).',
  ).optional(),
  acceptHighTolerance: acceptHighTolerance.optional(),
};

const budget = closed({
  perDay: humanAmount.optional().describe("Most spent per UTC day, in the token's human units."),
  total: humanAmount.optional().describe("Most spent ever, in the token's human units."),
});

/**
 * An order larger than the market, worked in slices over time: each slice as large as the best route takes within
 * `maxImpactBps` of the reference, spaced `every` apart so that pools and Mento's limit windows refill, until the whole
 * is done or `within` has passed since its first slice.
 */
const split = closed({
  maxImpactBps: bps('Most a slice may pay below the independent reference, in basis points; below the price tolerance.').default(30),
  within: duration.default('1h').describe('How long the whole order may take from its first slice; what is left then is reported, not sold.'),
  every: duration.default('5m').describe("Time between slices (Mento's limits refill over 5 minutes)."),
});

const sellOrder = closed({
  token: tokenRef.describe('The token sold, by symbol or address.'),
  amount: humanAmount.describe('How much is sold per run, in the token\'s human units ("10", "0.5").'),
});

const dca = closed({
  ...scheduleFields,
  kind: z.literal('dca').describe('Buy with a fixed amount on a schedule.'),
  sell: sellOrder.describe('What each run sells.'),
  buy: tokenRef.describe('The token bought, by symbol or address.'),
  minPrice: price.optional().describe('Least amount of `buy` per unit of `sell`, in human units; below it the run buys nothing.'),
  budget: budget.optional().describe('Spend limits of this strategy, in the sold token.'),
  split: split.optional().describe('Work an order larger than the market in slices over time (default: one trade).'),
});

const rebalance = closed({
  ...scheduleFields,
  kind: z.literal('rebalance').describe('Keep target weights between tokens.'),
  targets: z
    .record(tokenRef, z.number().positive({ message: 'must be a positive weight' }))
    .refine((t) => Object.keys(t).length >= 2, { message: 'needs at least two tokens' })
    .describe('Target weights by token; they are normalised, so 60/40 and 3/2 mean the same.'),
  quoteToken: tokenRef.describe('The token everything is valued in and traded through.'),
  driftBps: z.number().int().min(1).max(10_000).default(500).describe("Act when a token's weight is this far from its target, in basis points of the whole."),
  minTrade: humanAmount.default('1').describe("Skip trades worth less than this, in quoteToken's human units."),
  split: split.optional().describe('Work an order larger than the market in slices over time (default: one trade).'),
});

const limit = closed({
  ...scheduleFields,
  kind: z.literal('limit').describe('Sell at a take-profit or stop-loss price.'),
  sell: sellOrder.describe('What the order sells.'),
  buy: tokenRef.describe('The token bought, by symbol or address.'),
  takeProfit: price.optional().describe('Sell when one `sell` fetches at least this much `buy` (human units), never accepting less on chain.'),
  stopLoss: price.optional().describe('Sell when one `sell` fetches at most this much `buy` (human units).'),
  repeat: z.boolean().default(false).describe('Keep selling each time the condition holds (default: once, then done).'),
  expires: isoTime.optional().describe('No sale after this time (ISO 8601).'),
  split: split.optional().describe('Work an order larger than the market in slices over time (default: one trade).'),
});

const compound = closed({
  ...scheduleFields,
  kind: z.literal('compound').describe("Claim a gauge's rewards and deposit them back into the position."),
  gauge: z.string().min(1).describe('A gauge by its address-book name ("CELO/cUSD") or address.'),
  valueToken: tokenRef.describe('The token rewards and gas are valued in.'),
  minRewardValue: humanAmount.describe("Claim only when the rewards are worth at least this much more than the gas, in valueToken's human units."),
  exit: closed({
    to: tokenRef.describe('The token the whole position is withdrawn into.'),
    at: isoTime.optional().describe('Withdraw at or after this time (ISO 8601); without it, never.'),
  })
    .optional()
    .describe('Leave the position via /earn/withdraw.'),
});

const positionIdMessage = "must be the position NFT's id, a positive whole number";

const uniswapV3Position = closed({
  ...scheduleFields,
  kind: z
    .literal('uniswap-v3-position')
    .describe("Keep one of the wallet's Uniswap V3 positions: compound its fees, keep its range around the price, exit it."),
  position: z
    .union(
      [z.number().int({ message: positionIdMessage }).positive({ message: positionIdMessage }), z.string().regex(/^[1-9]\d*$/, { message: positionIdMessage })],
      {
        error: positionIdMessage,
      },
    )
    .transform((id) => BigInt(id))
    .optional()
    .describe("The position's NFT id (the wallet must own it). Exactly one of position or open."),
  open: closed({
    pool: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, { message: 'must be an address' })
      .optional()
      .describe("The pool to open the position in (one of the position manager's factory's). Or pair and fee."),
    pair: z
      .tuple([tokenRef, tokenRef], { error: 'must name the two tokens, [CELO, USDm]' })
      .optional()
      .describe("The pool's two tokens, with fee: the factory's pool of them at that fee tier."),
    fee: z
      .enum(['0.01%', '0.05%', '0.3%', '1%'], { message: "must be a fee tier: '0.01%', '0.05%', '0.3%' or '1%'" })
      .optional()
      .describe("The pool's fee tier, with pair."),
    range: closed({
      of: tokenRef.describe("One of the pool's two tokens."),
      in: tokenRef.describe('The other.'),
      low: price.describe('The range\'s lower price ("0.45"), on the pool\'s tick spacing, rounded outwards.'),
      high: price.describe('Its upper price.'),
    })
      .optional()
      .describe('The range, as prices of one token in the other. Exactly one of range, width or ticks.'),
    width: z
      .union(
        [
          percent,
          closed({
            below: percent.describe('How far under the reference price the range starts.'),
            above: percent.describe('How far over it the range ends.'),
          }),
        ],
        {
          error: 'must be a percent ("5%") or { below: "2%", above: "8%" }',
        },
      )
      .optional()
      .describe('The range around the reference price when the position is opened: ±"5%", or { below, above } of it.'),
    ticks: closed({
      lower: z.number().int({ message: 'must be a whole tick' }).describe("The range's lower tick."),
      upper: z.number().int({ message: 'must be a whole tick' }).describe('Its upper tick, above the lower.'),
    })
      .optional()
      .describe("The range's ticks, on the pool's spacing (for any range, symmetric or not)."),
    amounts: z
      .record(tokenRef, humanAmount)
      .describe(
        'At most this much of each of the pool\'s tokens, from the wallet ({ CELO: "1000", cUSD: "500" }); sold to the range\'s ratio at the reference first.',
      ),
  })
    .optional()
    .describe('Open a new position once, when the wallet holds no position of liquidity in the pool, instead of naming one.'),
  positionManager: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { message: 'must be an address' })
    .optional()
    .describe("The position manager holding it, when the chain data names several (it must be one of the chain data's)."),
  valueToken: tokenRef.describe('The token fees and gas are valued in.'),
  compound: closed({
    minFeesToGas: z
      .number()
      .positive()
      .max(1_000_000)
      .default(3)
      .describe('Compound once the uncollected fees are worth more than this many times the gas of doing it.'),
  })
    .default({ minFeesToGas: 3 })
    .describe("Collect the fees, sell the surplus token to the range's ratio at the reference price, and add the rest to the position."),
  keepInRange: closed({
    outsideFor: duration.describe("Re-range once the pool's own oracle shows the price outside the range, on one side, for this long."),
    oldPosition: z
      .enum(['keep', 'burn'], { message: 'must be keep or burn' })
      .default('keep')
      .describe('The emptied NFT: kept in the wallet, or burned (then the file must name the pool: a burned NFT no longer says it).'),
  })
    .optional()
    .describe('Off unless given: withdraw a position left out of range, and open one of the same width centred on the reference price.'),
  pool: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { message: 'must be an address' })
    .optional()
    .describe("The position's pool: needed when re-ranges burn the old NFT (checked against the position while it exists)."),
  exit: closed({
    at: isoTime.optional().describe('Leave at or after this time (ISO 8601).'),
    price: closed({
      of: tokenRef.describe("One of the pool's two tokens."),
      in: tokenRef.describe('The other.'),
      below: price.optional().describe('Leave once the reference price is at or below this ("0.45").'),
      above: price.optional().describe('Leave once the reference price is at or above this.'),
    })
      .optional()
      .describe("Leave at a price of the reference (never the pool's own)."),
    to: tokenRef.optional().describe("Sell what the position paid in the other token for this one (one of the pool's two)."),
  })
    .optional()
    .describe("Remove all the position's liquidity and collect it to the wallet, at a time or a price."),
});

export const strategyKinds = ['dca', 'rebalance', 'limit', 'compound', 'uniswap-v3-position'] as const;

const strategy = z.discriminatedUnion('kind', [dca, rebalance, limit, compound, uniswapV3Position]);

const healthDefaults = { probeSeconds: 10, staleSeconds: 60, failedRuns: 3 };
const valuationDefaults = { everySeconds: 60 };

const defaults = closed({
  slippageBps: bps('Least output accepted below the quote and the reference, in basis points.').default(50),
  maxPriceDeviationBps: bps('How far below the independent price reference a quote may pay before it is refused, in basis points.').default(100),
  acceptHighTolerance: acceptHighTolerance.optional(),
  maxFeePerGasGwei: price.optional().describe('The highest max fee per gas ever signed, in gwei (also a guard).'),
  approvals: z.enum(['exact', 'unlimited']).default('exact').describe("`exact`: approve each trade's amount; `unlimited`: approve once."),
  maxConcurrency: z
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(64)
    .describe('Strategy runs in progress at once, across all wallets (a run waiting for its receipt counts; a wallet orders only its nonces and signing).'),
  spread: z
    .string()
    .refine((value) => durationPattern.test(value), { message: 'must be a duration such as "60s", or "0s" for none' })
    .default('60s')
    .describe(
      'Strategies on one schedule start spread over this much of each slot (at most half the interval), each at an offset fixed by its id; "0s" starts them all at the slot.',
    ),
  routing: closed({
    requestsPerSecond: z
      .number()
      .positive()
      .max(100_000)
      .optional()
      .describe('Requests per second to the routing service (default: 10 for the hosted service, unlimited for a local one).'),
    maxConcurrent: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Requests in flight at once to the routing service (default: 4 for the hosted service, unlimited for a local one).'),
  })
    .optional()
    .describe('How hard the daemon may press the routing service. A 429 answer slows it down for as long as its Retry-After says.'),
  confirmations: z
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Blocks, the trade's own included, before a trade counts as mined. Default: the address book's, else 1 on the embedded devnet and forks and 3 on a network.",
    ),
  firstRun: firstRun.optional(),
  health: closed({
    probeSeconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(10)
      .describe('How often the chain and the routing service are asked whether they answer (seconds).'),
    staleSeconds: z.number().int().min(1).max(86_400).default(60).describe('A component not reached for this long is down (seconds).'),
    failedRuns: z.number().int().min(1).max(1000).default(3).describe('A strategy whose last this-many runs failed makes the daemon unhealthy.'),
  })
    .default(healthDefaults)
    .describe('What /healthz holds the daemon to.'),
  valuation: closed({
    everySeconds: z
      .number()
      .int()
      .min(5)
      .max(86_400)
      .default(60)
      .describe(
        "How often the daemon records the reference prices and the wallets' balances that `status` and the status page value holdings with (seconds); also after every run that traded.",
      ),
  })
    .default(valuationDefaults)
    .describe("How the daemon records what the strategies' holdings are worth."),
});

export const strategyFileSchema = closed({
  defaults: defaults
    .default({
      slippageBps: 50,
      maxPriceDeviationBps: 100,
      approvals: 'exact',
      maxConcurrency: 64,
      spread: '60s',
      health: healthDefaults,
      valuation: valuationDefaults,
    })
    .describe('Settings for every strategy; all optional.'),
  wallets: z
    .record(
      z.string(),
      closed({
        privateKeyEnv: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/, { message: 'must be an environment variable name such as ROUTEKEEPER_PRIVATE_KEY' })
          .optional()
          .describe("The environment variable holding the wallet's private key (never the key itself); or the file its <NAME>_FILE twin names."),
        keystore: z
          .string()
          .min(1)
          .optional()
          .describe(
            "Instead of privateKeyEnv: an encrypted keystore file (Web3 Secret Storage JSON, as `cast wallet`, geth and `routekeeper init --keystore` write it), relative to this file's directory.",
          ),
        passwordFile: z
          .string()
          .min(1)
          .optional()
          .describe("The file holding the keystore's password (else it is asked at a terminal), relative to this file's directory."),
        budgets: z
          .record(tokenRef, budget.describe('Spend limits of one token.'))
          .optional()
          .describe("Spend limits per token for everything this wallet does, in each token's human units."),
      })
        .refine((wallet) => (wallet.privateKeyEnv === undefined) !== (wallet.keystore === undefined), {
          message: 'names its key by privateKeyEnv or by keystore, one of the two',
        })
        .refine((wallet) => wallet.passwordFile === undefined || wallet.keystore !== undefined, {
          message: 'passwordFile goes with keystore',
          path: ['passwordFile'],
        }),
    )
    .describe('The wallets strategies trade from, by name.'),
  notifications: closed({
    webhooks: z
      .array(
        closed({
          url: z.url().describe('Where the JSON POST goes.'),
          events: z
            .array(z.enum(['filled', 'failed', 'refused', 'anomaly']))
            .optional()
            .describe('Which events (default: all).'),
        }),
      )
      .default([])
      .describe('JSON POSTs per fill, failure, refusal and anomaly.'),
  })
    .optional()
    .describe('Where the daemon tells what happened.'),
  strategies: z.array(strategy).min(1, { message: 'needs at least one strategy' }).describe('What to trade, each with an id, a kind, a wallet and a schedule.'),
}).superRefine((file, ctx) => {
  const seen = new Set<string>();
  file.strategies.forEach((s, i) => {
    const at = (...path: (string | number)[]) => ['strategies', i, ...path];
    if (seen.has(s.id)) ctx.addIssue({ code: 'custom', path: at('id'), message: `'${s.id}' is used by another strategy` });
    seen.add(s.id);
    if (!file.wallets[s.wallet]) {
      ctx.addIssue({
        code: 'custom',
        path: at('wallet'),
        message: `no wallet named '${s.wallet}' (wallets: ${Object.keys(file.wallets).join(', ') || 'none'})`,
      });
    }
    for (const problem of strategyProblems(s, file.defaults)) ctx.addIssue({ code: 'custom', path: at(...problem.path), message: problem.message });
  });
  for (const [name, wallet] of Object.entries(file.wallets)) {
    for (const [token, limits] of Object.entries(wallet.budgets ?? {})) {
      const problem = budgetProblem(limits);
      if (problem) ctx.addIssue({ code: 'custom', path: ['wallets', name, 'budgets', token, 'perDay'], message: problem });
    }
  }
});

type Problem = { path: (string | number)[]; message: string };
type StrategyInput = z.output<typeof strategy>;

/** The checks that involve more than one field of a strategy (and the file's defaults). */
function strategyProblems(s: StrategyInput, fileDefaults: z.output<typeof defaults>): Problem[] {
  const problems: Problem[] = [];
  if ((s.every === undefined) === (s.cron === undefined)) problems.push({ path: ['every'], message: 'give exactly one of `every` or `cron`' });
  if (s.cron !== undefined) {
    const problem = cronProblem(s.cron, s.cronSeconds === true);
    if (problem) problems.push({ path: ['cron'], message: problem });
  } else if (s.cronSeconds !== undefined) {
    problems.push({ path: ['cronSeconds'], message: 'only applies to `cron`' });
  }
  if (s.start !== undefined && s.end !== undefined && Date.parse(s.start) >= Date.parse(s.end)) {
    problems.push({ path: ['end'], message: `${s.end} is not after start ${s.start}` });
  }
  if (s.jitter !== undefined) {
    const jitterMs = parseDuration(s.jitter);
    const intervalMs = shortestIntervalMs(s);
    if (intervalMs !== undefined && jitterMs >= intervalMs) {
      problems.push({
        path: ['jitter'],
        message: `${s.jitter} is not shorter than the interval (${formatDuration(intervalMs)}): runs would pile into the next slot`,
      });
    }
  }
  if (s.lateness !== undefined) {
    const intervalMs = shortestIntervalMs(s);
    if (intervalMs !== undefined && parseDuration(s.lateness) >= intervalMs) {
      problems.push({
        path: ['lateness'],
        message: `${s.lateness} is not shorter than the interval (${formatDuration(intervalMs)}): a late run would overlap the next slot`,
      });
    }
  }
  const confirmed = s.acceptHighTolerance === true || fileDefaults.acceptHighTolerance === true;
  for (const key of ['slippageBps', 'maxPriceDeviationBps'] as const) {
    const value = s[key];
    if (value !== undefined && value > saneLimits[key] && !confirmed) problems.push({ path: [key], message: highToleranceMessage(key, value) });
  }
  if (s.kind === 'dca' && s.budget) {
    const problem = budgetProblem(s.budget);
    if (problem) problems.push({ path: ['budget', 'perDay'], message: problem });
  }
  if ((s.kind === 'dca' || s.kind === 'limit' || s.kind === 'rebalance') && s.split) {
    const tolerance = s.maxPriceDeviationBps ?? fileDefaults.maxPriceDeviationBps;
    if (s.split.maxImpactBps >= tolerance)
      problems.push({
        path: ['split', 'maxImpactBps'],
        message: `${s.split.maxImpactBps} is not below the price tolerance of ${tolerance} bps: every slice at that impact would be refused`,
      });
    if (parseDuration(s.split.every) >= parseDuration(s.split.within))
      problems.push({ path: ['split', 'every'], message: `${s.split.every} is not shorter than within (${s.split.within}): there would be one slice` });
    const intervalMs = shortestIntervalMs(s);
    if (intervalMs !== undefined && parseDuration(s.split.within) >= intervalMs)
      problems.push({
        path: ['split', 'within'],
        message: `${s.split.within} is not shorter than the interval (${formatDuration(intervalMs)}): an order would run into the next slot's`,
      });
  }
  if (s.kind === 'limit' && s.takeProfit === undefined && s.stopLoss === undefined)
    problems.push({ path: ['takeProfit'], message: 'needs takeProfit, stopLoss or both' });
  if (s.kind === 'limit' && s.takeProfit !== undefined && s.stopLoss !== undefined && compareDecimals(s.stopLoss, s.takeProfit) >= 0) {
    problems.push({ path: ['stopLoss'], message: `${s.stopLoss} is not below takeProfit ${s.takeProfit}: every price would trigger a sale` });
  }
  return problems;
}

function highToleranceMessage(key: keyof typeof saneLimits, value: number): string {
  return `${value} (${value / 100}%) is above ${saneLimits[key]} (${saneLimits[key] / 100}%); if you mean it, add acceptHighTolerance: true beside it`;
}

function budgetProblem(limits: { perDay?: string | undefined; total?: string | undefined }): string | undefined {
  if (limits.perDay === undefined || limits.total === undefined || compareDecimals(limits.perDay, limits.total) <= 0) return undefined;
  return `${limits.perDay} is more than the total ${limits.total}`;
}

/** Compares two non-negative decimal strings exactly. */
function compareDecimals(a: string, b: string): number {
  const [aWhole = '', aFraction = ''] = a.split('.');
  const [bWhole = '', bFraction = ''] = b.split('.');
  const width = Math.max(aFraction.length, bFraction.length);
  const left = BigInt(aWhole + aFraction.padEnd(width, '0'));
  const right = BigInt(bWhole + bFraction.padEnd(width, '0'));
  return left === right ? 0 : left < right ? -1 : 1;
}

/** The shortest gap between runs: the interval, or the least gap among a cron schedule's next runs. */
export function shortestIntervalMs(s: { every?: string | undefined; cron?: string | undefined }): number | undefined {
  if (s.every !== undefined) return parseDuration(s.every);
  if (s.cron === undefined) return undefined;
  try {
    const runs = new Cron(s.cron, { paused: true, timezone: 'UTC' }).nextRuns(20).map((run) => run.getTime());
    const gaps = runs.slice(1).map((time, i) => time - (runs[i] as number));
    return gaps.length ? Math.min(...gaps) : undefined;
  } catch {
    return undefined;
  }
}

/** 90_000 → "1m30s": milliseconds in the file's own duration units. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}

export type StrategyFile = z.output<typeof strategyFileSchema>;
export type StrategyConfig = StrategyFile['strategies'][number];

/** The JSON Schema of the strategy file, for editor completion (`routekeeper schema`). */
export function strategyFileJsonSchema() {
  return z.toJSONSchema(strategyFileSchema, { io: 'input', unrepresentable: 'any' });
}

/** Reads and checks a strategy file; every problem is listed with its field path. */
export function loadStrategyFile(file: string): StrategyFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the strategy file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`the strategy file ${file} is not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseStrategyFile(raw, file);
}

export function parseStrategyFile(raw: unknown, source = 'the strategy file'): StrategyFile {
  const parsed = strategyFileSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = [...new Set(parsed.error.issues.flatMap((issue) => problemLines(issue, raw)))];
  // One problem is one line; several are listed under one line naming the file.
  if (problems.length === 1) throw new ConfigError(`${source}: ${problems[0]}`);
  throw new ConfigError(`${source} is invalid:\n${problems.map((line) => `  ${line}`).join('\n')}`);
}

/** `path: what is wrong`, one per unknown key for an object with several. */
function problemLines(issue: z.core.$ZodIssue, raw: unknown): string[] {
  const at = (path: PropertyKey[]) => path.map(String).join('.') || '(file)';
  if (issue.code === 'unrecognized_keys') {
    // closed() wrote one message line per key, in the same order.
    const messages = issue.message.split('\n');
    return issue.keys.map((key, i) => `${at([...issue.path, key])}: ${messages[i] ?? 'unknown field'}`);
  }
  return [`${at(issue.path)}: ${describeIssue(issue, raw)}`];
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const value = issue.path.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), raw);
  if (issue.code === 'invalid_union' && issue.path.at(-1) === 'kind') {
    return `unknown kind '${String(value)}'; expected one of ${strategyKinds.join(', ')}`;
  }
  if (issue.code === 'invalid_type' && value === undefined) return 'is required';
  return issue.message;
}
