/**
 * `routekeeper <command>`: dispatches to one command and turns its outcome into an exit code. Only the chosen
 * command's code is loaded, so `--help`, `--version` and a typo answer at once.
 */
import { readFileSync } from 'node:fs';
import { closest, distance } from 'fastest-levenshtein';
import { ConfigError, RoutekeeperError } from '../errors.ts';
import { redactUrl, scrub } from '../ops/secrets.ts';
import { stopReason, takeOverSignals } from '../ops/shutdown.ts';
import { isAbort } from '../ops/abort.ts';
import { type CommandEntry, commands } from './catalog.ts';
import { UsageError } from './errors.ts';

function mainHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'routekeeper: trades on EVM chains through the Token Routing Service.',
    '',
    'Usage: routekeeper <command> [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    `  ${'help'.padEnd(width)}  show a command's options: routekeeper help <command>`,
    '',
    'Options: --help (-h) shows this help, --version (-v) the version.',
    "Run 'routekeeper <command> --help' for a command's options.",
  ].join('\n');
}

/** The package's version, from the package.json beside src/ and dist/. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function commandNamed(name: string): CommandEntry {
  const command = commands.find((candidate) => candidate.name === name);
  if (command) return command;
  const names = commands.map((candidate) => candidate.name);
  const near = closest(name, names);
  const hint = distance(name, near) <= 2 ? `; did you mean '${near}'?` : '.';
  throw new UsageError(`unknown command '${name}'${hint} Commands: ${names.join(', ')}. See 'routekeeper --help'.`);
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    console.log(mainHelp());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(version());
    return 0;
  }
  if (name === 'help') {
    if (rest.length > 1) throw new UsageError("help: give one command, e.g. 'routekeeper help run'");
    console.log(rest[0] === undefined ? mainHelp() : commandNamed(rest[0]).help);
    return 0;
  }
  const command = commandNamed(name);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.help);
    return 0;
  }
  // From here the process's own handlers hold the stop signals.
  const shutdown = takeOverSignals({ graceful: command.graceful === true });
  try {
    // An import cannot be cut short, and on a busy machine the command's code takes seconds to load: a stop
    // meanwhile ends the process at once, nothing having been started.
    const stopWhileLoading = () => {
      console.error(`routekeeper: ${stopReason(shutdown.signal)} before starting; nothing was started`);
      process.exit(0);
    };
    shutdown.signal.addEventListener('abort', stopWhileLoading, { once: true });
    const loaded = await command.load();
    shutdown.signal.removeEventListener('abort', stopWhileLoading);
    const code = await loaded.run(rest, { shutdown });
    return shutdown.failed ? Math.max(code, 1) : code;
  } finally {
    shutdown.release();
  }
}

/**
 * A failure of a library we call that reached here untyped: a node or a service that cannot be reached is a
 * runtime failure the user can act on (one line, exit 1), not a bug. viem is loaded only on this path.
 */
async function explainForeign(error: unknown): Promise<RoutekeeperError | undefined> {
  const { BaseError, HttpRequestError, TimeoutError, RpcRequestError } = await import('viem');
  if (!(error instanceof BaseError)) return undefined;
  const transport = error.walk(
    (cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError || cause instanceof RpcRequestError,
  ) as InstanceType<typeof HttpRequestError | typeof TimeoutError | typeof RpcRequestError> | null;
  if (!transport) return undefined;
  const url = 'url' in transport && typeof transport.url === 'string' ? ` at ${redactUrl(transport.url)}` : '';
  return new RoutekeeperError(`the chain's node${url} failed: ${transport.shortMessage}`, { cause: error });
}

function report(error: unknown): number {
  // A stop asked for by a signal that ended the command's work: the stop, not a failure.
  if (isAbort(error)) {
    console.error(`routekeeper: ${(error as Error).message}`);
    return 0;
  }
  // Our own errors are explained by their message; a stack trace would only hide it.
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(`routekeeper: ${scrub(error.message)}`);
    return 2;
  }
  if (error instanceof RoutekeeperError) {
    console.error(`routekeeper: ${scrub(error.message)}`);
    return 1;
  }
  // Not one of ours: a bug. One line to read, and the stack for the report only when asked for.
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  console.error(`routekeeper: unexpected failure: ${scrub(message ?? '')}`);
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(scrub(error instanceof Error ? (error.stack ?? '') : ''));
  else console.error('routekeeper: this is a bug; run again with LOG_LEVEL=debug for the stack trace, and report it');
  return 1;
}

/**
 * The command line, `routekeeper <argv>`, to its exit code: every error explained in one line (bin/routekeeper.js
 * runs it; tests call it in-process).
 */
export async function runCommandLine(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    return report((await explainForeign(error).catch(() => undefined)) ?? error);
  }
}
