import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.ts';

export type Command = {
  name: string;
  summary: string;
  /** The full `--help` text. */
  help: string;
  /** Resolves to the process exit code. */
  run(argv: string[]): Promise<number>;
};

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
