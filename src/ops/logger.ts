/**
 * pino: pretty on a terminal, JSON lines otherwise. Keys are redacted wherever they appear by name, secret
 * URLs wherever they appear in text (secrets.ts), and
 * amounts are logged as strings (bigint would lose precision as a JSON number).
 */
import pino, { type Logger } from 'pino';
import { scrubDeep } from './secrets.ts';
import { toJson } from '../json.ts';

export type { Logger };

export const redactedPaths = ['privateKey', '*.privateKey', 'apiKey', '*.apiKey', 'headers["x-api-key"]', '*.headers["x-api-key"]', 'key', '*.key'];

/**
 * How a terminal shows the log: one line per event, its headline (which already says in words what the fields
 * hold); the fields too, on the same line, at debug and trace. Programs read the JSON lines instead.
 */
export function terminalFormat(level: string) {
  const detailed = level === 'debug' || level === 'trace';
  // (pino-pretty drops the line's end when both hideObject and singleLine are set: one or the other.)
  return { colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,raw', ...(detailed ? { singleLine: true } : { hideObject: true }) };
}

export function createLogger(options: { level?: string; pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && !options.destination);
  const base = {
    level: options.level ?? (process.env.LOG_LEVEL || 'info'),
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers: { err: pino.stdSerializers.err },
    formatters: { bindings: () => ({}) },
    hooks: {
      // bigint anywhere in a log call becomes a decimal string; a secret URL anywhere is redacted.
      logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(
          this,
          args.map((arg) => scrubDeep(arg && typeof arg === 'object' && !(arg instanceof Error) ? JSON.parse(toJson(arg)) : arg)),
        );
      },
    },
  };
  if (pretty) {
    // pino-pretty writes to stdout unless told the file descriptor (stderr for commands whose stdout is their result).
    const fd = options.destination === process.stderr ? 2 : 1;
    return pino({ ...base, transport: { target: 'pino-pretty', options: { ...terminalFormat(base.level), destination: fd } } });
  }
  return options.destination ? pino(base, options.destination as pino.DestinationStream) : pino(base);
}
