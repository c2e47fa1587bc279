/**
 * pino: pretty on a terminal, JSON lines otherwise. Keys are redacted wherever they appear by name, and
 * amounts are logged as strings (bigint would lose precision as a JSON number).
 */
import pino, { type Logger } from 'pino';

export type { Logger };

export const redactedPaths = ['privateKey', '*.privateKey', 'apiKey', '*.apiKey', 'headers["x-api-key"]', '*.headers["x-api-key"]', 'key', '*.key'];

export function createLogger(options: { level?: string; pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && !options.destination);
  const base = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers: { err: pino.stdSerializers.err },
    formatters: { bindings: () => ({}) },
    hooks: {
      // bigint anywhere in a log call becomes a decimal string.
      logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
        method.apply(this, args.map((arg) => (arg && typeof arg === 'object' ? JSON.parse(JSON.stringify(arg, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) : arg)));
      },
    },
  };
  if (pretty) return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  return options.destination ? pino(base, options.destination as pino.DestinationStream) : pino(base);
}
