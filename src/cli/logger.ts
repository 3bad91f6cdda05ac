import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { snakeCaseKey } from '../json-case.js';
import { isRecord } from '../json-value.js';
import { KINDS } from '../kinds/registry.js';
import { secretFieldNames } from '../kinds/visit-spec.js';
import { visibleFormattedText, visibleJsonLine } from '../visible-text.js';
import type { CommandContext } from './command-context.js';
import { humanLogLine } from './human-log-line.js';
import type { LogFlags, OneShotLogFormat } from './log-flags.js';
import { parseLogLevel } from './log-level.js';

export { addLogOptions, LOG_FORMATS, type LogFlags, type LogFormat } from './log-flags.js';

export interface LoggerOptions {
  /** `text`: a human line per record (humanLogLine). @default 'json' */
  readonly format?: OneShotLogFormat;
  /** pino level name. @default 'info' */
  readonly level?: string;
  /** File descriptor or stream logs go to. @default 2 (stderr: stdout is for results) */
  readonly destination?: number | NodeJS.WritableStream;
  /** false (`watch --no-color`): pretty logs without ANSI colours even on a terminal. @default pino-pretty's choice */
  readonly color?: boolean;
  /** Applied to every line before it is written: the daemon's secret scrubber (values, not field names). */
  readonly scrub?: (line: string) => string;
}

/** How deep below a log record's top level a kind's secret field is looked for. */
const SECRET_FIELD_DEPTH = 3;

/**
 * Every field that can hold a secret, wherever it nests: redaction is
 * configured here once so no module has to remember it. The API key and
 * request bodies are the client's; the secret fields of resources come from
 * the kinds' field rules (FieldRule.sensitive); `secret` is the webhook
 * verification secret of read-only route modules, which have no field rules.
 */
export const REDACTED_PATHS: readonly string[] = [
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.apiKey',
  '*.headers.authorization',
  '*.headers.Authorization',
  ...[...secretFieldNames(KINDS)].flatMap((name) =>
    Array.from({ length: SECRET_FIELD_DEPTH + 1 }, (_, depth) => [...Array(depth).fill('*'), name].join('.')),
  ),
  'secret',
  '*.secret',
  '*.*.secret',
  'body',
  '*.body',
];

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? 2;
  const { scrub } = options;
  const base = {
    level: parseLogLevel(options.level ?? 'info'),
    base: { app: 'edgesync' },
    redact: { paths: [...REDACTED_PATHS], censor: '(sensitive)' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Field names in snake_case, like every JSON edgesync writes for machines (durationMs → duration_ms).
    // Top level only: other nested values (a plan summary, user metadata) keep their own shape.
    // Levels as names ("level":"info"), which log pipelines read without pino's number table.
    formatters: { log: snakeCaseFields, level: (label: string) => ({ level: label }) },
    // Two nested values are ours too, and snake_case like the rest: an error's own fields
    // (`err`: an ApiError's `errorCode`) and an action's failure (`error`: its `serviceCode`).
    serializers: { err: (error: Error) => ownRecord(pino.stdSerializers.err(error)), error: ownRecord },
    // Names and service messages in fields: pino leaves C1 and bidi controls raw; escape them as \uXXXX.
    hooks: {
      streamWrite: scrub === undefined ? visibleJsonLine : (line: string) => visibleJsonLine(scrub(line)),
    },
  };
  if (options.format === 'pretty') {
    const stream = pretty({
      destination: visibleDestination(destination),
      sync: true,
      ignore: 'pid,hostname,app',
      // One line per event: fields follow the message on the same line.
      singleLine: true,
      ...(typeof destination === 'number' && options.color !== false ? {} : { colorize: false }),
    });
    return pino(base, stream);
  }
  const stream =
    typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  if (options.format === 'text') {
    return pino(base, { write: (line: string) => stream.write(humanLogLine(line)) });
  }
  return pino(base, stream);
}

/** A value whose keys are edgesync's own names (never IDs or user data): its keys in snake_case. */
function ownRecord(value: unknown): unknown {
  return isRecord(value) ? snakeCaseFields(value) : value;
}

/** A log record's own field names in snake_case; their values untouched. */
export function snakeCaseFields(fields: Record<string, unknown>): Record<string, unknown> {
  const renamed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) renamed[snakeCaseKey(key)] = value;
  return renamed;
}

/**
 * pino-pretty parses each JSON line and prints its values raw; this sits
 * between it and the real destination and escapes what it printed, keeping
 * its line breaks and colours.
 */
function visibleDestination(destination: number | NodeJS.WritableStream): NodeJS.WritableStream {
  const target =
    typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      target.write(visibleFormattedText(chunk.toString()));
      callback();
    },
  });
}

/** The logger `addLogOptions`' flags ask for, writing to the command's stderr. */
export function loggerFor(flags: LogFlags, stderr: CommandContext['stderr']): Logger {
  return createLogger({
    format: flags.logFormat,
    level: flags.logLevel,
    destination: stderr,
  });
}
