/**
 * The strategy file (YAML or JSON): wallets, defaults, notifications and strategies. This schema checks its
 * shape; token symbols and amounts are resolved against the chain later (`resolve.ts`). Every error names
 * the field path, e.g. `strategies.0.sell.amount`.
 */
import { readFileSync } from 'node:fs';
import { Cron } from 'croner';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors.ts';

const durationPattern = /^(\d+)(ms|s|m|h|d)$/;
const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30s", "5m", "1h", "250ms", "2d" to milliseconds. */
export function parseDuration(value: string): number {
  const match = durationPattern.exec(value);
  if (!match) throw new RangeError(`not a duration: ${value}`);
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}

// One refine: zod runs a string's later checks even after an earlier one failed.
const duration = z
  .string()
  .refine((value) => durationPattern.test(value) && parseDuration(value) > 0, { message: 'must be a duration such as "30s", "5m", "1h" or "250ms"' });

const amountMessage = 'must be a decimal amount in quotes, such as "10" or "0.5"';
const priceMessage = 'must be a decimal price in quotes, such as "0.45"';
const humanAmount = z.string({ error: amountMessage }).regex(/^\d+(\.\d+)?$/, { message: amountMessage });
const price = z.string({ error: priceMessage }).regex(/^\d+(\.\d+)?$/, { message: priceMessage });
const tokenRef = z.string().min(1, { message: 'must name a token by symbol or address' });
const isoTime = z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be a date and time such as "2026-12-01T00:00:00Z"' });
const slippageBps = z.number().int().min(0).max(5_000, { message: 'must be at most 5000 (50%)' });
const cron = z.string().refine(
  (value) => {
    try {
      new Cron(value, { paused: true });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a cron expression such as "*/5 * * * *"' },
);

const scheduleFields = {
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: 'must be letters, digits, ".", "_" or "-"' }),
  wallet: z.string(),
  /** Run every this long (slots aligned to the clock), or on a cron schedule. */
  every: duration.optional(),
  cron: cron.optional(),
  /** A random delay up to this long before each run, so many daemons do not hit the service at once. */
  jitter: duration.optional(),
  /** After downtime: run the missed slot once, or skip to the next one. Never a burst. */
  catchUp: z.enum(['once', 'skip']).default('once'),
  start: isoTime.optional(),
  end: isoTime.optional(),
  slippageBps: slippageBps.optional(),
  /** How far below the independent price reference a quote may pay before it is refused (basis points). */
  maxPriceDeviationBps: z.number().int().min(0).max(5_000, { message: 'must be at most 5000 (50%)' }).optional(),
};

const budget = z.object({ perDay: humanAmount.optional(), total: humanAmount.optional() });

const dca = z.object({
  ...scheduleFields,
  kind: z.literal('dca'),
  sell: z.object({ token: tokenRef, amount: humanAmount }),
  buy: tokenRef,
  /** Least amount of `buy` per unit of `sell`, in human units; below it the run buys nothing. */
  minPrice: price.optional(),
  /** Of the sold token, in its human units. */
  budget: budget.optional(),
});

const rebalance = z.object({
  ...scheduleFields,
  kind: z.literal('rebalance'),
  /** Target weights; they are normalised, so 60/40 and 3/2 mean the same. */
  targets: z.record(tokenRef, z.number().positive({ message: 'must be a positive weight' })).refine((t) => Object.keys(t).length >= 2, {
    message: 'needs at least two tokens',
  }),
  /** The token everything is valued in (and traded through). */
  quoteToken: tokenRef,
  /** Act when any token's weight is this far (in basis points of the whole) from its target. */
  driftBps: z.number().int().min(1).max(10_000).default(500),
  /** Skip trades worth less than this, in quoteToken's human units. */
  minTrade: humanAmount.default('1'),
});

const limit = z
  .object({
    ...scheduleFields,
    kind: z.literal('limit'),
    sell: z.object({ token: tokenRef, amount: humanAmount }),
    buy: tokenRef,
    /** Sell when one `sell` fetches at least this much `buy` (human units). */
    takeProfit: price.optional(),
    /** Sell when one `sell` fetches at most this much `buy`. */
    stopLoss: price.optional(),
    /** Keep selling each time the condition holds (default: once, then done). */
    repeat: z.boolean().default(false),
    expires: isoTime.optional(),
  })
  .refine((s) => s.takeProfit !== undefined || s.stopLoss !== undefined, { message: 'needs takeProfit, stopLoss or both', path: ['takeProfit'] });

const compound = z.object({
  ...scheduleFields,
  kind: z.literal('compound'),
  /** A gauge by its address-book name ("CELO/cUSD") or address. */
  gauge: z.string().min(1),
  /** The token rewards and gas are valued in. */
  valueToken: tokenRef,
  /** Claim and re-deposit only when the rewards are worth at least this much more than the gas, in valueToken. */
  minRewardValue: humanAmount,
  /** Leave the position for this token (via /earn/withdraw), at or after `at`. */
  exit: z.object({ to: tokenRef, at: isoTime.optional() }).optional(),
});

export const strategyKinds = ['dca', 'rebalance', 'limit', 'compound'] as const;

const strategy = z.discriminatedUnion('kind', [dca, rebalance, limit, compound]);

export const strategyFileSchema = z
  .object({
    defaults: z
      .object({
        slippageBps: slippageBps.default(50),
        /** How far below the independent price reference a quote may pay before it is refused (basis points). */
        maxPriceDeviationBps: z.number().int().min(0).max(5_000, { message: 'must be at most 5000 (50%)' }).default(100),
        /** Highest max fee per gas we sign, in gwei. */
        maxFeePerGasGwei: price.optional(),
        approvals: z.enum(['exact', 'unlimited']).default('exact'),
        /** How many strategy runs may be in progress at once (runs of one wallet never overlap). */
        maxConcurrency: z.number().int().min(1).max(64).default(4),
        /**
         * Blocks, the trade's own included, before a trade counts as mined; a reorg within them is followed.
         * Default: the address book's, else 1 on the embedded devnet and forks and 3 on a real network.
         */
        confirmations: z.number().int().min(1).max(64).optional(),
        /** What /healthz holds the daemon to. */
        health: z
          .object({
            /** How often the chain and the routing service are asked whether they answer (seconds). */
            probeSeconds: z.number().int().min(1).max(3600).default(10),
            /** A component not reached for this long is down (seconds). */
            staleSeconds: z.number().int().min(1).max(86_400).default(60),
            /** A strategy whose last this-many runs failed makes the daemon unhealthy. */
            failedRuns: z.number().int().min(1).max(1000).default(3),
          })
          .default({ probeSeconds: 10, staleSeconds: 60, failedRuns: 3 }),
      })
      .default({ slippageBps: 50, maxPriceDeviationBps: 100, approvals: 'exact', maxConcurrency: 4, health: { probeSeconds: 10, staleSeconds: 60, failedRuns: 3 } }),
    wallets: z.record(
      z.string(),
      z.object({
        /** The environment variable holding the wallet's private key (never the key itself). */
        privateKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, { message: 'must be an environment variable name such as ROUTEKEEPER_PRIVATE_KEY' }),
        /** Spend limits per token for everything this wallet does, in each token's human units. */
        budgets: z.record(tokenRef, budget).optional(),
      }),
    ),
    notifications: z
      .object({
        webhooks: z.array(z.object({ url: z.string().url(), events: z.array(z.enum(['filled', 'failed', 'refused', 'anomaly'])).optional() })).default([]),
      })
      .optional(),
    strategies: z.array(strategy).min(1, { message: 'needs at least one strategy' }),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.strategies.forEach((s, i) => {
      if (seen.has(s.id)) ctx.addIssue({ code: 'custom', path: ['strategies', i, 'id'], message: `'${s.id}' is used by another strategy` });
      seen.add(s.id);
      if (!file.wallets[s.wallet]) {
        ctx.addIssue({ code: 'custom', path: ['strategies', i, 'wallet'], message: `no wallet named '${s.wallet}' (wallets: ${Object.keys(file.wallets).join(', ') || 'none'})` });
      }
      if ((s.every === undefined) === (s.cron === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['strategies', i, 'every'], message: 'give exactly one of `every` or `cron`' });
      }
    });
  });

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
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(file)'}: ${describeIssue(issue, raw)}`);
  throw new ConfigError(`${source} is invalid:\n${[...new Set(problems)].join('\n')}`);
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const value = issue.path.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), raw);
  if (issue.code === 'invalid_union' && issue.path.at(-1) === 'kind') {
    return `unknown kind '${String(value)}'; expected one of ${strategyKinds.join(', ')}`;
  }
  if (issue.code === 'invalid_type' && value === undefined) return 'is required';
  return issue.message;
}
