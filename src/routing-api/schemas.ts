/**
 * The Token Routing Service API as zod schemas: the query parameters of each endpoint (what the local
 * service parses and the client sends) and the answers (what the client validates). Amounts travel as
 * decimal strings and come out of these schemas as bigint.
 */
import { z } from 'zod';
import { addressSchema, hexSchema, uint256String, uint256StringSchema } from '../primitives.ts';

export const defaultChainId = 42220;
export const defaultSlippageBps = 10;
export const defaultMaxHops = 3;
/** Five minutes, the spec's default deadline. */
export const defaultDeadlineMs = 5 * 60 * 1000;

// ---------------------------------------------------------------- requests

/** A query-string integer: digits only, within bounds. */
const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: 'must be a whole number' })
    .transform(Number)
    .refine((value) => value >= min && value <= max, { message: `must be from ${min} to ${max}` });

const positiveAmount = uint256String({ positive: true });

const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `exclude=a,b`: protocol ids that routes must not use. */
const protocolList = z.string().transform((value) =>
  value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id.length > 0),
);

/**
 * `excludePools=0x…,0x…`: pools (by address) that routes must not use: those a client's own checks refused (an extension
 * of this service's; a service that does not know it may ignore it, and the client then meets the same route again).
 */
const poolList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((address) => address.trim())
      .filter((address) => address.length > 0),
  )
  .pipe(z.array(addressSchema).max(16, { message: 'names more than 16 pools' }));

/**
 * `deadlineMs`: the spec calls it milliseconds yet describes it as Unix seconds, and leaves open whether it
 * is a time or a duration. Read it by size, which is unambiguous for any date after 2001:
 * below 1e9 it is a duration in milliseconds (300000 = 5 minutes); from 1e9 to below 1e12 it is an absolute
 * Unix time in seconds; from 1e12 on it is an absolute Unix time in milliseconds.
 */
export const deadlineParamSchema = z
  .string()
  .regex(/^\d+$/, { message: 'must be a whole number (a duration in ms, or a Unix time in s or ms)' })
  .transform(Number)
  .refine((value) => Number.isSafeInteger(value), { message: 'is too large' });

export type Deadline = { kind: 'duration'; ms: number } | { kind: 'absolute'; unixSeconds: number };

export function interpretDeadline(value: number | undefined): Deadline {
  if (value === undefined) return { kind: 'duration', ms: defaultDeadlineMs };
  if (value < 1e9) return { kind: 'duration', ms: value };
  if (value < 1e12) return { kind: 'absolute', unixSeconds: value };
  return { kind: 'absolute', unixSeconds: Math.floor(value / 1000) };
}

const common = {
  tokenIn: addressSchema,
  tokenOut: addressSchema,
  deadlineMs: deadlineParamSchema.optional(),
  chainId: queryInteger(1, 2 ** 53 - 1).default(defaultChainId),
  maxHops: queryInteger(1, 4).default(defaultMaxHops),
  exclude: protocolList.optional(),
  excludePools: poolList.optional(),
};

const distinctTokens = <T extends { tokenIn: string; tokenOut: string }>(query: T, ctx: z.RefinementCtx) => {
  if (query.tokenIn === query.tokenOut) {
    ctx.addIssue({ code: 'custom', path: ['tokenOut'], message: 'must differ from tokenIn' });
  }
};

/** GET /routes */
export const swapRouteQuerySchema = z
  .object({
    ...common,
    amountIn: positiveAmount,
    from: addressSchema.optional(),
    to: addressSchema.optional(),
    slippage: queryInteger(0, 10_000).default(defaultSlippageBps),
    includeTxn: queryBoolean.optional(),
    priceImpact: queryBoolean.optional(),
  })
  .superRefine(distinctTokens);

/** GET /earn/deposit and GET /earn/withdraw */
export const earnRouteQuerySchema = z.object({ ...common, inputAmount: positiveAmount }).superRefine(distinctTokens);

export type SwapRouteQuery = z.output<typeof swapRouteQuerySchema>;
export type EarnRouteQuery = z.output<typeof earnRouteQuerySchema>;

// ---------------------------------------------------------------- answers

/**
 * How large an answer may be, whatever the service says: a route of at most `maxAnswerHops` pairs (a request asks
 * for at most 4), at most `maxUnderlyingRoutes` legs to a deposit or withdrawal, and no byte string (a pair's extras,
 * a signature) longer than `maxAnswerHexBytes`. A larger one is refused before anything reads it.
 */
export const maxAnswerHops = 8;
/** The most routes a split answer may hold (the service shares among at most 4). */
export const maxSplitAnswerRoutes = 8;
export const maxUnderlyingRoutes = 8;
export const maxAnswerHexBytes = 1024;
const boundedHex = hexSchema.refine((hex) => hex.length <= 2 + 2 * maxAnswerHexBytes, { message: `must be at most ${maxAnswerHexBytes} bytes` });

const deadlineNumber = z.number().int().nonnegative();
/** The spec says number; accept a decimal string too, as some answers carry big ids that way. */
const partnerId = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/** The route detail object: `SwapPayload` without `minOutputAmount` and `to`. */
export const routeDetailSchema = z
  .looseObject({
    path: z
      .array(addressSchema)
      .min(1)
      .max(maxAnswerHops + 1),
    pairs: z.array(addressSchema).max(maxAnswerHops),
    extras: z.array(boundedHex).max(maxAnswerHops),
    inputAmount: uint256StringSchema,
    expectedOutputAmount: uint256StringSchema,
    deadline: deadlineNumber,
    partner: partnerId,
    sig: boundedHex,
  })
  .superRefine((detail, ctx) => {
    if (detail.path.length !== detail.pairs.length + 1) {
      ctx.addIssue({ code: 'custom', path: ['path'], message: `has ${detail.path.length} tokens for ${detail.pairs.length} pairs; must be pairs + 1` });
    }
    if (detail.pairs.length !== detail.extras.length) {
      ctx.addIssue({ code: 'custom', path: ['extras'], message: `has ${detail.extras.length} entries for ${detail.pairs.length} pairs` });
    }
  });

export const priceImpactSchema = z.looseObject({ numerator: uint256StringSchema, denominator: uint256StringSchema });

/** The ready-to-sign transaction returned when `from` is given, or the reason there is none. */
export const readyTransactionSchema = z.union([
  z.looseObject({
    to: addressSchema,
    from: addressSchema,
    data: hexSchema,
    value: uint256StringSchema.optional(),
    gas: uint256StringSchema.optional(),
  }),
  z.looseObject({ error: z.string() }),
]);

export const swapRouteSchema = z
  .looseObject({
    expectedOut: uint256StringSchema,
    routerAddress: addressSchema,
    details: routeDetailSchema,
    minimumExpectedOut: uint256StringSchema.optional(),
    priceImpact: priceImpactSchema.optional(),
    txn: readyTransactionSchema.optional(),
    /** The block whose pools the quote was made on (our service's answers carry it). */
    blockNumber: uint256StringSchema.optional(),
    /** Our service's note that its search ran out of time: the route is the best found, not proven the best. */
    search: z.looseObject({ complete: z.boolean(), budgetMs: z.number().optional(), pricedHops: z.number().optional() }).optional(),
  })
  .superRefine((route, ctx) => {
    if (route.details.pairs.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['details', 'pairs'], message: 'a swap needs at least one pair' });
    }
  });

/**
 * Our extension, GET /routes/split: an amount shared among routes through disjoint pools, each answered as GET /routes
 * answers its own part (`amountIn`), with the pools it was found through (`pools`: what the others' requests exclude),
 * to be sent in one block; `expectedOut` is their sum.
 */
export const splitRouteSchema = z
  .looseObject({
    expectedOut: uint256StringSchema,
    routes: z
      .array(z.looseObject({ amountIn: uint256StringSchema, pools: z.array(addressSchema).max(maxAnswerHops), route: swapRouteSchema }))
      .min(1)
      .max(maxSplitAnswerRoutes),
    blockNumber: uint256StringSchema.optional(),
  })
  .superRefine((answer, ctx) => {
    const sum = answer.routes.reduce((total, { route }) => total + BigInt(route.expectedOut), 0n);
    if (sum !== BigInt(answer.expectedOut)) ctx.addIssue({ code: 'custom', path: ['expectedOut'], message: `is not the routes' sum, ${sum}` });
  });

/** The farm call a deposit (or withdraw) needs: the spec's declared `DepositData { addr, extra }`. */
export const depositDataSchema = z.looseObject({ addr: addressSchema, extra: boundedHex });

export const earnRouteSchema = z.looseObject({
  expectedOut: uint256StringSchema,
  routerAddress: addressSchema,
  oneClickFarmAddress: addressSchema,
  underlyingRoutes: z.array(routeDetailSchema).min(1).max(maxUnderlyingRoutes),
  depositData: depositDataSchema.optional(),
  /** The block whose pools the quote was made on (our service's answers carry it). */
  blockNumber: uint256StringSchema.optional(),
});

export const healthSchema = z.looseObject({ alive: z.boolean(), state: z.string() });

/** Error bodies: the real service answers `{ error }`, sometimes with `tokens`; ours adds `field`. */
export const errorBodySchema = z.looseObject({
  error: z.string(),
  field: z.string().optional(),
  tokens: z.array(z.string().max(100)).max(16).optional(),
});

export type RouteDetail = z.output<typeof routeDetailSchema>;
export type SwapRoute = z.output<typeof swapRouteSchema>;
export type SplitRoute = z.output<typeof splitRouteSchema>;
export type SplitRouteJson = z.input<typeof splitRouteSchema>;
export type EarnRoute = z.output<typeof earnRouteSchema>;
/** What goes over the wire (amounts as decimal strings). */
export type RouteDetailJson = z.input<typeof routeDetailSchema>;
export type SwapRouteJson = z.input<typeof swapRouteSchema>;
export type EarnRouteJson = z.input<typeof earnRouteSchema>;

/** The message the service uses when no route exists; clients map it to a NoRouteError. */
export const noRouteMessage = 'No routes found';
