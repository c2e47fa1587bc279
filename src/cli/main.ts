/** `routekeeper <command>`: dispatches to one command and turns its outcome into an exit code. */
import { scrub, scrubDeep } from '../ops/secrets.ts';
import type { Command } from './command.ts';
import { devnetCommand } from './devnet.ts';
import { ConfigError } from '../config/errors.ts';
import { RoutekeeperError } from '../errors.ts';
import { UsageError } from './errors.ts';
import { checkCommand } from './check.ts';
import { historyCommand } from './history.ts';
import { resumeCommand } from './resume.ts';
import { onceCommand } from './once.ts';
import { quoteCommand } from './quote.ts';
import { runCommand } from './run.ts';
import { schemaCommand } from './schema.ts';

const commands: Command[] = [runCommand, onceCommand, quoteCommand, checkCommand, historyCommand, resumeCommand, devnetCommand, schemaCommand];

function mainHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'routekeeper: trades on EVM chains through the Token Routing Service.',
    '',
    'Usage: routekeeper <command> [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    "Run 'routekeeper <command> --help' for a command's options.",
  ].join('\n');
}

declare global {
  /** Set by bin/routekeeper.js: signals received while the program was loading. */
  var routekeeperSignalsWhileLoading: { release(): NodeJS.Signals | undefined } | undefined;
}

async function main(argv: string[]): Promise<number> {
  const stoppedWhileLoading = globalThis.routekeeperSignalsWhileLoading?.release();
  if (stoppedWhileLoading) {
    console.error(`routekeeper: stopped by ${stoppedWhileLoading} before starting; nothing was started`);
    return 0;
  }
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(mainHelp());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) throw new UsageError(`unknown command '${name}'. Commands: ${commands.map((c) => c.name).join(', ')}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.help);
    return 0;
  }
  return command.run(rest);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // Our own errors are explained by their message; a stack trace would only hide it.
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(`routekeeper: ${scrub(error.message)}`);
    process.exitCode = 2;
  } else if (error instanceof RoutekeeperError) {
    console.error(`routekeeper: ${scrub(error.message)}`);
    process.exitCode = 1;
  } else {
    console.error('routekeeper: unexpected failure:', scrubDeep(error));
    process.exitCode = 1;
  }
}
