import { type Command, Option } from 'commander';

/** pino's level names, as `--log-level` takes them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The daemon's and the emulator's log formats: JSON records for log collectors, or pino-pretty for a person. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The one-shot commands' log formats: `text` (the default) is a human line
 * per event, on a terminal or not, so that a CI log reads like the terminal;
 * `json` gives log collectors pino's records, `pretty` pino-pretty's lines.
 */
export const ONE_SHOT_LOG_FORMATS = ['text', ...LOG_FORMATS] as const;
export type OneShotLogFormat = (typeof ONE_SHOT_LOG_FORMATS)[number];

/** `--log-format` and `--log-level` of the one-shot commands. */
export interface LogFlags {
  readonly logFormat: OneShotLogFormat;
  readonly logLevel: string;
}

/** Adds `--log-format` and `--log-level`; each command picks how chatty it is by default. */
export function addLogOptions(command: Command, defaultLevel: string): Command {
  return command
    .addOption(
      new Option('--log-format <format>', 'stderr: human lines, or pino JSON records for log collectors')
        .choices([...ONE_SHOT_LOG_FORMATS])
        .default('text'),
    )
    .addOption(
      new Option('--log-level <level>', 'pino log level').choices([...LOG_LEVELS]).default(defaultLevel),
    );
}
