import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Shutdown } from '../ops/shutdown.ts';
import { UsageError } from './errors.ts';

/** What every command's `run` is handed besides its arguments: the process's stop signal. */
export type CommandContext = { shutdown: Shutdown };

/** `once`'s default bound (here, not in once.ts: --help must not load the command). */
export const defaultOnceWait = '60s';

/** The options of the commands that run strategies (run, once, check). */
export const commonOptions = {
  config: { type: 'string', short: 'c' },
  'dry-run': { type: 'boolean' },
  'address-book': { type: 'string' },
  devnet: { type: 'boolean' },
  database: { type: 'string' },
} as const;

/** Their help lines. */
export const commonHelp = `  -c, --config <file>      strategy file (default: ROUTEKEEPER_CONFIG, else config/strategies.yaml)
  --dry-run                quote, check and simulate, record what would happen, sign nothing
  --address-book <file>    a deployment's address book: token symbols, allowlisted router and farms,
                           and the RPC and service URLs when the environment does not give them
  --database <url>         the ledger in this PostgreSQL database (default: DATABASE_URL, else a SQLite file
                           in ROUTEKEEPER_DATA_DIR)
  --devnet                 the embedded devnet, asked for explicitly (needed where ROUTEKEEPER_REQUIRE_RPC_URL=true,
                           as in the container image)
Without RPC_URL (and without an address book) routekeeper starts its embedded devnet: a LOCAL chain
with test tokens and a funded test account. Nothing there is worth real money.`;

/** Parses a command's arguments strictly; an unknown or malformed option is a UsageError naming it. */
export function parseCommandArgs<const T extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  argv: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}. See 'routekeeper ${command} --help'.`);
  }
}

/** Parses a whole-number option such as a port, naming the option when it is not one. */
export function parseIntegerOption(name: string, value: string | undefined, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${value}'`);
  }
  return Number(value);
}

/** --host: an IP address to listen on (0.0.0.0 in a container, so other containers reach it). */
export function hostOption(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (!/^[\d.]+$|^[\da-fA-F:]+$/.test(given)) throw new UsageError(`--host must be an IP address to listen on, such as 127.0.0.1 or 0.0.0.0 (got ${given})`);
  return given;
}
