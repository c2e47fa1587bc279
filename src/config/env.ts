/**
 * The environment routekeeper reads (a `.env` file in the working directory is loaded first).
 * Empty values count as unset, so a copied `.env.example` means "use the defaults".
 */
import { readFileSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';
import { parse as parseConnectionString } from 'pg-connection-string';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { isLoopbackHost } from '../loopback.ts';
import { registerSecret, registerSecretUrl, scrub } from '../ops/secrets.ts';
import { productionServiceUrl } from '../routing-api/endpoints.ts';

/** pino's levels. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** Host names a server answers to besides loopback ones: comma-separated, or `*`. */
const hostList = (example: string) =>
  z
    .string()
    .regex(/^(\*|[\w.:-]+(,[\w.:-]+)*)$/, { message: `must be host names separated by commas, such as ${example}, or *` })
    .transform((list) => list.split(','));
/** An http(s) URL, as every URL variable must be (init checks its answers with it too). */
export const isHttpUrl = (value: string) => /^https?:\/\/\S+$/.test(value) && URL.canParse(value);
const httpUrl = z.string().refine(isHttpUrl, { message: 'must be an http(s) URL' });

/** One node URL, or several separated by commas: the daemon then fails over between them (best first). */
const httpUrls = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== ''),
  )
  .refine((urls) => urls.length > 0 && urls.every(isHttpUrl), { message: 'must be an http(s) URL, or several separated by commas' });

const postgresUrl = /^postgres(ql)?:\/\/\S+$/;

const envSchema = z.object({
  RPC_URL: optional(httpUrls),
  ROUTING_SERVICE_URL: optional(httpUrl),
  ROUTING_API_KEY: optional(z.string()),
  /** `routekeeper serve`: the key that signs partner ids in quotes made with an API key (the router's admin signer). */
  ROUTING_SIGNER_KEY: optional(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, { message: 'must be a 32-byte hex private key' })
      .transform((key) => key as `0x${string}`),
  ),
  /** The partner id the API key belongs to: quotes may carry it (or 0), no other. */
  ROUTING_PARTNER_ID: optional(z.string().regex(/^\d+$/, { message: 'must be a partner id (a whole number)' }).transform(BigInt)),
  /** How hard to press the routing service (over the strategy file's defaults.routing). */
  ROUTING_REQUESTS_PER_SECOND: optional(
    z
      .string()
      .regex(/^\d+(\.\d+)?$/, { message: 'must be a number of requests per second, such as 10 or 0.5' })
      .transform(Number)
      .refine((rate) => rate > 0, { message: 'must be more than 0' }),
  ),
  ROUTING_MAX_CONCURRENT: optional(
    z
      .string()
      .regex(/^\d+$/, { message: 'must be a whole number of requests, such as 4' })
      .transform(Number)
      .refine((count) => count >= 1, { message: 'must be at least 1' }),
  ),
  ROUTEKEEPER_CONFIG: optional(z.string()),
  ROUTEKEEPER_DATA_DIR: optional(z.string()),
  DATABASE_URL: optional(z.string().regex(postgresUrl, { message: 'must be a PostgreSQL URL, such as postgres://user:password@host:5432/routekeeper' })),
  /** A DATABASE_URL beyond this machine without TLS, on purpose. */
  ROUTEKEEPER_DATABASE_PLAINTEXT: optional(z.enum(['true', 'false'], { error: 'must be true or false' }).transform((value) => value === 'true')),
  ROUTEKEEPER_LEASE_SECONDS: optional(
    z
      .string()
      .regex(/^\d+$/, { message: 'must be a whole number of seconds, such as 15' })
      .transform(Number)
      .refine((seconds) => seconds >= 3 && seconds <= 300, { message: 'must be from 3 to 300 seconds' }),
  ),
  METRICS_PORT: optional(
    z
      .string()
      .regex(/^\d+$/, { message: 'must be a port number from 0 to 65535' })
      .transform(Number)
      .refine((port) => port <= 65_535, { message: 'must be a port number from 0 to 65535' }),
  ),
  /** Where /healthz and /metrics listen: this machine only unless told otherwise (a container says 0.0.0.0). */
  /** Asked of every request to the status page's data and /metrics as `Authorization: Bearer <token>`. */
  ROUTEKEEPER_STATUS_TOKEN: optional(z.string().min(16, { message: 'must be at least 16 characters (a random string, such as `openssl rand -hex 16`)' })),
  METRICS_HOST: optional(z.string().regex(/^[\w.:-]+$/, { message: 'must be a host name or an IP address, such as 127.0.0.1 or 0.0.0.0' })),
  /** Host names the status port serves besides the loopback ones (`Host` header), comma-separated; `*` for any. */
  METRICS_ALLOWED_HOSTS: optional(hostList('routekeeper,status.example.org')),
  ROUTING_ALLOWED_HOSTS: optional(hostList('routing,routing.example.org')),
  /** A bind beyond loopback without ROUTEKEEPER_STATUS_TOKEN, on purpose. */
  ROUTEKEEPER_STATUS_OPEN: optional(z.enum(['true', 'false'], { error: 'must be true or false' }).transform((value) => value === 'true')),
  LOG_LEVEL: optional(z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` })),
  /** Set in the container image: without RPC_URL, refuse to start instead of starting the embedded devnet (unless --devnet). */
  ROUTEKEEPER_REQUIRE_RPC_URL: optional(z.enum(['true', 'false'], { error: 'must be true or false' }).transform((value) => value === 'true')),
});

export type Env = z.output<typeof envSchema>;

/**
 * What each variable is for and what holds without it, for people: docs/reference/environment.md is generated
 * from this (`npm run docs`). Keyed by the schema's variables, so one added there without a line here does not
 * compile.
 */
export const environmentDocs: Record<keyof z.input<typeof envSchema>, { usedFor: string; byDefault: string }> = {
  RPC_URL: {
    usedFor:
      "the chain's JSON-RPC node; several separated by commas fail over to one another (viem `fallback`, ranked by latency and stability; all must serve the same chain, checked at start)",
    byDefault: "the address book's `rpcUrl`; else the embedded devnet",
  },
  ROUTING_SERVICE_URL: {
    usedFor: 'the Token Routing Service',
    byDefault: `the address book's \`routingServiceUrl\`, else one embedded in the daemon over the chain's node (the hosted \`${productionServiceUrl}\` has been offline since 2023)`,
  },
  ROUTING_API_KEY: { usedFor: 'optional key, sent only as the `X-API-KEY` header, never printed or logged', byDefault: 'none' },
  ROUTING_SIGNER_KEY: {
    usedFor:
      '`routekeeper serve` with `--api-keys`: signs the partner id of each quote made with a key, so the router (whose admin signer it must be) pays that partner its fee; never printed or logged',
    byDefault: 'none: a service without it takes no API keys',
  },
  ROUTING_PARTNER_ID: {
    usedFor: "the partner id of that key: a quote's `partner` must be 0 or this (or one of the address book's `partners`)",
    byDefault: 'none',
  },
  ROUTING_REQUESTS_PER_SECOND: {
    usedFor: "requests per second to the routing service (over the strategy file's `defaults.routing`)",
    byDefault: "10 for the hosted service and any remote one; unlimited for one on this machine (the devnet's)",
  },
  ROUTING_MAX_CONCURRENT: {
    usedFor: 'requests in flight at once to the routing service (over `defaults.routing`)',
    byDefault: '4 remote; unlimited on this machine',
  },
  ROUTEKEEPER_CONFIG: { usedFor: 'the strategy file', byDefault: '`config/strategies.yaml`' },
  ROUTEKEEPER_DATA_DIR: {
    usedFor:
      'the ledger: `ledger.sqlite`, bound to its chain (id and genesis hash) at creation and refused against any other; the embedded devnet and forks are new chains at each start, each with its own `devnet-<chain id>-<genesis>.sqlite` or `fork-<chain id>-at-<block>.sqlite` (earlier ones are removed at start unless a live process holds them)',
    byDefault: '`./data`',
  },
  DATABASE_URL: {
    usedFor:
      'the ledger in PostgreSQL instead of a SQLite file (`--database` wins over it): schema `routekeeper` for a network, `devnet_<chain id>_<genesis>` or `fork_<chain id>_at_<block>` for the embedded devnet and forks; its password is never printed or logged',
    byDefault: 'none: the SQLite ledger in `ROUTEKEEPER_DATA_DIR`',
  },
  ROUTEKEEPER_DATABASE_PLAINTEXT: {
    usedFor: '`true`: allow a `DATABASE_URL` beyond this machine without TLS (`sslmode=require` or `verify-full`), on a network you trust',
    byDefault: '`false`: such a URL is refused (exit 2)',
  },
  ROUTEKEEPER_LEASE_SECONDS: {
    usedFor:
      "how long a daemon's hold on a wallet lasts without renewal (renewed every third of it; signing stops at two thirds): a killed daemon's wallets trade again on the others within about this plus a third. Daemons sharing a database should use the same",
    byDefault: '`15`',
  },
  METRICS_PORT: {
    usedFor: 'the status page, `GET /healthz` and `GET /metrics`, 0–65535; taken before anything starts, so a port in use stops start-up at once (exit 2)',
    byDefault: '`9464`; `0` picks a free port (logged at start)',
  },
  METRICS_HOST: { usedFor: 'the address they listen on', byDefault: '`127.0.0.1` (this machine only); the Docker image sets `0.0.0.0`' },
  METRICS_ALLOWED_HOSTS: {
    usedFor:
      "host names the status port answers to besides `localhost`, `127.0.0.1` and `::1` (the request's `Host`), comma-separated, or `*` for any: a web page that points its own name at this machine is refused",
    byDefault: 'none: loopback names only',
  },
  ROUTING_ALLOWED_HOSTS: {
    usedFor:
      "host names `serve` and `devnet`'s routing service answer to besides `localhost`, `127.0.0.1` and `::1` (the request's `Host`), comma-separated, or `*` for any: a web page that points its own name at this machine is refused",
    byDefault: 'none: loopback names only',
  },
  ROUTEKEEPER_STATUS_TOKEN: {
    usedFor:
      'when set (16 characters or more), `/api/…` and `/metrics` ask for `Authorization: Bearer <token>`, and `/healthz` without it says only up or down; open the page as `http://host:9464/#token=<token>` (the part after `#` never leaves the browser). Required when `METRICS_HOST` is not loopback, unless `ROUTEKEEPER_STATUS_OPEN=true`',
    byDefault: 'none',
  },
  ROUTEKEEPER_STATUS_OPEN: {
    usedFor:
      '`true`: serve the status port on a `METRICS_HOST` beyond loopback without a token, on purpose (anyone who reaches it reads every wallet and plan)',
    byDefault: '`false`: such a bind refuses to start (exit 2)',
  },
  LOG_LEVEL: {
    usedFor: `pino log level: ${logLevels.map((level) => `\`${level}\``).join(', ')}; on a terminal \`debug\` adds each event's fields to its line`,
    byDefault: '`info`',
  },
  ROUTEKEEPER_REQUIRE_RPC_URL: {
    usedFor:
      '`true`: without `RPC_URL` (or an address book), refuse to start rather than start the embedded devnet, unless `--devnet` is given (the container image sets it)',
    byDefault: '`false`',
  },
};

/** The PostgreSQL URL the ledger lives at: `--database`, else DATABASE_URL, else none (a SQLite file). */
export function databaseUrlOf(given: string | undefined, env: Pick<Env, 'DATABASE_URL' | 'ROUTEKEEPER_DATABASE_PLAINTEXT'>): string | undefined {
  if (given !== undefined && !postgresUrl.test(given))
    throw new ConfigError('--database must be a PostgreSQL URL, such as postgres://user:password@host:5432/routekeeper');
  const url = given ?? env.DATABASE_URL;
  if (url !== undefined && !env.ROUTEKEEPER_DATABASE_PLAINTEXT) requireTls(url, given !== undefined ? '--database' : 'DATABASE_URL');
  return url;
}

/**
 * A database beyond this machine is reached over TLS that verifies the server: whoever can read the connection reads
 * the ledger, and whoever can change it can stop the daemons (and, without the tags of model/record-tags.ts, would make
 * them sign). The URL is read by the parser the driver itself uses, so what is judged is what the driver will do: the
 * host a `?host=` parameter names (it wins over the URL's), and TLS as its options leave it. Accepted: `ssl=true`,
 * `sslmode=verify-full` (and `require` / `verify-ca`, which this driver verifies fully). Refused: no TLS, or TLS that
 * does not verify the server (`sslmode=no-verify`, `uselibpqcompat=true` with `require`, `ssl=true&sslmode=disable`).
 */
function requireTls(url: string, where: string): void {
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    new URL(url);
    parsed = parseConnectionString(url);
  } catch {
    throw new ConfigError(`${where} is not a URL`);
  }
  const host = parsed.host ?? '';
  // No host or a Unix socket, or a host on this machine: the connection crosses no network.
  if (host === '' || host.startsWith('/') || isLoopbackHost(host)) return;
  const { ssl } = parsed;
  const verifies = ssl === true || (typeof ssl === 'object' && ssl !== null && ssl.rejectUnauthorized !== false && !('checkServerIdentity' in ssl));
  if (verifies) return;
  const without = ssl ? 'with TLS that does not verify the server' : 'without TLS';
  throw new ConfigError(
    `${where} names ${host}, beyond this machine, ${without}: add sslmode=verify-full (with sslrootcert=<the server's CA> if it is not a public one), or set ROUTEKEEPER_DATABASE_PLAINTEXT=true on a network you trust`,
  );
}

/** The process's `.env` is read once: what it set is in `process.env` from then on. */
let dotenvLoaded = false;

/** Reads and checks the environment; a bad value is a ConfigError naming the variable (never its value). */
/** Variables that may hold a secret, and may instead be read from the file `<NAME>_FILE` names. */
export const fileBackedVariables = [
  'RPC_URL',
  'ROUTING_SERVICE_URL',
  'ROUTING_API_KEY',
  'ROUTING_SIGNER_KEY',
  'DATABASE_URL',
  'ROUTEKEEPER_STATUS_TOKEN',
] as const;

/** A variable's value, or the content of the file its `<NAME>_FILE` twin names (a trailing newline taken off). */
export function secretFromEnv(env: NodeJS.ProcessEnv, name: string, where: string): string | undefined {
  const value = env[name];
  if (value) return value;
  const file = env[`${name}_FILE`];
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError(`${where}: ${name}_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): Env {
  if (!dotenvLoaded && env === process.env) {
    loadDotenv({ quiet: true });
    dotenvLoaded = true;
  }
  // A secret may come from the file its `_FILE` twin names (a container's mounted secret) instead of the variable.
  const given: NodeJS.ProcessEnv = { ...env };
  for (const name of fileBackedVariables) {
    const value = secretFromEnv(env, name, name);
    if (value !== undefined) given[name] = value;
  }
  // What may carry a key is redacted wherever text is written from here on, even should the rest be refused.
  registerSecret(given.ROUTING_API_KEY);
  registerSecret(given.ROUTING_SIGNER_KEY);
  registerSecret(given.ROUTEKEEPER_STATUS_TOKEN);
  for (const name of ['RPC_URL', 'ROUTING_SERVICE_URL', 'DATABASE_URL'] as const) for (const url of (given[name] ?? '').split(/[\s,]+/)) registerSecretUrl(url);
  const parsed = envSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new ConfigError(`bad environment: ${scrub(problems.join('; '))}`);
  }
  return parsed.data;
}
