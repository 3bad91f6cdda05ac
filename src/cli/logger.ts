import { type Command, Option } from 'commander';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { CommandContext } from './command-context.js';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  /** @default 'json' */
  readonly format?: LogFormat;
  /** pino level name. @default 'info' */
  readonly level?: string;
  /** File descriptor or stream logs go to. @default 2 (stderr: stdout is for results) */
  readonly destination?: number | NodeJS.WritableStream;
}

/**
 * Every field that can hold a secret, wherever it nests: redaction is
 * configured here once so no module has to remember it.
 */
export const REDACTED_PATHS = [
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.apiKey',
  '*.headers.authorization',
  '*.headers.Authorization',
  'client_secret',
  '*.client_secret',
  '*.*.client_secret',
  '*.*.*.client_secret',
  'secret',
  '*.secret',
  '*.*.secret',
  'body',
  '*.body',
] as const;

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? 2;
  const base = {
    level: options.level ?? 'info',
    base: { app: 'edgesync' },
    redact: { paths: [...REDACTED_PATHS], censor: '(sensitive)' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.format === 'pretty') {
    const stream = pretty({
      destination,
      sync: true,
      ignore: 'pid,hostname,app',
      ...(typeof destination === 'number' ? {} : { colorize: false }),
    });
    return pino(base, stream);
  }
  const stream =
    typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  return pino(base, stream);
}

/** `--log-format` and `--log-level` of the one-shot commands. */
export interface LogFlags {
  /** Unset: pretty on a TTY, json otherwise. */
  readonly logFormat?: LogFormat;
  readonly logLevel: string;
}

/** Adds `--log-format` and `--log-level`; each command picks how chatty it is by default. */
export function addLogOptions(command: Command, defaultLevel: string): Command {
  return command
    .addOption(new Option('--log-format <format>', 'log format on stderr').choices([...LOG_FORMATS]))
    .option('--log-level <level>', 'pino log level', defaultLevel);
}

/** The logger `addLogOptions`' flags ask for, writing to the command's stderr. */
export function loggerFor(flags: LogFlags, stderr: CommandContext['stderr']): Logger {
  return createLogger({
    format: flags.logFormat ?? (stderr.isTTY ? 'pretty' : 'json'),
    level: flags.logLevel,
    destination: stderr,
  });
}
